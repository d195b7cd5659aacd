// The hooks of neighbor_reduce: the neighbour value, the reduce operator and the vertex update, each
// evaluated in its own scope (see common.cuh).
#pragma once
#include "common.cuh"

#ifndef GRAVEL_NR_VALUE
#define GRAVEL_NR_VALUE(v, u, edge, weight) ((T)1)
#endif

template <typename T>
__device__ __forceinline__ T gravel_nr_value(vid_t v, vid_t u, offset_t edge, float weight GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)u; (void)edge; (void)weight;
    return (T)(GRAVEL_NR_VALUE(v, u, edge, weight));
}

#ifndef GRAVEL_NR_REDUCE
#define GRAVEL_NR_REDUCE(a, b) ((a) + (b))
#endif
#ifndef GRAVEL_NR_APPLY
#define GRAVEL_NR_APPLY(v, i, acc, out) out[i] = acc
#endif

template <typename T>
__device__ __forceinline__ T gravel_nr_reduce(T a, T b) {
    return GRAVEL_NR_REDUCE(a, b);
}

// The reduce operator as a functor, for CUB's collectives.
template <typename T>
struct GravelNrReduce {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return gravel_nr_reduce<T>(a, b); }
};

// neighbor_reduce's `sums`: GRAVEL_NR_SUMS float64 sums of terms over the applied items, which the
// apply adds into gravel_s (each thread's own, GRAVEL_NR_SLOTS of them) after its statement, in its
// scope, so the terms see its locals. A kernel declares them zero and puts them in once, at its end.
#ifndef GRAVEL_NR_SUMS
#define GRAVEL_NR_SUMS 0
#endif
constexpr int GRAVEL_NR_SLOTS = GRAVEL_NR_SUMS > 0 ? GRAVEL_NR_SUMS : 1;

template <typename T>
__device__ __forceinline__ void gravel_nr_apply(vid_t v, long long i, T acc, T *out,
                                                double *gravel_s GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)out; (void)gravel_s;
    GRAVEL_NR_APPLY(v, i, acc, out);
}

// A kernel's sums into the array gravel_sums_array (a parameter neighbor_reduce adds): shuffles fold
// each warp's, shared memory the CTA's, then one atomicAdd per sum and CTA (one per warp would pile
// tens of thousands on one address). Every thread of the CTA calls it, at the kernel's end.
__device__ __forceinline__ void gravel_nr_sums_put(const double *gravel_s GRAVEL_USER_FN_PARAMS) {
#if GRAVEL_NR_SUMS
    __shared__ double part[32][GRAVEL_NR_SUMS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < GRAVEL_NR_SUMS; ++k) {
        double t = gravel_s[k];
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) t += __shfl_down_sync(0xffffffffu, t, off);
        if (lane == 0) part[warp][k] = t;
    }
    __syncthreads();
    if (threadIdx.x < GRAVEL_NR_SUMS) {
        double t = 0.0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += part[w][threadIdx.x];
        atomicAdd(gravel_sums_array + threadIdx.x, t);
    }
#else
    (void)gravel_s;
#endif
}
