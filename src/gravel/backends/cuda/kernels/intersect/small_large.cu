// Intersection, a small list against a large one: one thread per pair binary-searches each element of
// the smaller list in the larger, O(small * log large) instead of a merge's O(small + large).
#include "intersect/intersect.cuh"

__global__ void gravel_intersect_small_large(GRAVEL_INTERSECT_PARAMS) {
    GRAVEL_GRID_STRIDE(k, n_items) {
        long long p = items[k];
        vid_t u = us[p], v = vs[p];
        long long nu = offsets[u + 1] - offsets[u], nv = offsets[v + 1] - offsets[v];
        const vid_t *a = indices + offsets[u], *b = indices + offsets[v];
        if (nu > nv) { const vid_t *t = a; a = b; b = t; long long tn = nu; nu = nv; nv = tn; }
        long long c = 0;
        for (long long i = 0; i < nu; ++i) c += gravel_contains(b, nv, a[i]);
        counts[p] = c;
        if (c) atomicAdd(total, (unsigned long long)c);
    }
}
