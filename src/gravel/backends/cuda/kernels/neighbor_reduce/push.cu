// Neighbor reduce, push: every out-edge (u -> v) of a frontier item u folds value(v, u, edge, weight)
// into out[v] with an atomic (OP 0: add, 1: min, 2: max). Thread-mapped over items; the work of the
// sparse frontiers that pull would waste a sweep on.
#include "neighbor_reduce/neighbor_reduce.cuh"

template <typename T, int OP>
__global__ void gravel_neighbor_reduce_push(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                            const float *__restrict__ weights, int weighted,
                                            const vid_t *__restrict__ frontier, int all, long long n,
                                            T *__restrict__ out GRAVEL_USER_PARAMS) {
    GRAVEL_GRID_STRIDE(i, n) {
        const vid_t u = all ? (vid_t)i : frontier[i];
        for (offset_t edge = offsets[u], end = offsets[u + 1]; edge < end; ++edge) {
            const vid_t v = indices[edge];
            const float weight = weighted ? weights[edge] : 1.0f;
            (void)weight;
            gravel_atomic_fold<T, OP>(&out[v], gravel_nr_value<T>(v, u, edge, weight GRAVEL_USER_ARGS));
        }
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_push<float, 0>, (void*)gravel_neighbor_reduce_push<int, 1>,
                            (void*)gravel_neighbor_reduce_push<float, 2>};
#endif
