// Split, exact: each frontier item goes to the segment its key names (0 <= key < segments; any other
// key drops it), in its original order within the segment, the segments back to back. Pass 1
// evaluates the key once per item and counts each block's items per segment; the host scans the
// counts segment by segment; pass 2 ranks each item among its block's items of the same segment
// (a warp match, then the warps' counts before it) and writes it at its block's offset.
#include "common.cuh"

#ifndef GRAVEL_SPLIT_OP
#define GRAVEL_SPLIT_OP(v, i) 0
#endif

// at most this many segments (the shared counts' size)
#define GRAVEL_SPLIT_MAX 32

__device__ __forceinline__ int gravel_split_op(vid_t v, long long i GRAVEL_USER_FN_PARAMS) {
    return GRAVEL_SPLIT_OP(v, i);
}

// counts[k * gridDim.x + b]: block b's items of segment k (segment-major, so one scan orders them)
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_split_keys(const vid_t *__restrict__ frontier, long long n,
                                                           int segments, signed char *__restrict__ keys,
                                                           long long *__restrict__ counts GRAVEL_USER_PARAMS) {
    __shared__ int block_counts[GRAVEL_SPLIT_MAX];
    if (threadIdx.x < segments) block_counts[threadIdx.x] = 0;
    __syncthreads();
    long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    int key = -1;
    if (i < n) {
        const vid_t v = frontier[i];
        key = gravel_split_op(v, i GRAVEL_USER_ARGS);
        if (key < 0 || key >= segments) key = -1;
        keys[i] = (signed char)key;
    }
    // one shared atomic per distinct key in the warp, not one per item on a few hot counters
    unsigned same = __match_any_sync(0xffffffffu, key);
    if (key >= 0 && (threadIdx.x & 31) == __ffs(same) - 1) atomicAdd(&block_counts[key], __popc(same));
    __syncthreads();
    if (threadIdx.x < segments) counts[(long long)threadIdx.x * gridDim.x + blockIdx.x] = block_counts[threadIdx.x];
}

// offsets[k * gridDim.x + b]: where block b's items of segment k start in out
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) gravel_split_write(const vid_t *__restrict__ frontier, long long n,
                                                            int segments, const signed char *__restrict__ keys,
                                                            const long long *__restrict__ offsets,
                                                            vid_t *__restrict__ out) {
    constexpr int WARPS = BLOCK / 32;
    __shared__ int ahead[WARPS][GRAVEL_SPLIT_MAX];  // per warp and segment: the block's items before the warp's
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int j = threadIdx.x; j < WARPS * GRAVEL_SPLIT_MAX; j += BLOCK) ahead[j / GRAVEL_SPLIT_MAX][j % GRAVEL_SPLIT_MAX] = 0;
    __syncthreads();
    long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    int key = i < n ? keys[i] : -1;
    unsigned same = __match_any_sync(0xffffffffu, key);
    int rank = __popc(same & ((1u << lane) - 1));  // the warp's items of this segment before this one
    if (key >= 0 && rank == 0) ahead[warp][key] = __popc(same);
    __syncthreads();
    if (threadIdx.x < segments) {
        int run = 0;
        for (int w = 0; w < WARPS; ++w) {
            int c = ahead[w][threadIdx.x];
            ahead[w][threadIdx.x] = run;
            run += c;
        }
    }
    __syncthreads();
    if (key >= 0) out[offsets[(long long)key * gridDim.x + blockIdx.x] + ahead[warp][key] + rank] = frontier[i];
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_split_keys<256>, (void*)gravel_split_write<256>};
#endif
