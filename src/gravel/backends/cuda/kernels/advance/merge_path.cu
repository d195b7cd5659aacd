// Advance, load-balanced over output edges (Gunrock's LB; Davidson et al.'s merge-based partition):
// `scan` holds the exclusive prefix sum of the frontier's degrees, so edge k of the frontier's total
// belongs to the last item whose scan value is <= k. Each block finds its slice of items once, then
// each thread binary-searches only that slice. Every thread gets exactly one edge: immune to hubs.
// With a `visited` bitmask this is LB_CULL, advance fused with filter: a destination is emitted only by
// the thread that first sets its bit, so the output frontier has no duplicates and no filter pass.
#define GRAVEL_EMIT_GUARD(dst) (!cull || gravel_first_visit(visited, dst))
#include "advance/advance.cuh"

template <int OUT, typename OutT>
__global__ void gravel_advance_merge_path(GRAVEL_ADVANCE_PARAMS, const long long *__restrict__ scan,
                                          long long total, unsigned int *__restrict__ visited,
                                          int cull GRAVEL_USER_PARAMS) {
    __shared__ long long s_lo, s_hi;
    for (long long base = blockIdx.x * (long long)blockDim.x; base < total;
         base += (long long)gridDim.x * blockDim.x) {
        if (threadIdx.x == 0) {
            long long last = min(base + (long long)blockDim.x, total) - 1;
            s_lo = gravel_last_le(scan, n_frontier, base);
            s_hi = gravel_last_le(scan, n_frontier, last);
        }
        __syncthreads();
        long long k = base + threadIdx.x;
        if (k < total) {
            long long item = s_lo + gravel_last_le(scan + s_lo, s_hi - s_lo + 1, k);
            vid_t s = frontier[item];
            GRAVEL_VISIT(s, offsets[s] + (k - scan[item]));
        }
        __syncthreads();
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_merge_path<1, int>, (void*)gravel_advance_merge_path<2, long long>};
#endif
