// What every advance strategy does with one edge: evaluate the user's op, then emit the destination
// vertex (OUT == 1) or the edge id (OUT == 2) into the output frontier if the op returned true.
#pragma once
#include "common.cuh"

#ifndef GRAVEL_EMIT_GUARD
#define GRAVEL_EMIT_GUARD(dst) true
#endif

// Exactly one caller per vertex sees true: the one whose atomicOr sets its bit.
__device__ __forceinline__ bool gravel_first_visit(unsigned int *visited, vid_t v) {
    unsigned int bit = 1u << (v & 31);
    if (visited[v >> 5] & bit) return false;  // cheap read first: most repeats stop here
    return !(atomicOr(&visited[v >> 5], bit) & bit);
}

// `step` counts the steps of a fused multi-step advance (advance/steps.cu); 0 everywhere else.
__device__ __forceinline__ bool gravel_advance_op(vid_t src, vid_t dst, offset_t edge, float weight,
                                                  int step GRAVEL_USER_FN_PARAMS) {
    return GRAVEL_ADVANCE_OP(src, dst, edge, weight, step);
}

#define GRAVEL_ADVANCE_PARAMS                                                                  \
    const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,                  \
        const float *__restrict__ weights, int weighted, const vid_t *__restrict__ frontier,  \
        long long n_frontier, OutT *__restrict__ out, unsigned long long *__restrict__ out_len, \
        unsigned long long out_cap

#define GRAVEL_VISIT_STEP(src_, e_, step_)                                            \
    do {                                                                              \
        const vid_t src = (src_);                                                     \
        const offset_t edge = (e_);                                                   \
        const vid_t dst = indices[edge];                                              \
        const float weight = weighted ? weights[edge] : 1.0f;                         \
        (void)src; (void)weight;                                                      \
        bool keep_ = gravel_advance_op(src, dst, edge, weight, (step_) GRAVEL_USER_ARGS); \
        if (OUT != 0 && keep_ && GRAVEL_EMIT_GUARD(dst))                              \
            gravel_emit<OutT>(out, out_len, out_cap,                                  \
                                                 OUT == 1 ? (OutT)dst : (OutT)edge);  \
    } while (0)
#define GRAVEL_VISIT(src_, e_) GRAVEL_VISIT_STEP(src_, e_, 0)

#define GRAVEL_LINE_IDS 32  // 4-byte ids in a 128-byte line: the unit the bus kernels read

// Where the bus kernels (warp_aligned.cu, line_balanced.cu) read vertex s's list from: a tiered
// graph's device tier where it holds the list, else `indices` (pinned host memory). `base` is where
// the list starts in `ids`; edge ids stay those of the whole graph (offsets[s] + position).
struct gravel_list_source {
    const vid_t *ids;
    const float *weights;
    offset_t base;
};

__device__ __forceinline__ gravel_list_source gravel_tier_list(
    vid_t s, offset_t begin, const vid_t *indices, const float *weights, const offset_t *tier_offsets,
    const vid_t *tier_indices, const float *tier_weights, int tiered) {
    if (tiered && tier_offsets[s + 1] > tier_offsets[s]) return {tier_indices, tier_weights, tier_offsets[s]};
    return {indices, weights, begin};
}
