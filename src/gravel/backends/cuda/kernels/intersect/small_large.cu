// Intersection, a small list against a large one: one thread per pair binary-searches each element of
// the smaller list in the larger, O(small * log large) instead of a merge's O(small + large).
#include "intersect/intersect.cuh"

__global__ void gravel_intersect_small_large(GRAVEL_INTERSECT_PARAMS) {
    GRAVEL_GRID_STRIDE(k, n_items) {
        long long p = gravel_item(items, k);
        GravelPair q = gravel_pair(offsets, indices, us, vs, p);
        long long c = 0;
        for (long long i = 0; i < q.na; ++i) c += gravel_contains(q.b, q.nb, q.a[i]);
        counts[p] = c;
        if (c) atomicAdd(total, (unsigned long long)c);
    }
}
