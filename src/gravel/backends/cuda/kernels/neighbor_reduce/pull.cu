// Neighbor reduce, pull: reduce over the in-edges (u -> v) of item v of value(v, u, edge, weight),
// starting from the identity, then apply(v, i, acc) (default: out[i] = acc). VEC lanes per item (a
// power of two up to a warp, chosen from the average degree, as cuSPARSE's CSR-vector does): lanes
// stride over the list, then a shuffle tree within the group combines them; no atomics, coalesced reads.
#include "neighbor_reduce/neighbor_reduce.cuh"

#ifndef GRAVEL_NR_REDUCE
#define GRAVEL_NR_REDUCE(a, b) ((a) + (b))
#endif
#ifndef GRAVEL_NR_APPLY
#define GRAVEL_NR_APPLY(v, i, acc, out) out[i] = acc
#endif

template <typename T>
__device__ __forceinline__ T gravel_nr_reduce(T a, T b) {
    return GRAVEL_NR_REDUCE(a, b);
}

template <typename T>
__device__ __forceinline__ void gravel_nr_apply(vid_t v, long long i, T acc, T *out GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)out;
    GRAVEL_NR_APPLY(v, i, acc, out);
}

template <typename T, int VEC>
__global__ void gravel_neighbor_reduce_pull(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                            const float *__restrict__ weights, int weighted,
                                            const vid_t *__restrict__ frontier, int all, long long n, T identity,
                                            T *__restrict__ out GRAVEL_USER_PARAMS) {
    constexpr int PER_WARP = 32 / VEC;
    const int lane = threadIdx.x & (VEC - 1);
    const int group = (threadIdx.x & 31) / VEC;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    // the loop bound is the same for the whole warp, so every lane reaches the full-warp shuffles
    for (long long w = ((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5) * PER_WARP; w < n;
         w += warps * PER_WARP) {
        const long long i = w + group;
        T acc = identity;
        vid_t v = 0;
        if (i < n) {
            v = all ? (vid_t)i : frontier[i];
            for (offset_t edge = offsets[v] + lane, end = offsets[v + 1]; edge < end; edge += VEC) {
                const vid_t u = indices[edge];
                const float weight = weighted ? weights[edge] : 1.0f;
                (void)u; (void)weight;
                acc = gravel_nr_reduce<T>(acc, gravel_nr_value<T>(v, u, edge, weight GRAVEL_USER_ARGS));
            }
        }
        for (int d = VEC / 2; d > 0; d >>= 1) {
            T other = __shfl_down_sync(0xffffffffu, acc, d, VEC);
            acc = gravel_nr_reduce<T>(acc, other);
        }
        if (lane == 0 && i < n) gravel_nr_apply<T>(v, i, acc, out GRAVEL_USER_ARGS);
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_pull<float, 32>, (void*)gravel_neighbor_reduce_pull<double, 4>,
                            (void*)gravel_neighbor_reduce_pull<int, 1>, (void*)gravel_neighbor_reduce_pull<long long, 8>};
#endif
