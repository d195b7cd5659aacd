// Neighbor reduce, blocked pull, second pass (GraphCage's merge): fold each vertex's partial results,
// one per block it has in-edges in, and apply(v, v, acc) (default: out[v] = acc). One CTA per tile of
// TILE vertices at a time: a tile's rows form one run in every block (rows ascend by vertex inside a
// block), read coalesced and folded into accumulators in shared memory; then the tile is written once.
// A vertex has at most one row per block, so the threads of one run never collide; a barrier between
// blocks keeps two runs from touching one accumulator at once.
#include "neighbor_reduce/neighbor_reduce.cuh"

template <typename T, int TILE>
__global__ void gravel_neighbor_reduce_merge(const long long *__restrict__ tile_rows, int blocks, long long tiles,
                                             const vid_t *__restrict__ row_vertex, const T *__restrict__ partial,
                                             long long n, T identity, T *__restrict__ out GRAVEL_USER_PARAMS) {
    __shared__ T acc[TILE];
    double sums[GRAVEL_NR_SLOTS] = {};
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long first = t * TILE;
        for (int k = threadIdx.x; k < TILE; k += blockDim.x) acc[k] = identity;
        __syncthreads();
        for (int b = 0; b < blocks; ++b) {
            const long long *run = tile_rows + b * (tiles + 1) + t;
            for (long long r = run[0] + threadIdx.x, end = run[1]; r < end; r += blockDim.x) {
                const int k = (int)(__ldcs(row_vertex + r) - first);
                acc[k] = gravel_nr_reduce<T>(acc[k], __ldcs(partial + r));
            }
            __syncthreads();
        }
        for (int k = threadIdx.x; k < TILE && first + k < n; k += blockDim.x)
            gravel_nr_apply<T>((vid_t)(first + k), first + k, acc[k], out, sums GRAVEL_USER_ARGS);
        __syncthreads();  // the next tile resets acc
    }
    gravel_nr_sums_put(sums GRAVEL_USER_ARGS);
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_merge<float, 2048>,
                            (void*)gravel_neighbor_reduce_merge<double, 2048>};
#endif
