// Shared by the pull kernels (pull.cu, pull_steps.cu): the candidates' `where` predicate, a bitmap
// output, and one candidate's scan of its in-edges for a parent in the frontier bitmap.
#pragma once
#include "advance/advance.cuh"

#ifndef GRAVEL_PULL_WHERE
#define GRAVEL_PULL_WHERE(v) true
#endif

__device__ __forceinline__ bool gravel_pull_where(vid_t v GRAVEL_USER_FN_PARAMS) { return GRAVEL_PULL_WHERE(v); }

// Set v's bit in a bitmap frontier and count it, one atomic per group of active lanes for the count.
__device__ __forceinline__ void gravel_emit_bit(unsigned int *bits, unsigned long long *len, vid_t v) {
    atomicOr(&bits[v >> 5], 1u << (v & 31));
    cg::coalesced_group g = cg::coalesced_threads();
    if (g.thread_rank() == 0) atomicAdd(len, (unsigned long long)g.size());
}

// Candidate dst, if `where` holds, scans its in-edges (src -> dst) for a src in `front` and stops at the
// first for which the op holds: returns that edge, or -1 (dst does not join the output). `front` is not
// __restrict__: pull_steps.cu writes its bitmaps in the same launch, so they must not be read through
// the read-only (non-coherent) cache.
__device__ __forceinline__ offset_t gravel_pull_one(const offset_t *__restrict__ offsets,
                                                    const vid_t *__restrict__ indices,
                                                    const float *__restrict__ weights, int weighted,
                                                    const unsigned int *front, vid_t dst,
                                                    int step GRAVEL_USER_PARAMS) {
    if (!gravel_pull_where(dst GRAVEL_USER_ARGS)) return -1;
    for (offset_t edge = offsets[dst], end = offsets[dst + 1]; edge < end; ++edge) {
        const vid_t src = indices[edge];
        if (!(front[src >> 5] & (1u << (src & 31)))) continue;
        const float weight = weighted ? weights[edge] : 1.0f;
        if (gravel_advance_op(src, dst, edge, weight, step GRAVEL_USER_ARGS)) return edge;
    }
    return -1;
}
