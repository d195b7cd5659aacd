// Advance, pull (the bottom-up step of direction-optimizing traversal): each candidate vertex v (those
// listed, or every vertex) for which the `where` predicate holds scans its in-edges (u -> v) for a u in
// the frontier bitmap and stops at the first u for which the op holds; v then joins the output
// frontier: a queue, or (OUT == 3) a bitmap with a count, which the next pull step reads directly.
#include "advance/pull.cuh"

template <int OUT, typename OutT>
__global__ void gravel_advance_pull(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                    const float *__restrict__ weights, int weighted,
                                    const vid_t *__restrict__ candidates, int all, long long n_candidates,
                                    const unsigned int *__restrict__ front, OutT *__restrict__ out,
                                    unsigned long long *__restrict__ out_len, unsigned long long out_cap GRAVEL_USER_PARAMS) {
    GRAVEL_GRID_STRIDE(i, n_candidates) {
        const vid_t dst = all ? (vid_t)i : candidates[i];
        const offset_t edge = gravel_pull_one(offsets, indices, weights, weighted, front, dst, 0 GRAVEL_USER_ARGS);
        if (edge < 0) continue;
        if (OUT == 3) gravel_emit_bit((unsigned int *)out, out_len, dst);
        else if (OUT != 0) gravel_emit<OutT>(out, out_len, out_cap, OUT == 1 ? (OutT)dst : (OutT)edge);
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_advance_pull<1, int>, (void*)gravel_advance_pull<2, long long>,
                            (void*)gravel_advance_pull<3, unsigned int>};
#endif
