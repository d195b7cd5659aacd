// Intersection along every arc u -> v of a graph whose lists are all short (at most MAXLEN), summed: a
// warp per row u holds N(u) in shared memory and streams the lists of u's neighbours, its lanes taking
// consecutive elements across them (coalesced reads, where a thread per pair merges two lists with one
// dependent read a step), and looks each element up in N(u) by binary search.
#include "intersect/intersect.cuh"

template <int BLOCK, int MAXLEN>
__global__ void __launch_bounds__(BLOCK)
    gravel_intersect_rows(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices, long long n,
                          unsigned long long *__restrict__ total) {
    constexpr int WARPS = BLOCK / 32;
    __shared__ vid_t row[WARPS][MAXLEN];        // N(u)
    __shared__ long long ends[WARPS][MAXLEN];   // the running sum of its neighbours' list lengths
    __shared__ long long bases[WARPS][MAXLEN];  // element t of the stream is indices[bases[j] + t]
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const long long warps = (long long)gridDim.x * WARPS;
    unsigned long long count = 0;
    for (long long u = blockIdx.x * (long long)WARPS + w; u < n; u += warps) {
        const offset_t first = offsets[u];
        const int na = (int)(offsets[u + 1] - first);
        long long carry = 0;
        for (int j0 = 0; j0 < na; j0 += 32) {  // the same trips for every lane
            const int j = j0 + lane;
            const vid_t v = j < na ? indices[first + j] : 0;
            const offset_t start = j < na ? offsets[v] : 0;
            const long long len = j < na ? offsets[v + 1] - start : 0;
            long long end = len;  // inclusive scan across the warp
            for (int d = 1; d < 32; d <<= 1) {
                const long long x = __shfl_up_sync(0xffffffffu, end, d);
                if (lane >= d) end += x;
            }
            if (j < na) {
                row[w][j] = v;
                ends[w][j] = carry + end;
                bases[w][j] = start - (carry + end - len);
            }
            carry += __shfl_sync(0xffffffffu, end, 31);
        }
        __syncwarp();
        int j = 0;  // this lane's neighbour: t only grows, so j only advances
        for (long long t = lane; t < carry; t += 32) {
            while (ends[w][j] <= t) ++j;
            const vid_t x = indices[bases[w][j] + t];
            int lo = 0, hi = na;  // the first element of N(u) not below x
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (row[w][mid] < x) lo = mid + 1;
                else hi = mid;
            }
            count += lo < na && row[w][lo] == x;
        }
        __syncwarp();  // before the next row overwrites the warp's arrays
    }
    for (int d = 16; d > 0; d >>= 1) count += __shfl_down_sync(0xffffffffu, count, d);
    if (lane == 0 && count) atomicAdd(total, count);
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_intersect_rows<256, 128>};
#endif
