// The filter predicate, evaluated in its own scope (see common.cuh).
#pragma once
#include "common.cuh"

#ifndef GRAVEL_FILTER_OP
#define GRAVEL_FILTER_OP(v, i) true
#endif

__device__ __forceinline__ bool gravel_filter_op(vid_t v, long long i GRAVEL_USER_FN_PARAMS) {
    return GRAVEL_FILTER_OP(v, i);
}
