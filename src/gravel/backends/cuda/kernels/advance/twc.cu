// Advance, TWC (Merrill et al.'s thread/warp/CTA expansion): each thread holds one frontier vertex;
// lists of at least a block's size are walked by the whole block, lists of at least 32 by a warp, the
// rest by their own thread. Balanced within a block; best for large frontiers of mixed degree.
#include "advance/advance.cuh"

template <int OUT, typename OutT>
__global__ void gravel_advance_twc(GRAVEL_ADVANCE_PARAMS GRAVEL_USER_PARAMS) {
    __shared__ int s_owner;
    __shared__ vid_t s_src;
    __shared__ offset_t s_begin, s_end;
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    for (long long base = blockIdx.x * (long long)blockDim.x; base < n_frontier;
         base += (long long)gridDim.x * blockDim.x) {
        long long i = base + threadIdx.x;
        vid_t mine = 0;
        offset_t beg = 0, end = 0;
        if (i < n_frontier) { mine = frontier[i]; beg = offsets[mine]; end = offsets[mine + 1]; }
        while (true) {  // CTA phase
            if (threadIdx.x == 0) s_owner = -1;
            __syncthreads();
            if (end - beg >= blockDim.x) s_owner = threadIdx.x;
            __syncthreads();
            int owner = s_owner;
            if (owner < 0) break;
            if (threadIdx.x == owner) { s_src = mine; s_begin = beg; s_end = end; beg = end; }
            __syncthreads();
            for (offset_t e = s_begin + threadIdx.x; e < s_end; e += blockDim.x) GRAVEL_VISIT(s_src, e);
            __syncthreads();
        }
        while (true) {  // warp phase
            unsigned want = __ballot_sync(full, end - beg >= 32);
            if (!want) break;
            int leader = __ffs(want) - 1;
            vid_t wsrc = __shfl_sync(full, mine, leader);
            offset_t wb = __shfl_sync(full, beg, leader), we = __shfl_sync(full, end, leader);
            if (lane == leader) beg = end;
            for (offset_t e = wb + lane; e < we; e += 32) GRAVEL_VISIT(wsrc, e);
        }
        for (offset_t e = beg; e < end; ++e) GRAVEL_VISIT(mine, e);  // thread phase
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_twc<1, int>, (void*)gravel_advance_twc<2, long long>};
#endif
