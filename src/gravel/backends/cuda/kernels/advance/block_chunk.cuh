// One block's share of a load-balanced-over-inputs advance: BLOCK frontier items (base, base + stride,
// base + 2 stride, ...) have their degrees scanned in shared memory, then the block's threads sweep
// those items' edges together, each finding its item by binary search in the scan. The block-mapped
// advance takes consecutive items (stride 1); the fused multi-step advance (advance/steps.cu) deals
// them out with a stride, so that hubs next to each other (a degree-sorted graph) go to different blocks,
// and it sets aside the lists of `longs->min` entries or more, whose edges every block then shares.
#pragma once
#include "advance/advance.cuh"
#include <cub/block/block_scan.cuh>

template <int BLOCK>
struct GravelChunkStorage {
    typename cub::BlockScan<long long, BLOCK>::TempStorage scan_temp;
    long long scan[BLOCK + 1];
    vid_t src[BLOCK];
    offset_t beg[BLOCK];
};

// The long lists a chunk pass sets aside: items[0..*count) (at most cap; past it a block walks its own).
struct GravelLongs {
    vid_t *items;
    unsigned long long *count;
    long long cap;
    long long min;
};

// Stage the chunk's items (their scan, source and first edge) in shared memory; returns the chunk's
// edge count. `frontier` is not __restrict__: the multi-step advance reads items that other blocks wrote
// earlier in the same launch, which the read-only data path could serve stale.
template <int BLOCK>
__device__ __forceinline__ long long gravel_chunk_stage(GravelChunkStorage<BLOCK> &s,
                                                        const offset_t *__restrict__ offsets, const vid_t *frontier,
                                                        long long n_frontier, long long base, long long stride,
                                                        const GravelLongs *longs) {
    long long i = base + threadIdx.x * stride;
    long long deg = 0;
    vid_t mine = 0;
    offset_t beg = 0;
    if (i < n_frontier) { mine = frontier[i]; beg = offsets[mine]; deg = offsets[mine + 1] - beg; }
    if (longs && deg >= longs->min) {
        unsigned long long k = atomicAdd(longs->count, 1ULL);
        if (k < (unsigned long long)longs->cap) { longs->items[k] = mine; deg = 0; }
    }
    long long excl, total;
    cub::BlockScan<long long, BLOCK>(s.scan_temp).ExclusiveSum(deg, excl, total);
    s.scan[threadIdx.x] = excl;
    s.src[threadIdx.x] = mine;
    s.beg[threadIdx.x] = beg;
    __syncthreads();
    return total;
}

// Visit the staged edges first, first + step, ... below total.
template <int OUT, typename OutT, int BLOCK>
__device__ __forceinline__ void gravel_chunk_walk(GravelChunkStorage<BLOCK> &s, const vid_t *__restrict__ indices,
                                                  const float *__restrict__ weights, int weighted, long long total,
                                                  long long first, long long step_k, OutT *out,
                                                  unsigned long long *out_len, unsigned long long out_cap,
                                                  int step GRAVEL_USER_PARAMS) {
    for (long long k = first; k < total; k += step_k) {
        long long item = gravel_last_le(s.scan, BLOCK, k);
        GRAVEL_VISIT_STEP(s.src[item], s.beg[item] + (k - s.scan[item]), step);
    }
    __syncthreads();
}

template <int OUT, typename OutT, int BLOCK>
__device__ __forceinline__ void gravel_block_chunk(GravelChunkStorage<BLOCK> &s, const offset_t *__restrict__ offsets,
                                                   const vid_t *__restrict__ indices, const float *__restrict__ weights,
                                                   int weighted, const vid_t *frontier, long long n_frontier,
                                                   long long base, long long stride, const GravelLongs *longs,
                                                   OutT *out, unsigned long long *out_len,
                                                   unsigned long long out_cap, int step GRAVEL_USER_PARAMS) {
    const long long total = gravel_chunk_stage<BLOCK>(s, offsets, frontier, n_frontier, base, stride, longs);
    gravel_chunk_walk<OUT, OutT, BLOCK>(s, indices, weights, weighted, total, threadIdx.x, BLOCK, out, out_len,
                                        out_cap, step GRAVEL_USER_ARGS);
}
