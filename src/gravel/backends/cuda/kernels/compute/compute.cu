// Compute: run the user's op on every frontier item (or on every vertex when frontier is null,
// n being the vertex count). The op sees `v` (the vertex) and `i` (its position).
#include "common.cuh"

#ifndef GRAVEL_COMPUTE_OP
#define GRAVEL_COMPUTE_OP(v, i)
#endif

__device__ __forceinline__ void gravel_compute_op(vid_t v, long long i GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)i;
    GRAVEL_COMPUTE_OP(v, i);
}

__global__ void gravel_compute(const vid_t *__restrict__ frontier, int all, long long n GRAVEL_USER_PARAMS) {
    GRAVEL_GRID_STRIDE(i, n) {
        const vid_t v = all ? (vid_t)i : frontier[i];
        gravel_compute_op(v, i GRAVEL_USER_ARGS);
    }
}
