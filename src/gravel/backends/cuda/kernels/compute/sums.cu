// Compute sums: K double sums of the user's terms over every frontier item (every vertex when frontier
// is null, n being the vertex count), in one launch. GRAVEL_SUMS_OP(v, i, gravel_s) adds item (v, i)'s
// terms into gravel_s[0..K) (a name no user parameter takes); each thread sums its items, a CUB block
// reduction combines them, and one atomicAdd per block and sum lands in out[0..K) (zeroed by the
// caller). For per-iteration checks such as PageRank's L1 change and dangling mass: CuPy's elementwise
// and sum calls took seven launches for the two.
#include <cub/block/block_reduce.cuh>
#include "common.cuh"

#ifndef GRAVEL_SUMS_OP
#define GRAVEL_SUMS_OP(v, i, gravel_s)
#endif

template <int K>
__device__ __forceinline__ void gravel_sums_op(vid_t v, long long i, double *gravel_s GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)i;
    GRAVEL_SUMS_OP(v, i, gravel_s);
}

template <int K, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
gravel_compute_sums(const vid_t *__restrict__ frontier, int all, long long n, double *__restrict__ out
                    GRAVEL_USER_PARAMS) {
    double s[K];
#pragma unroll
    for (int k = 0; k < K; ++k) s[k] = 0.0;
    GRAVEL_GRID_STRIDE(i, n) {
        const vid_t v = all ? (vid_t)i : frontier[i];
        gravel_sums_op<K>(v, i, s GRAVEL_USER_ARGS);
    }
    typedef cub::BlockReduce<double, BLOCK> Reduce;
    __shared__ typename Reduce::TempStorage temp;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const double t = Reduce(temp).Sum(s[k]);
        if (threadIdx.x == 0) atomicAdd(out + k, t);
        __syncthreads();  // the next sum reuses temp
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_compute_sums<1, 256>, (void*)gravel_compute_sums<2, 256>};
#endif
