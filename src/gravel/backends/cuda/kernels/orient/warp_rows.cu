// Orientation by (degree, id) rank, a warp per row (the forward triangle count's graph): arc u -> v is
// kept where u ranks below v, by a lower degree or the same degree and a lower id. The count pass sums
// each row's kept arcs; the write pass places them from the row's new offset in their order, 32 arcs
// at a time, each lane's place counted by a ballot of the lanes before it, so rows stay sorted.
#include "common.cuh"

__device__ __forceinline__ bool gravel_ranks_below(const int *__restrict__ degree, vid_t u, int du, vid_t v) {
    int dv = degree[v];
    return du < dv || (du == dv && u < v);
}

// kept[u]: the arcs of row u that are kept.
__global__ void gravel_orient_count(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                    const int *__restrict__ degree, long long n, offset_t *__restrict__ kept) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long u = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; u < n; u += warps) {
        const int du = degree[u];
        long long c = 0;
        for (offset_t p = offsets[u] + lane; p < offsets[u + 1]; p += 32)
            c += gravel_ranks_below(degree, (vid_t)u, du, indices[p]);
        for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
        if (lane == 0) kept[u] = c;
    }
}

// The kept arcs of row u into out[starts[u] ..), in their order.
__global__ void gravel_orient_write(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                    const int *__restrict__ degree, long long n, const offset_t *__restrict__ starts,
                                    vid_t *__restrict__ out) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long u = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; u < n; u += warps) {
        const int du = degree[u];
        const offset_t end = offsets[u + 1];
        offset_t at = starts[u];
        for (offset_t base = offsets[u]; base < end; base += 32) {  // the same trips for every lane
            const offset_t p = base + lane;
            const vid_t v = p < end ? indices[p] : 0;
            const bool keep = p < end && gravel_ranks_below(degree, (vid_t)u, du, v);
            const unsigned int mask = __ballot_sync(0xffffffffu, keep);
            if (keep) out[at + __popc(mask & ((1u << lane) - 1u))] = v;
            at += __popc(mask);
        }
    }
}
