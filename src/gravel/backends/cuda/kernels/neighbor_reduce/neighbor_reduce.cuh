// The neighbour value of neighbor_reduce, evaluated in its own scope (see common.cuh).
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
