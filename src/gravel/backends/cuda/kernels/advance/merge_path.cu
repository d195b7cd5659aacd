// Advance, load-balanced over output edges (Gunrock's LB; Davidson et al.'s merge-based partition):
// `scan` holds the exclusive prefix sum of the frontier's degrees, so edge k of the frontier's total
// belongs to the last item whose scan value is <= k. The edges are cut into tiles of TILE; a partition
// pass finds each tile's first item, then a block stages its tile's items (scan value, source, edge
// base) in shared memory and every thread maps its edges to items by binary search there. Each thread
// handles TILE / BLOCK edges, strided so that a warp reads consecutive neighbour ids: immune to hubs.
// With cull set this is LB_CULL, advance fused with filter: a destination is emitted only by the
// thread that first sets its bit in `visited`, so the output has no duplicates and needs no filter.
#define GRAVEL_EMIT_GUARD(dst) (!cull || gravel_first_visit(visited, dst))
#include "advance/advance.cuh"

// part[t] = the item holding edge t * tile, for t in [0, tiles].
__global__ void gravel_merge_path_partition(const long long *__restrict__ scan, long long n_frontier, long long total,
                                            long long tile, long long tiles, long long *__restrict__ part) {
    GRAVEL_GRID_STRIDE(t, tiles + 1) {
        part[t] = gravel_last_le(scan, n_frontier, min(t * tile, total - 1));
    }
}

template <int OUT, typename OutT, int BLOCK, int PER_THREAD>
__global__ void __launch_bounds__(BLOCK)
gravel_advance_merge_path(GRAVEL_ADVANCE_PARAMS, const long long *__restrict__ scan, long long total,
                          const long long *__restrict__ part, unsigned int *__restrict__ visited,
                          int cull GRAVEL_USER_PARAMS) {
    constexpr int TILE = BLOCK * PER_THREAD;
    __shared__ long long s_scan[TILE + 1];
    __shared__ offset_t s_base[TILE + 1];
    __shared__ vid_t s_src[TILE + 1];
    const long long tiles = (total + TILE - 1) / TILE;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long lo = part[t], hi = part[t + 1];
        const long long count = hi - lo + 1;
        const bool staged = count <= TILE + 1;  // runs of empty lists can make a tile span more items
        if (staged) {
            for (long long j = threadIdx.x; j < count; j += BLOCK) {
                vid_t s = frontier[lo + j];
                s_scan[j] = scan[lo + j];
                s_src[j] = s;
                s_base[j] = offsets[s] - scan[lo + j];
            }
        }
        __syncthreads();
        const long long first = t * TILE;
#pragma unroll
        for (int r = 0; r < PER_THREAD; ++r) {
            long long k = first + r * BLOCK + threadIdx.x;
            if (k < total) {
                if (staged) {
                    long long j = gravel_last_le(s_scan, count, k);
                    GRAVEL_VISIT(s_src[j], s_base[j] + k);
                } else {
                    long long item = lo + gravel_last_le(scan + lo, count, k);
                    vid_t s = frontier[item];
                    GRAVEL_VISIT(s, offsets[s] + (k - scan[item]));
                }
            }
        }
        __syncthreads();
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_merge_path_partition, (void*)gravel_advance_merge_path<1, int, 256, 4>,
                            (void*)gravel_advance_merge_path<2, long long, 256, 4>};
#endif
