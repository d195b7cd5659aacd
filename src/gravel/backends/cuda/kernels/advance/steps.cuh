// The step of the multi-step advances (advance/steps.cu, advance/buckets.cu): a frontier's chunks dealt
// out over the grid's blocks, then the long lists they set aside shared by every block.
#pragma once
#include "advance/block_chunk.cuh"

template <int OUT, int BLOCK>
__device__ __forceinline__ void gravel_step_chunks(GravelChunkStorage<BLOCK> &s, const offset_t *__restrict__ offsets,
                                                   const vid_t *__restrict__ indices, const float *__restrict__ weights,
                                                   int weighted, const vid_t *items, long long n,
                                                   const GravelLongs *longs, vid_t *out, unsigned long long *out_len,
                                                   unsigned long long out_cap, int step GRAVEL_USER_PARAMS) {
    // chunk c holds items c, c + chunks, c + 2 chunks, ...: runs of hubs are spread over the blocks.
    // A frontier smaller than the grid's threads is dealt to every block (a chunk of fewer than BLOCK
    // items): each block then walks its edges in one pass, not one after another (docs/tuning.md)
    const long long chunks = max((n + BLOCK - 1) / BLOCK, min((long long)gridDim.x, n));
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x)
        gravel_block_chunk<OUT, vid_t, BLOCK>(s, offsets, indices, weights, weighted, items, n, c, chunks, longs, out,
                                              out_len, out_cap, step GRAVEL_USER_ARGS);
}

// The long lists set aside by a step's chunk pass, after a barrier: each block stages BLOCK of them at
// a time and the grid's threads deal out their edges. Returns whether there were any (the caller then
// needs another barrier before the step's output is complete). Every thread reads the same count.
template <int OUT, int BLOCK>
__device__ __forceinline__ bool gravel_step_longs(GravelChunkStorage<BLOCK> &s, const offset_t *__restrict__ offsets,
                                                  const vid_t *__restrict__ indices, const float *__restrict__ weights,
                                                  int weighted, const GravelLongs &longs, vid_t *out,
                                                  unsigned long long *out_len, unsigned long long out_cap,
                                                  int step GRAVEL_USER_PARAMS) {
    const long long n = min((long long)*(volatile unsigned long long *)longs.count, longs.cap);
    for (long long base = 0; base < n; base += BLOCK) {
        const long long total = gravel_chunk_stage<BLOCK>(s, offsets, longs.items, n, base, 1, nullptr);
        gravel_chunk_walk<OUT, vid_t, BLOCK>(s, indices, weights, weighted, total,
                                             blockIdx.x * (long long)BLOCK + threadIdx.x, (long long)gridDim.x * BLOCK,
                                             out, out_len, out_cap, step GRAVEL_USER_ARGS);
    }
    return n > 0;
}

// One step over queue[begin, end), its output appended at `end` (room for `room` ids), counted in
// `count` (zeroed before). Returns the step's output count, which every thread reads after the step's
// last grid-wide barrier.
template <int BLOCK>
__device__ __forceinline__ long long gravel_one_step(GravelChunkStorage<BLOCK> &s, cg::grid_group &grid,
                                                     const offset_t *__restrict__ offsets,
                                                     const vid_t *__restrict__ indices,
                                                     const float *__restrict__ weights, int weighted, vid_t *queue,
                                                     long long begin, long long end, unsigned long long room,
                                                     unsigned long long *count, const GravelLongs &longs,
                                                     int step GRAVEL_USER_PARAMS) {
    gravel_step_chunks<1, BLOCK>(s, offsets, indices, weights, weighted, queue + begin, end - begin, &longs,
                                 queue + end, count, room, step GRAVEL_USER_ARGS);
    grid.sync();
    if (gravel_step_longs<1, BLOCK>(s, offsets, indices, weights, weighted, longs, queue + end, count, room,
                                    step GRAVEL_USER_ARGS))
        grid.sync();
    return (long long)*(volatile unsigned long long *)count;
}
