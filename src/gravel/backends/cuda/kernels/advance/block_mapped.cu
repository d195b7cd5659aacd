// Advance, load-balanced over input items (Gunrock's LB over the input frontier, for small frontiers):
// each block takes BLOCK frontier vertices, scans their degrees in shared memory, then its threads
// sweep the block's edges together, each finding its vertex by binary search in the shared scan.
#include "advance/advance.cuh"
#include <cub/block/block_scan.cuh>

template <int OUT, typename OutT, int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_advance_block_mapped(GRAVEL_ADVANCE_PARAMS GRAVEL_USER_PARAMS) {
    typedef cub::BlockScan<long long, BLOCK> Scan;
    __shared__ typename Scan::TempStorage temp;
    __shared__ long long s_scan[BLOCK + 1];
    __shared__ vid_t s_src[BLOCK];
    __shared__ offset_t s_beg[BLOCK];
    for (long long base = blockIdx.x * (long long)BLOCK; base < n_frontier; base += (long long)gridDim.x * BLOCK) {
        long long i = base + threadIdx.x;
        long long deg = 0;
        vid_t mine = 0;
        offset_t beg = 0;
        if (i < n_frontier) { mine = frontier[i]; beg = offsets[mine]; deg = offsets[mine + 1] - beg; }
        long long excl, total;
        Scan(temp).ExclusiveSum(deg, excl, total);
        s_scan[threadIdx.x] = excl;
        s_src[threadIdx.x] = mine;
        s_beg[threadIdx.x] = beg;
        __syncthreads();
        for (long long k = threadIdx.x; k < total; k += BLOCK) {
            long long item = gravel_last_le(s_scan, BLOCK, k);
            GRAVEL_VISIT(s_src[item], s_beg[item] + (k - s_scan[item]));
        }
        __syncthreads();
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_block_mapped<1, int, 256>, (void*)gravel_advance_block_mapped<2, long long, 256>};
#endif
