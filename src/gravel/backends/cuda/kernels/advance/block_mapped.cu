// Advance, load-balanced over input items (Gunrock's LB over the input frontier, for small frontiers):
// each block takes BLOCK frontier vertices, scans their degrees in shared memory, then its threads
// sweep the block's edges together, each finding its vertex by binary search in the shared scan.
#include "advance/block_chunk.cuh"

template <int OUT, typename OutT, int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_advance_block_mapped(GRAVEL_ADVANCE_PARAMS GRAVEL_USER_PARAMS) {
    __shared__ GravelChunkStorage<BLOCK> s;
    for (long long base = blockIdx.x * (long long)BLOCK; base < n_frontier; base += (long long)gridDim.x * BLOCK)
        gravel_block_chunk<OUT, OutT, BLOCK>(s, offsets, indices, weights, weighted, frontier, n_frontier, base, 1,
                                             nullptr, out, out_len, out_cap, 0 GRAVEL_USER_ARGS);
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_block_mapped<1, int, 256>, (void*)gravel_advance_block_mapped<2, long long, 256>};
#endif
