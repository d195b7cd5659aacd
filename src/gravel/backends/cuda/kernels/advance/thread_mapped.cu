// Advance, thread-mapped (Gunrock's ThreadExpand): one thread walks one frontier vertex's whole list.
// Cheapest when degrees are small and even (meshes, road graphs); hubs serialise on one thread.
#include "advance/advance.cuh"

template <int OUT, typename OutT>
__global__ void gravel_advance_thread_mapped(GRAVEL_ADVANCE_PARAMS GRAVEL_USER_PARAMS) {
    GRAVEL_GRID_STRIDE(i, n_frontier) {
        vid_t s = frontier[i];
        for (offset_t e = offsets[s], end = offsets[s + 1]; e < end; ++e) GRAVEL_VISIT(s, e);
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_thread_mapped<1, int>, (void*)gravel_advance_thread_mapped<2, long long>};
#endif
