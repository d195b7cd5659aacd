// Advance, pull (the bottom-up step of direction-optimizing traversal): each candidate vertex v (those
// listed, or every vertex) for which the `where` predicate holds scans its in-edges (u -> v) for a u in
// the frontier bitmap and stops at the first u for which the op holds; v then joins the output
// frontier: a queue, or (OUT == 3) a bitmap with a count, which the next pull step reads directly.
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

template <int OUT, typename OutT>
__global__ void gravel_advance_pull(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                    const float *__restrict__ weights, int weighted,
                                    const vid_t *__restrict__ candidates, int all, long long n_candidates,
                                    const unsigned int *__restrict__ front, OutT *__restrict__ out,
                                    unsigned long long *__restrict__ out_len, unsigned long long out_cap GRAVEL_USER_PARAMS) {
    GRAVEL_GRID_STRIDE(i, n_candidates) {
        const vid_t dst = all ? (vid_t)i : candidates[i];
        if (!gravel_pull_where(dst GRAVEL_USER_ARGS)) continue;
        for (offset_t edge = offsets[dst], end = offsets[dst + 1]; edge < end; ++edge) {
            const vid_t src = indices[edge];
            if (!(front[src >> 5] & (1u << (src & 31)))) continue;
            const float weight = weighted ? weights[edge] : 1.0f;
            (void)weight;
            if (gravel_advance_op(src, dst, edge, weight, 0 GRAVEL_USER_ARGS)) {
                if (OUT == 3) gravel_emit_bit((unsigned int *)out, out_len, dst);
                else if (OUT != 0) gravel_emit<OutT>(out, out_len, out_cap, OUT == 1 ? (OutT)dst : (OutT)edge);
                break;
            }
        }
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_advance_pull<1, int>, (void*)gravel_advance_pull<2, long long>,
                            (void*)gravel_advance_pull<3, unsigned int>};
#endif
