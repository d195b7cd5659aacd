// Intersection, two large lists (which Gunrock lacked): one block per pair; its threads take strided
// elements of the smaller list and binary-search them in the larger, then reduce the block's count.
#include "intersect/intersect.cuh"
#include <cub/block/block_reduce.cuh>

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_intersect_large_large(GRAVEL_INTERSECT_PARAMS) {
    typedef cub::BlockReduce<long long, BLOCK> Reduce;
    __shared__ typename Reduce::TempStorage temp;
    for (long long k = blockIdx.x; k < n_items; k += gridDim.x) {
        long long p = gravel_item(items, k);
        GravelPair q = gravel_pair(offsets, indices, us, vs, p);
        long long c = 0;
        for (long long i = threadIdx.x; i < q.na; i += BLOCK) c += gravel_contains(q.b, q.nb, q.a[i]);
        c = Reduce(temp).Sum(c);
        if (threadIdx.x == 0) {
            counts[p] = c;
            if (c) atomicAdd(total, (unsigned long long)c);
        }
        __syncthreads();
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_intersect_large_large<256>};
#endif
