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
