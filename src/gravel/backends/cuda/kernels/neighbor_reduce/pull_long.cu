// Neighbor reduce, pull, the long lists: one CTA per listed item (items[blockIdx.x]), its threads
// striding over the list, a warp shuffle tree and a pass over the warps' results, then apply(v, i, acc)
// (default: out[i] = acc). Beside pull.cu, which leaves these items alone: one group of lanes walking a
// hub's hundred thousand entries would finish long after the rest of the sweep.
#include "neighbor_reduce/neighbor_reduce.cuh"

template <typename T, int BLOCK>
__global__ void gravel_neighbor_reduce_pull_long(const offset_t *__restrict__ offsets,
                                                 const vid_t *__restrict__ indices, const float *__restrict__ weights,
                                                 int weighted, const vid_t *__restrict__ frontier, int all, int by_item,
                                                 const long long *__restrict__ items, T identity,
                                                 T *__restrict__ out GRAVEL_USER_PARAMS) {
    const long long i = items[blockIdx.x];
    const vid_t v = all ? (vid_t)i : frontier[i];
    const long long list = by_item ? i : v;
    T acc = identity;
    for (offset_t edge = offsets[list] + threadIdx.x, end = offsets[list + 1]; edge < end; edge += BLOCK) {
        const vid_t u = __ldcs(indices + edge);
        const float weight = weighted ? __ldcs(weights + edge) : 1.0f;
        (void)u; (void)weight;
        acc = gravel_nr_reduce<T>(acc, gravel_nr_value<T>(v, u, edge, weight GRAVEL_USER_ARGS));
    }
    __shared__ T warps[BLOCK / 32];
    for (int d = 16; d > 0; d >>= 1) acc = gravel_nr_reduce<T>(acc, __shfl_down_sync(0xffffffffu, acc, d));
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < BLOCK / 32 ? warps[threadIdx.x] : identity;
        for (int d = 16; d > 0; d >>= 1) acc = gravel_nr_reduce<T>(acc, __shfl_down_sync(0xffffffffu, acc, d));
        if (threadIdx.x == 0) gravel_nr_apply<T>(v, i, acc, out GRAVEL_USER_ARGS);
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_pull_long<float, 256>,
                            (void*)gravel_neighbor_reduce_pull_long<double, 256>,
                            (void*)gravel_neighbor_reduce_pull_long<long long, 256>};
#endif
