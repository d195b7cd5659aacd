// Advance, a warp per list with aligned reads (EMOGI's "merged + aligned"): a warp walks one frontier
// vertex's list in 128-byte lines of ids, the first rounded down to a line boundary and the lanes
// outside the list masked, so that each request over the bus fetches one whole line. Built for
// lists in pinned host memory; a tiered graph's hot lists are read from the device tier instead.
// `lines`, when not null, counts the lines of ids read from `indices` (the host's, when tiered).
#include "advance/advance.cuh"

template <int OUT, typename OutT>
__global__ void gravel_advance_warp_aligned(GRAVEL_ADVANCE_PARAMS,
                                            const offset_t *__restrict__ tier_offsets,
                                            const vid_t *__restrict__ tier_indices,
                                            const float *__restrict__ tier_weights, int tiered,
                                            unsigned long long *__restrict__ lines
                                                GRAVEL_USER_PARAMS) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; i < n_frontier;
         i += warps) {
        const vid_t src = frontier[i];
        const offset_t begin = offsets[src], end = offsets[src + 1];
        const gravel_list_source list = gravel_tier_list(src, begin, indices, weights, tier_offsets,
                                                         tier_indices, tier_weights, tiered);
        const offset_t base = list.base;
        const offset_t first = base & ~(offset_t)(GRAVEL_LINE_IDS - 1), last = base + (end - begin);
        if (lines != nullptr && lane == 0 && list.ids == indices && last > base)
            atomicAdd(lines, (unsigned long long)((last - first + GRAVEL_LINE_IDS - 1) / GRAVEL_LINE_IDS));
        for (offset_t p = first + lane; p < last; p += 32) {
            if (p < base) continue;  // masked: before the list, in its first line
            const offset_t edge = begin + (p - base);
            const vid_t dst = list.ids[p];
            const float weight = weighted ? list.weights[p] : 1.0f;
            bool keep = gravel_advance_op(src, dst, edge, weight, 0 GRAVEL_USER_ARGS);
            if (OUT != 0 && keep && GRAVEL_EMIT_GUARD(dst))
                gravel_emit<OutT>(out, out_len, out_cap, OUT == 1 ? (OutT)dst : (OutT)edge);
        }
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_warp_aligned<1, int>, (void*)gravel_advance_warp_aligned<2, long long>};
#endif
