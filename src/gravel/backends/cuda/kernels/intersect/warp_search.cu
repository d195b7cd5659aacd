// Intersection, a medium list against a large one: one warp per pair; its lanes take strided elements
// of the smaller list and binary-search them in the larger (whose top levels they then share in cache),
// so that a pair's searches spread over 32 lanes instead of keeping one busy while its warp waits.
#include "intersect/intersect.cuh"

__global__ void gravel_intersect_warp_search(GRAVEL_INTERSECT_PARAMS) {
    const int lane = threadIdx.x & 31;
    const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long k = warp; k < n_items; k += warps) {
        long long p = gravel_item(items, k);
        GravelPair q = gravel_pair(offsets, indices, us, vs, p);
        long long c = 0;
        for (long long i = lane; i < q.na; i += 32) c += gravel_contains(q.b, q.nb, q.a[i]);
        for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
        if (lane == 0) {
            counts[p] = c;
            if (c) atomicAdd(total, (unsigned long long)c);
        }
    }
}
