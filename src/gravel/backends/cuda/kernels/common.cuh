// Shared device code of gravel's kernels: types, user-functor hooks, emission, searches, atomics.
#pragma once
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

typedef long long offset_t;  // edge offsets (graphs beyond 2^31 edges exist)
typedef int vid_t;           // vertex ids

// A user functor arrives as a prelude that defines these macros; the defaults make every kernel
// compile on its own (CI builds each .cu with nvcc).
#ifndef GRAVEL_USER_PARAMS
#define GRAVEL_USER_PARAMS       // ", int* gravel_p_depth, int gravel_p_level": extra kernel parameters
#endif
#ifndef GRAVEL_USER_ARGS
#define GRAVEL_USER_ARGS         // those kernel parameters, passed on to the functor
#endif
#ifndef GRAVEL_USER_FN_PARAMS
#define GRAVEL_USER_FN_PARAMS    // the functor's own view of them, under the user's names
#endif
// Each functor is evaluated inside a small __device__ function that sees only its documented names
// and the user's parameters, so a kernel's own locals (k, i, lo, ...) can never capture a user name.
#ifndef GRAVEL_ADVANCE_OP
#define GRAVEL_ADVANCE_OP(src, dst, edge, weight, step) true
#endif

// Append `value` to out[0..cap) through one atomic per group of active lanes; positions past `cap`
// are counted but not written, so the host can detect an undersized buffer.
template <typename T>
__device__ __forceinline__ void gravel_emit(T* out, unsigned long long* len, unsigned long long cap, T value) {
    cg::coalesced_group g = cg::coalesced_threads();
    unsigned long long base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(len, (unsigned long long)g.size());
    base = g.shfl(base, 0) + g.thread_rank();
    if (base < cap) out[base] = value;
}

// Index of the last element <= key in the sorted a[0..n) (n >= 1, a[0] <= key).
__device__ __forceinline__ long long gravel_last_le(const long long* a, long long n, long long key) {
    long long lo = 0, hi = n;  // invariant: a[lo] <= key, answer in [lo, hi)
    while (hi - lo > 1) {
        long long mid = (lo + hi) >> 1;
        if (a[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

// Is x in the sorted a[0..n)?
__device__ __forceinline__ bool gravel_contains(const int* a, long long n, int x) {
    long long lo = 0, hi = n;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        int v = a[mid];
        if (v < x) lo = mid + 1; else hi = mid;
    }
    return lo < n && a[lo] == x;
}

// atomicMin/atomicMax for floats (any but NaN): non-negative floats order like their bits as ints,
// negative ones in reverse as unsigned ints; the sign bit (not v >= 0) keeps -0.0 with the negatives.
__device__ __forceinline__ void gravel_atomic_min(float* a, float v) {
    if (!signbit(v)) atomicMin((int*)a, __float_as_int(v));
    else atomicMax((unsigned int*)a, __float_as_uint(v));
}
__device__ __forceinline__ void gravel_atomic_max(float* a, float v) {
    if (!signbit(v)) atomicMax((int*)a, __float_as_int(v));
    else atomicMin((unsigned int*)a, __float_as_uint(v));
}
// Doubles have no integer atomics of their width that order them: compare and swap.
template <bool MIN>
__device__ __forceinline__ void gravel_atomic_extreme(double* a, double v) {
    unsigned long long* bits = (unsigned long long*)a;
    unsigned long long seen = *bits;
    while (MIN ? v < __longlong_as_double(seen) : v > __longlong_as_double(seen)) {
        const unsigned long long was = atomicCAS(bits, seen, __double_as_longlong(v));
        if (was == seen) break;
        seen = was;
    }
}
__device__ __forceinline__ void gravel_atomic_min(double* a, double v) { gravel_atomic_extreme<true>(a, v); }
__device__ __forceinline__ void gravel_atomic_max(double* a, double v) { gravel_atomic_extreme<false>(a, v); }
__device__ __forceinline__ void gravel_atomic_min(int* a, int v) { atomicMin(a, v); }
__device__ __forceinline__ void gravel_atomic_max(int* a, int v) { atomicMax(a, v); }
__device__ __forceinline__ void gravel_atomic_min(long long* a, long long v) { atomicMin(a, v); }
__device__ __forceinline__ void gravel_atomic_max(long long* a, long long v) { atomicMax(a, v); }
template <typename T>
__device__ __forceinline__ void gravel_atomic_add(T* a, T v) { atomicAdd(a, v); }
// two's complement: an unsigned add is the signed one
__device__ __forceinline__ void gravel_atomic_add(long long* a, long long v) {
    atomicAdd((unsigned long long*)a, (unsigned long long)v);
}

// Fold x into *a by an atomic (OP 0: add, 1: min, 2: max).
template <typename T, int OP>
__device__ __forceinline__ void gravel_atomic_fold(T *a, T x) {
    if (OP == 0) gravel_atomic_add(a, x);
    else if (OP == 1) gravel_atomic_min(a, x);
    else gravel_atomic_max(a, x);
}

// Grid-stride loop over [0, n).
#define GRAVEL_GRID_STRIDE(i, n) \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

// The step counts of a pull-steps kernel (advance/pull_steps.cu, neighbor_reduce/pull_steps.cu), one
// cooperative launch of many steps: step s counts into counts[s % 3] and zeroes counts[(s + 1) % 3],
// whose last readers read it before the barrier ending step s - 1. gravel_step_made ends the step
// with a grid-wide barrier and returns its count, which thread 0 also writes to sizes[step]; every
// thread reads the same, so the whole grid stops together after a step that made nothing.
__device__ __forceinline__ unsigned long long *gravel_step_counter(cg::grid_group &grid, unsigned long long *counts,
                                                                   int step) {
    if (grid.thread_rank() == 0) counts[(step + 1) % 3] = 0;
    return counts + step % 3;
}

__device__ __forceinline__ long long gravel_step_made(cg::grid_group &grid, const unsigned long long *count, int step,
                                                      long long *sizes) {
    grid.sync();
    const long long made = (long long)*(volatile const unsigned long long *)count;
    if (grid.thread_rank() == 0) sizes[step] = made;
    return made;
}
