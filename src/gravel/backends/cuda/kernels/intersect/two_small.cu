// Intersection, two small lists: one thread per pair merges the two sorted lists.
#include "intersect/intersect.cuh"

__global__ void gravel_intersect_two_small(GRAVEL_INTERSECT_PARAMS) {
    GRAVEL_GRID_STRIDE(k, n_items) {
        long long p = gravel_item(items, k);
        vid_t u = us[p], v = vs[p];
        long long c = gravel_merge_count(indices + offsets[u], offsets[u + 1] - offsets[u],
                                         indices + offsets[v], offsets[v + 1] - offsets[v]);
        counts[p] = c;
        if (c) atomicAdd(total, (unsigned long long)c);
    }
}
