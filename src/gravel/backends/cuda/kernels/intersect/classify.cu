// The strategy class of each pair (operators/intersect.py): 0 both lists up to `small` (merged), else by
// the shorter list: 1 up to `warp_from` (a thread searches), 2 up to `large` (a warp), 3 longer (a block).
// One pass: each thread counts its classes, each block sums them in shared memory, then adds to sizes.
#include "intersect/intersect.cuh"

__global__ void gravel_intersect_classify(const int *__restrict__ degree, const vid_t *__restrict__ us,
                                          const vid_t *__restrict__ vs, long long n, long long small,
                                          long long warp_from, long long large, unsigned char *__restrict__ classes,
                                          unsigned long long *__restrict__ sizes) {
    __shared__ unsigned long long block_sizes[4];
    if (threadIdx.x < 4) block_sizes[threadIdx.x] = 0;
    __syncthreads();
    unsigned long long mine[4] = {0, 0, 0, 0};
    GRAVEL_GRID_STRIDE(i, n) {
        const int du = degree[us[i]], dv = degree[vs[i]];
        const long long lo = min(du, dv), hi = max(du, dv);
        const int c = hi <= small ? 0 : lo <= warp_from ? 1 : lo <= large ? 2 : 3;
        classes[i] = (unsigned char)c;
#pragma unroll
        for (int k = 0; k < 4; ++k) mine[k] += (c == k);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        unsigned long long s = mine[k];
        for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
        if ((threadIdx.x & 31) == 0 && s) atomicAdd(&block_sizes[k], s);
    }
    __syncthreads();
    if (threadIdx.x < 4 && block_sizes[threadIdx.x]) atomicAdd(&sizes[threadIdx.x], block_sizes[threadIdx.x]);
}
