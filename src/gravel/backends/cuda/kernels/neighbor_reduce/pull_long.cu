// Neighbor reduce, pull, the long lists of a sweep over every vertex: one CTA per listed vertex
// (v = items[blockIdx.x]), its threads striding over v's in-edges, a CUB block reduction, then
// apply(v, v, acc) (default: out[v] = acc). pull.cu takes the other lists: one group of lanes walking
// a hub's hundred thousand entries would finish long after the rest of the sweep.
#include <cub/block/block_reduce.cuh>
#include "neighbor_reduce/neighbor_reduce.cuh"

template <typename T, int BLOCK>
__global__ void gravel_neighbor_reduce_pull_long(const offset_t *__restrict__ offsets,
                                                 const vid_t *__restrict__ indices, const float *__restrict__ weights,
                                                 int weighted, const vid_t *__restrict__ items, T identity,
                                                 T *__restrict__ out GRAVEL_USER_PARAMS) {
    const vid_t v = items[blockIdx.x];
    T acc = identity;
    for (offset_t edge = offsets[v] + threadIdx.x, end = offsets[v + 1]; edge < end; edge += BLOCK) {
        const vid_t u = __ldcs(indices + edge);
        const float weight = weighted ? __ldcs(weights + edge) : 1.0f;
        (void)u; (void)weight;
        acc = gravel_nr_reduce<T>(acc, gravel_nr_value<T>(v, u, edge, weight GRAVEL_USER_ARGS));
    }
    typedef cub::BlockReduce<T, BLOCK> Reduce;
    __shared__ typename Reduce::TempStorage temp;
    acc = Reduce(temp).Reduce(acc, GravelNrReduce<T>());
    double sums[GRAVEL_NR_SLOTS] = {};
    if (threadIdx.x == 0) gravel_nr_apply<T>(v, v, acc, out, sums GRAVEL_USER_ARGS);
    gravel_nr_sums_put(sums GRAVEL_USER_ARGS);
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_pull_long<float, 256>,
                            (void*)gravel_neighbor_reduce_pull_long<double, 256>,
                            (void*)gravel_neighbor_reduce_pull_long<long long, 256>};
#endif
