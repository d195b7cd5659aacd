// Neighbor reduce, pull: out[i] = reduce over the in-edges (u -> v) of item v of value(v, u, edge,
// weight), starting from the identity. One warp per item: lanes stride over the list, then a shuffle
// tree combines them; no atomics, coalesced reads of the list.
#include "neighbor_reduce/neighbor_reduce.cuh"

#ifndef GRAVEL_NR_REDUCE
#define GRAVEL_NR_REDUCE(a, b) ((a) + (b))
#endif

template <typename T>
__device__ __forceinline__ T gravel_nr_reduce(T a, T b) {
    return GRAVEL_NR_REDUCE(a, b);
}

template <typename T>
__global__ void gravel_neighbor_reduce_pull(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                            const float *__restrict__ weights, int weighted,
                                            const vid_t *__restrict__ frontier, int all, long long n, T identity,
                                            T *__restrict__ out GRAVEL_USER_PARAMS) {
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        const vid_t v = all ? (vid_t)i : frontier[i];
        T acc = identity;
        for (offset_t edge = offsets[v] + lane, end = offsets[v + 1]; edge < end; edge += 32) {
            const vid_t u = indices[edge];
            const float weight = weighted ? weights[edge] : 1.0f;
            (void)u; (void)weight;
            acc = gravel_nr_reduce<T>(acc, gravel_nr_value<T>(v, u, edge, weight GRAVEL_USER_ARGS));
        }
        for (int d = 16; d > 0; d >>= 1) {
            T other = __shfl_down_sync(0xffffffffu, acc, d);
            acc = gravel_nr_reduce<T>(acc, other);
        }
        if (lane == 0) out[i] = acc;
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_pull<float>, (void*)gravel_neighbor_reduce_pull<double>,
                            (void*)gravel_neighbor_reduce_pull<int>, (void*)gravel_neighbor_reduce_pull<long long>};
#endif
