// Neighbor reduce, pull, repeated inside one cooperative launch with a grid-wide barrier between the
// steps (a run of levels that each gather from the one before, as Brandes' forward pulls do). Every
// step, each item v for which where(v, step) holds reduces value(v, u, edge, weight, step) over its
// in-edges (u -> v) from the identity, a warp per item (lanes stride over the list, then a shuffle
// tree), and its first lane evaluates apply(v, acc, step): an expression, true where it changed v.
// The changes are counted, one shared-memory atomic per item and one global one per CTA and step
// (one per item would pile millions on one address). Counters rotate as in advance/pull_steps.cu
// (common.cuh: gravel_step_counter); sizes[s] receives step s's count; the steps stop after one that
// changes nothing, or after max_steps. The user's arrays are read and written in the same launch, so
// the functors must not read them through the read-only cache.
#include "neighbor_reduce/neighbor_reduce.cuh"

#ifndef GRAVEL_NRS_WHERE
#define GRAVEL_NRS_WHERE(v, step) true
#endif
#ifndef GRAVEL_NRS_VALUE
#define GRAVEL_NRS_VALUE(v, u, edge, weight, step) 1
#endif
#ifndef GRAVEL_NRS_APPLY
#define GRAVEL_NRS_APPLY(v, acc, step) false
#endif

__device__ __forceinline__ bool gravel_nrs_where(vid_t v, int step GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)step;
    return GRAVEL_NRS_WHERE(v, step);
}

template <typename T>
__device__ __forceinline__ T gravel_nrs_value(vid_t v, vid_t u, offset_t edge, float weight,
                                              int step GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)u; (void)edge; (void)weight; (void)step;
    return (T)(GRAVEL_NRS_VALUE(v, u, edge, weight, step));
}

template <typename T>
__device__ __forceinline__ bool gravel_nrs_apply(vid_t v, T acc, int step GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)acc; (void)step;
    return GRAVEL_NRS_APPLY(v, acc, step);
}

template <typename T, int BLOCK, int PER_SM>
__global__ void __launch_bounds__(BLOCK, PER_SM)
gravel_neighbor_reduce_pull_steps(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                  const float *__restrict__ weights, int weighted,
                                  const vid_t *__restrict__ items, int all, long long n_items, T identity,
                                  unsigned long long *counts, int max_steps, long long *sizes GRAVEL_USER_PARAMS) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned int changed;
    const int lane = threadIdx.x & 31;
    const long long warp = (blockIdx.x * (long long)BLOCK + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * BLOCK) >> 5;
    for (int step = 0; step < max_steps; ++step) {
        unsigned long long *count = gravel_step_counter(grid, counts, step);
        if (threadIdx.x == 0) changed = 0;
        __syncthreads();
        for (long long i = warp; i < n_items; i += warps) {
            const vid_t v = all ? (vid_t)i : items[i];
            if (!gravel_nrs_where(v, step GRAVEL_USER_ARGS)) continue;  // the same for the whole warp
            T acc = identity;
            for (offset_t edge = offsets[v] + lane, end = offsets[v + 1]; edge < end; edge += 32) {
                const vid_t u = indices[edge];
                const float weight = weighted ? weights[edge] : 1.0f;
                acc = gravel_nr_reduce<T>(acc, gravel_nrs_value<T>(v, u, edge, weight, step GRAVEL_USER_ARGS));
            }
            for (int d = 16; d > 0; d >>= 1) acc = gravel_nr_reduce<T>(acc, __shfl_down_sync(0xffffffffu, acc, d));
            if (lane == 0 && gravel_nrs_apply<T>(v, acc, step GRAVEL_USER_ARGS)) atomicAdd(&changed, 1u);
        }
        __syncthreads();
        if (threadIdx.x == 0 && changed) atomicAdd(count, (unsigned long long)changed);
        if (gravel_step_made(grid, count, step, sizes) == 0) break;
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_pull_steps<double, 256, 8>,
                            (void*)gravel_neighbor_reduce_pull_steps<float, 256, 8>};
#endif
