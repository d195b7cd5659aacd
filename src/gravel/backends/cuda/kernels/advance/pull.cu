// Advance, pull (the bottom-up step of direction-optimizing traversal): each candidate vertex v (the
// unvisited ones) scans its in-edges (u -> v) for a u in the frontier bitmap and stops at the first u
// for which the op holds; v then joins the output frontier.
#include "advance/advance.cuh"

template <int OUT, typename OutT>
__global__ void gravel_advance_pull(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                    const float *__restrict__ weights, int weighted,
                                    const vid_t *__restrict__ candidates, long long n_candidates,
                                    const unsigned int *__restrict__ front, OutT *__restrict__ out,
                                    unsigned long long *__restrict__ out_len, unsigned long long out_cap GRAVEL_USER_PARAMS) {
    GRAVEL_GRID_STRIDE(i, n_candidates) {
        const vid_t dst = candidates[i];
        for (offset_t edge = offsets[dst], end = offsets[dst + 1]; edge < end; ++edge) {
            const vid_t src = indices[edge];
            if (!(front[src >> 5] & (1u << (src & 31)))) continue;
            const float weight = weighted ? weights[edge] : 1.0f;
            (void)weight;
            if (gravel_advance_op(src, dst, edge, weight, 0 GRAVEL_USER_ARGS)) {
                if (OUT != 0) gravel_emit<OutT>(out, out_len, out_cap, OUT == 1 ? (OutT)dst : (OutT)edge);
                break;
            }
        }
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_advance_pull<1, int>, (void*)gravel_advance_pull<2, long long>};
#endif
