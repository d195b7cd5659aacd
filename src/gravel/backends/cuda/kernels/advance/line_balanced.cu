// Advance in whole 128-byte lines, balanced by lines: the frontier's lists are cut into the lines
// that hold them (the first rounded down to a line boundary, the lanes outside the list masked, as in
// warp_aligned.cu), `line_scan` numbers those lines, and each warp takes LINES consecutive ones. A
// hub's list is so spread over many warps, and a warp's lines may belong to several short lists.
// Every lane issues its LINES loads before it applies the op to any, so that each warp keeps LINES
// requests in flight over the bus. `line_scan[i]` is the first line of frontier item i and
// line_scan[n_frontier] the total (frontier/degree_scan.cu, gravel_frontier_lines); `lines`, when not
// null, counts the lines read from `indices` (the host's, when tiered).
#include "advance/advance.cuh"

template <int OUT, typename OutT, int LINES>
__global__ void gravel_advance_line_balanced(GRAVEL_ADVANCE_PARAMS,
                                             const offset_t *__restrict__ tier_offsets,
                                             const vid_t *__restrict__ tier_indices,
                                             const float *__restrict__ tier_weights, int tiered,
                                             const long long *__restrict__ line_scan,
                                             unsigned long long *__restrict__ lines
                                                 GRAVEL_USER_PARAMS) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long total = line_scan[n_frontier];
    unsigned long long host_lines = 0;
    for (long long line0 = ((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5) * LINES; line0 < total;
         line0 += warps * LINES) {
        long long i = gravel_last_le(line_scan, n_frontier, line0);  // the item holding line0
        vid_t src[LINES], dst[LINES];
        offset_t edge[LINES];
        float weight[LINES];
        bool valid[LINES];
#pragma unroll
        for (int j = 0; j < LINES; ++j) {
            const long long line = line0 + j;
            valid[j] = false;
            if (line >= total) continue;
            while (line_scan[i + 1] <= line) ++i;  // items without lines are passed over
            const vid_t s = frontier[i];
            const offset_t begin = offsets[s], length = offsets[s + 1] - begin;
            const gravel_list_source list = gravel_tier_list(s, begin, indices, weights, tier_offsets,
                                                             tier_indices, tier_weights, tiered);
            host_lines += list.ids == indices;
            const offset_t p = (list.base & ~(offset_t)(GRAVEL_LINE_IDS - 1)) +
                               (line - line_scan[i]) * GRAVEL_LINE_IDS + lane;
            if (p < list.base || p >= list.base + length) continue;  // masked: outside the list
            valid[j] = true;
            src[j] = s;
            edge[j] = begin + (p - list.base);
            dst[j] = list.ids[p];
            weight[j] = weighted ? list.weights[p] : 1.0f;
        }
#pragma unroll
        for (int j = 0; j < LINES; ++j) {
            if (!valid[j]) continue;
            bool keep = gravel_advance_op(src[j], dst[j], edge[j], weight[j], 0 GRAVEL_USER_ARGS);
            if (OUT != 0 && keep && GRAVEL_EMIT_GUARD(dst[j]))
                gravel_emit<OutT>(out, out_len, out_cap, OUT == 1 ? (OutT)dst[j] : (OutT)edge[j]);
        }
    }
    if (lines != nullptr && lane == 0 && host_lines) atomicAdd(lines, host_lines);
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_line_balanced<1, int, 8>,
                            (void*)gravel_advance_line_balanced<2, long long, 8>};
#endif
