// Filter, exact: keep the frontier items whose predicate holds, in their original order.
// Pass 1 evaluates the predicate once per item and counts survivors per block; the host scans the
// block counts; pass 2 scans the flags inside each block and writes the survivors at the block's offset.
#include "filter/filter.cuh"
#include <cub/block/block_scan.cuh>
#include <cub/block/block_reduce.cuh>


template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_filter_flags(const vid_t *__restrict__ frontier, long long n,
                                                             unsigned char *__restrict__ flags,
                                                             long long *__restrict__ block_counts GRAVEL_USER_PARAMS) {
    typedef cub::BlockReduce<int, BLOCK> Reduce;
    __shared__ typename Reduce::TempStorage temp;
    long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    int gravel_keep = 0;
    if (i < n) {
        const vid_t v = frontier[i];
        (void)v;
        gravel_keep = gravel_filter_op(v, i GRAVEL_USER_ARGS) ? 1 : 0;
        flags[i] = (unsigned char)gravel_keep;
    }
    int total = Reduce(temp).Sum(gravel_keep);
    if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_filter_write(const vid_t *__restrict__ frontier, long long n,
                                                             const unsigned char *__restrict__ flags,
                                                             const long long *__restrict__ block_offsets,
                                                             vid_t *__restrict__ out) {
    typedef cub::BlockScan<int, BLOCK> Scan;
    __shared__ typename Scan::TempStorage temp;
    long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    int keep = i < n ? flags[i] : 0;
    int pos;
    Scan(temp).ExclusiveSum(keep, pos);
    if (keep) out[block_offsets[blockIdx.x] + pos] = frontier[i];
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_filter_flags<256>, (void*)gravel_filter_write<256>};
#endif
