// Neighbor reduce, pull: reduce over the in-edges (u -> v) of item v of value(v, u, edge, weight),
// starting from the identity, then apply(v, i, acc) (default: out[i] = acc). VEC lanes per item (a
// power of two up to a warp, chosen from the average degree, as cuSPARSE's CSR-vector does): lanes
// stride over the list, then a shuffle tree within the group combines them; no atomics, coalesced reads.
// The lists are read once per sweep, so they load with evict-first (__ldcs): the L2 keeps the gathered
// values instead. `by_item`: item i's list is offsets[i]..offsets[i + 1] instead of vertex v's (the
// rows pass of a blocked sweep, whose rows are the items and frontier[i] their vertex). `sweep`: the
// items are one bin of a sweep over every vertex (operators.list_bins), so the result goes to vertex v
// (apply(v, v, acc)), as in a sweep without bins. The apply's sums, if any, go in at the end.
// GRAVEL_NR_FIRST (neighbor_reduce's "any"): each lane stops at its first value unlike the identity.
#include "neighbor_reduce/neighbor_reduce.cuh"

template <typename T, int VEC>
__global__ void gravel_neighbor_reduce_pull(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                                            const float *__restrict__ weights, int weighted,
                                            const vid_t *__restrict__ frontier, int all, int by_item, int sweep,
                                            long long n, int passes, T identity,
                                            T *__restrict__ out GRAVEL_USER_PARAMS) {
    constexpr int PER_WARP = 32 / VEC;
    const int lane = threadIdx.x & (VEC - 1);
    const int group = (threadIdx.x & 31) / VEC;
    // The items go in stretches of per_pass (one per CTA pass), `passes` consecutive stretches per CTA:
    // few CTAs, the items in flight close together (the GPU dispatches CTAs in order). A grid that
    // does not cover every stretch strides on over them.
    const long long per_pass = (long long)(blockDim.x >> 5) * PER_WARP;
    const long long per_cta = per_pass * passes;
    double sums[GRAVEL_NR_SLOTS] = {};
    for (long long base = blockIdx.x * per_cta; base < n; base += gridDim.x * per_cta) {
        for (int p = 0; p < passes; ++p) {
            // the same for the whole warp, so every lane reaches the full-warp shuffles
            const long long w = base + p * per_pass + (threadIdx.x >> 5) * PER_WARP;
            if (w >= n) break;
            const long long i = w + group;
            T acc = identity;
            vid_t v = 0;
            if (i < n) {
                v = all ? (vid_t)i : __ldcs(frontier + i);
                const long long list = by_item ? i : v;
                for (offset_t edge = __ldcs(offsets + list) + lane, end = __ldcs(offsets + list + 1); edge < end;
                     edge += VEC) {
                    const vid_t u = __ldcs(indices + edge);
                    const float weight = weighted ? __ldcs(weights + edge) : 1.0f;
                    (void)u; (void)weight;
                    acc = gravel_nr_reduce<T>(acc, gravel_nr_value<T>(v, u, edge, weight GRAVEL_USER_ARGS));
#ifdef GRAVEL_NR_FIRST
                    if (acc != identity) break;  // reduce "any": this lane has its value
#endif
                }
            }
            for (int d = VEC / 2; d > 0; d >>= 1) {
                T other = __shfl_down_sync(0xffffffffu, acc, d, VEC);
                acc = gravel_nr_reduce<T>(acc, other);
            }
            if (lane == 0 && i < n) gravel_nr_apply<T>(v, sweep ? (long long)v : i, acc, out, sums GRAVEL_USER_ARGS);
        }
    }
    gravel_nr_sums_put(sums GRAVEL_USER_ARGS);
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_neighbor_reduce_pull<float, 32>, (void*)gravel_neighbor_reduce_pull<double, 4>,
                            (void*)gravel_neighbor_reduce_pull<int, 1>, (void*)gravel_neighbor_reduce_pull<long long, 8>};
#endif
