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

template <typename T>
__device__ __forceinline__ void gravel_nr_apply(vid_t v, long long i, T acc, T *out GRAVEL_USER_FN_PARAMS) {
    (void)v; (void)out;
    GRAVEL_NR_APPLY(v, i, acc, out);
}
