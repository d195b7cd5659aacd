// The out-arcs of a frontier whose length is still on the device (an advance's output counter): each
// warp sums the out-degrees of its share of ids[0..min(*length, cap)) and adds them to *arcs, so that
// the caller reads the length and the arcs in one read-back (GAP's scout count), where a degree sum of
// its own would cost gathers, a reduction and a read-back more after reading the length.
#include "common.cuh"

__global__ void gravel_frontier_arc_sum(const offset_t *__restrict__ offsets, const vid_t *__restrict__ ids,
                                        const unsigned long long *__restrict__ length, unsigned long long cap,
                                        unsigned long long *__restrict__ arcs) {
    const long long n = (long long)min(*length, cap);  // past cap the advance failed; its caller raises
    unsigned long long sum = 0;
    GRAVEL_GRID_STRIDE(i, n) { sum += (unsigned long long)(offsets[ids[i] + 1] - offsets[ids[i]]); }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if ((threadIdx.x & 31) == 0 && sum) atomicAdd(arcs, sum);
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_frontier_arc_sum};
#endif
