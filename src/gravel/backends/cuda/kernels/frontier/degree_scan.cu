// Exclusive scan of the out-degrees of a frontier's ids[0..n): scan[0] = 0, scan[i + 1] = the sum of
// the first i + 1 degrees (what merge-path load balancing partitions). A small frontier is gathered
// and scanned by one block in one launch, where CuPy's gather, subtract and (CUB) cumsum take six
// launches, most of a BFS step's fixed cost (docs/tuning.md, SCAN_IN_ONE_BLOCK). A large
// frontier writes its degrees with gravel_frontier_degrees for CuPy's cumsum to scan.
#include <cub/block/block_scan.cuh>
#include "common.cuh"

__device__ __forceinline__ long long gravel_degree(const offset_t *offsets, const vid_t *ids, long long n, long long i) {
    return i < n ? (long long)(offsets[ids[i] + 1] - offsets[ids[i]]) : 0;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
gravel_degree_scan_block(const offset_t *__restrict__ offsets, const vid_t *__restrict__ ids, long long n,
                         long long *__restrict__ scan) {
    typedef cub::BlockScan<long long, BLOCK> Scan;
    __shared__ typename Scan::TempStorage temp;
    long long carry = 0;  // the sum of every earlier chunk
    for (long long base = 0; base < n; base += BLOCK) {
        const long long i = base + threadIdx.x;
        long long x = gravel_degree(offsets, ids, n, i), chunk;
        Scan(temp).InclusiveSum(x, x, chunk);
        if (i < n) scan[i + 1] = carry + x;
        carry += chunk;
        __syncthreads();  // the next chunk reuses temp
    }
    if (threadIdx.x == 0) scan[0] = 0;
}

__global__ void gravel_frontier_degrees(const offset_t *__restrict__ offsets, const vid_t *__restrict__ ids,
                                        long long n, long long *__restrict__ out) {
    GRAVEL_GRID_STRIDE(i, n) { out[i] = gravel_degree(offsets, ids, n, i); }
}

// The 128-byte lines that hold each item's list (advance/line_balanced.cu): from the line of its first
// id to that of its last, in the tier's arrays for a vertex whose list is there.
__global__ void gravel_frontier_lines(const offset_t *__restrict__ offsets, const offset_t *__restrict__ tier_offsets,
                                      int tiered, const vid_t *__restrict__ ids, long long n,
                                      long long *__restrict__ out) {
    GRAVEL_GRID_STRIDE(i, n) {
        const vid_t v = ids[i];
        offset_t base = offsets[v];
        const offset_t length = offsets[v + 1] - base;
        if (tiered && tier_offsets[v + 1] > tier_offsets[v]) base = tier_offsets[v];
        out[i] = length ? (base + length - 1) / 32 - base / 32 + 1 : 0;
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_degree_scan_block<1024>, (void*)gravel_frontier_degrees,
                            (void*)gravel_frontier_lines};
#endif
