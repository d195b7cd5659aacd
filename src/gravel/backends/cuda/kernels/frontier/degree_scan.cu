// Exclusive scan of the out-degrees of a frontier's ids[0..n): scan[0] = 0, scan[i + 1] = the sum of
// the first i + 1 degrees (what merge-path load balancing partitions). A small frontier is gathered
// and scanned by one block in one launch: CuPy's gather, subtract and (CUB) cumsum took six launches
// and 0.1 ms for a frontier of one vertex (H200, 2026-11-26), most of a BFS step's fixed cost. A large
// frontier writes its degrees with gravel_frontier_degrees for CuPy's cumsum to scan.
#include "common.cuh"

__device__ __forceinline__ long long gravel_degree(const offset_t *offsets, const vid_t *ids, long long n, long long i) {
    return i < n ? (long long)(offsets[ids[i] + 1] - offsets[ids[i]]) : 0;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
gravel_degree_scan_block(const offset_t *__restrict__ offsets, const vid_t *__restrict__ ids, long long n,
                         long long *__restrict__ scan) {
    constexpr int WARPS = BLOCK / 32;
    __shared__ long long warp_sums[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long carry = 0;  // the sum of every earlier chunk
    for (long long base = 0; base < n; base += BLOCK) {
        const long long i = base + threadIdx.x;
        long long x = gravel_degree(offsets, ids, n, i);
        for (int d = 1; d < 32; d <<= 1) {  // inclusive scan within the warp
            const long long y = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= d) x += y;
        }
        if (lane == 31) warp_sums[warp] = x;
        __syncthreads();
        if (warp == 0) {  // inclusive scan of the warps' sums
            long long s = lane < WARPS ? warp_sums[lane] : 0;
            for (int d = 1; d < 32; d <<= 1) {
                const long long y = __shfl_up_sync(0xffffffffu, s, d);
                if (lane >= d) s += y;
            }
            if (lane < WARPS) warp_sums[lane] = s;
        }
        __syncthreads();
        if (i < n) scan[i + 1] = carry + (warp ? warp_sums[warp - 1] : 0) + x;
        carry += warp_sums[WARPS - 1];
        __syncthreads();  // warp_sums is rewritten by the next chunk
    }
    if (threadIdx.x == 0) scan[0] = 0;
}

__global__ void gravel_frontier_degrees(const offset_t *__restrict__ offsets, const vid_t *__restrict__ ids,
                                        long long n, long long *__restrict__ out) {
    GRAVEL_GRID_STRIDE(i, n) { out[i] = gravel_degree(offsets, ids, n, i); }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_degree_scan_block<1024>, (void*)gravel_frontier_degrees};
#endif
