// Shared by the segmented-intersection strategies: the pair (u, v) of item k (its index among the
// pairs, listed per class in `items`), its two sorted lists, and the per-pair / global counters.
#pragma once
#include "common.cuh"

#define GRAVEL_INTERSECT_PARAMS                                                                        \
    const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices, const vid_t *__restrict__ us, \
        const vid_t *__restrict__ vs, const long long *__restrict__ items, long long n_items,            \
        long long *__restrict__ counts, unsigned long long *__restrict__ total

// Item k's pair: items[k], or k itself where a class holds every pair (items null).
__device__ __forceinline__ long long gravel_item(const long long *items, long long k) { return items ? items[k] : k; }

// The lists of pair p, the shorter one first.
struct GravelPair {
    const vid_t *a, *b;
    long long na, nb;
};
__device__ __forceinline__ GravelPair gravel_pair(const offset_t *offsets, const vid_t *indices, const vid_t *us,
                                                  const vid_t *vs, long long p) {
    vid_t u = us[p], v = vs[p];
    GravelPair q{indices + offsets[u], indices + offsets[v], offsets[u + 1] - offsets[u], offsets[v + 1] - offsets[v]};
    if (q.na > q.nb) {
        const vid_t *t = q.a; q.a = q.b; q.b = t;
        long long tn = q.na; q.na = q.nb; q.nb = tn;
    }
    return q;
}

// Count the common elements of sorted a[0..na) and b[0..nb) by merging (both short).
__device__ __forceinline__ long long gravel_merge_count(const vid_t *a, long long na, const vid_t *b, long long nb) {
    long long i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        vid_t x = a[i], y = b[j];
        c += (x == y);
        i += (x <= y);
        j += (y <= x);
    }
    return c;
}
