// Neighbor reduce, pull, repeated inside one cooperative launch with a grid-wide barrier between the
// steps (a run of levels that each gather from the one before, as Brandes' forward pulls do). Every
// step, each item v for which where(v, step) holds reduces value(v, u, edge, weight, step) over its
// in-edges (u -> v) from the identity, and apply(v, acc, step), an expression true where it changed
// v, updates it. A warp takes 32 items at once and walks their lists as one run of arcs, 32 at a
// time (each lane finds its arc's item by a search over the warp's scanned degrees): a list of a few
// arcs costs a lane, not a warp, and an item whose where fails costs nothing past its test. Each
// run of one item's arcs folds into its first lane by shuffles, which adds it to the item's sum in
// shared memory (no atomics: one lane per item and chunk). The changes are counted, one shared
// atomic per warp and one global one per CTA and step (one per item would pile millions on one
// address). Counters rotate as in advance/pull_steps.cu (common.cuh: gravel_step_counter); sizes[s]
// receives step s's count; the steps stop after one that changes nothing, or after max_steps. The
// user's arrays are read and written in the same launch, so the functors must not read them
// through the read-only cache.
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
    constexpr unsigned FULL = 0xffffffffu;
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned int changed;
    __shared__ T acc[BLOCK];  // each lane's item's reduction so far
    const int lane = threadIdx.x & 31;
    T *const warp_acc = acc + (threadIdx.x & ~31);
    const long long warp = (blockIdx.x * (long long)BLOCK + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * BLOCK) >> 5;
    for (int step = 0; step < max_steps; ++step) {
        unsigned long long *count = gravel_step_counter(grid, counts, step);
        if (threadIdx.x == 0) changed = 0;
        __syncthreads();
        for (long long base = warp * 32; base < n_items; base += warps * 32) {
            const long long i = base + lane;
            vid_t v = 0;
            bool live = false;
            offset_t start = 0, degree = 0;
            if (i < n_items) {
                v = all ? (vid_t)i : items[i];
                live = gravel_nrs_where(v, step GRAVEL_USER_ARGS);
                if (live) {
                    start = offsets[v];
                    degree = offsets[v + 1] - start;
                }
            }
            offset_t end = degree;  // the warp's arcs up to this lane's item's, inclusive
            for (int d = 1; d < 32; d <<= 1) {
                const offset_t t = __shfl_up_sync(FULL, end, d);
                if (lane >= d) end += t;
            }
            const offset_t first = end - degree, total = __shfl_sync(FULL, end, 31);
            warp_acc[lane] = identity;
            __syncwarp();
            for (offset_t chunk = 0; chunk < total; chunk += 32) {
                const offset_t p = chunk + lane;
                int owner = 0;  // the last lane whose arcs start at or before p: p's item
                for (int half = 16; half > 0; half >>= 1)
                    if (__shfl_sync(FULL, first, owner + half) <= p) owner += half;
                const vid_t item = __shfl_sync(FULL, v, owner);
                const offset_t edge = __shfl_sync(FULL, start, owner) + (p - __shfl_sync(FULL, first, owner));
                const bool arc = p < total;
                T x = identity;
                if (arc) {
                    const vid_t u = indices[edge];
                    const float weight = weighted ? weights[edge] : 1.0f;
                    x = gravel_nrs_value<T>(item, u, edge, weight, step GRAVEL_USER_ARGS);
                }
                const int key = arc ? owner : 32;  // past the arcs: a run of its own
                for (int d = 1; d < 32; d <<= 1) {  // every lane shuffles, whichever folds
                    const T t = __shfl_down_sync(FULL, x, d);
                    const int k = __shfl_down_sync(FULL, key, d);
                    if (lane + d < 32 && k == key) x = gravel_nr_reduce<T>(x, t);
                }
                const int previous = __shfl_up_sync(FULL, key, 1);
                if (arc && (lane == 0 || previous != key)) warp_acc[owner] = gravel_nr_reduce<T>(warp_acc[owner], x);
                __syncwarp();
            }
            const bool applied = live && gravel_nrs_apply<T>(v, warp_acc[lane], step GRAVEL_USER_ARGS);
            const unsigned made = __ballot_sync(FULL, applied);
            if (lane == 0 && made) atomicAdd(&changed, (unsigned)__popc(made));
            __syncwarp();
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
