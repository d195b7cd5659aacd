// Neighbor reduce, staged blocked pull (gravel.blocking.StagedPull): a sweep whose value is x[u], in
// two passes over the in-edges cut by source block.
// Gather: one CTA per chunk (edges of one block) copies the block's slice of x into shared memory;
// then each warp takes a span (STAGED_SPAN edges, 32 a step) and reduces each pair's x[u] (a pair:
// the block's edges into one destination, side by side, cut where a span ends) to one value. Reads of
// 2-byte local ids and end bits are coalesced, and so are the writes, one value per pair; the random
// reads hit shared memory, not the L2, whose request rate bounds a sweep that gathers through it (one
// 32-byte sector per 4-byte value).
// Merge: destination tiles accumulate the pairs' values in shared memory, each vertex applied once
// (default: out[v] = acc); below.
#include <cub/warp/warp_reduce.cuh>
#include "neighbor_reduce/neighbor_reduce.cuh"

constexpr int GRAVEL_STAGED_STEPS = 16;  // steps of 32 edges a span: gravel.blocking.STAGED_SPAN / 32

// One step's 32 edges, one a lane: `v` reduced over the lanes of its pair up to its own (a segmented
// inclusive scan; `begins`: the lanes that begin a pair), the lanes before the step's first begun pair
// continuing `carry`, the pair left open by the step before.
template <typename T>
__device__ __forceinline__ T gravel_staged_scan(T v, unsigned begins, T carry, int lane) {
    const unsigned mine = begins & (0xffffffffu >> (31 - lane));  // begun at or before this lane
    const int head = mine ? 31 - __clz(mine) : 0;
    const int reach = __reduce_max_sync(0xffffffffu, lane - head);  // the longest pair so far: fewer rounds
    for (int off = 1; off <= reach; off <<= 1) {
        const T up = __shfl_up_sync(0xffffffffu, v, off);
        if (lane - off >= head) v = gravel_nr_reduce<T>(up, v);
    }
    return mine ? v : gravel_nr_reduce<T>(carry, v);
}

// A CTA per chunk, its warps a span at a time; a span begins a pair, so no warp waits on another. The
// ids of a span's 16 steps are loaded at once (1 KB a warp in flight), its end bits as four uint4.
// Pair p's value is written by the lane of its last edge, at span_pair of its span plus the pairs that
// ended before it there.
template <typename T>
__global__ void __launch_bounds__(1024)
gravel_staged_gather(const long long *__restrict__ chunk_edges, const int *__restrict__ chunk_block,
                     long long chunks, const unsigned short *__restrict__ local, const unsigned int *__restrict__ ends,
                     const long long *__restrict__ span_pair, const T *__restrict__ x, long long n, int width,
                     T identity, T *__restrict__ value) {
    constexpr int SPAN = 32 * GRAVEL_STAGED_STEPS;
    extern __shared__ __align__(16) unsigned char gravel_smem[];
    T *slice = reinterpret_cast<T *>(gravel_smem);
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
        const long long base = (long long)chunk_block[c] * width;
        const int len = (int)min((long long)width, n - base);
#pragma unroll 4
        for (int k = threadIdx.x; k < len; k += blockDim.x) slice[k] = x[base + k];
        __syncthreads();
        const long long start = chunk_edges[c], end = chunk_edges[c + 1];
        for (long long s = start / SPAN + (threadIdx.x >> 5); s * SPAN < end; s += warps) {
            unsigned short id[GRAVEL_STAGED_STEPS];
#pragma unroll
            for (int j = 0; j < GRAVEL_STAGED_STEPS; ++j) {
                const long long e = s * SPAN + 32 * j + lane;
                id[j] = e >= start && e < end ? __ldcs(local + e) : 0;
            }
            unsigned word[GRAVEL_STAGED_STEPS];
#pragma unroll
            for (int q = 0; q < GRAVEL_STAGED_STEPS / 4; ++q)
                *reinterpret_cast<uint4 *>(word + 4 * q) = __ldg(reinterpret_cast<const uint4 *>(ends) + s * 4 + q);
            long long pair = span_pair[s];
            unsigned before = 1u;  // the span's first edge begins a pair
            T carry = identity;
#pragma unroll
            for (int j = 0; j < GRAVEL_STAGED_STEPS; ++j) {
                const long long e0 = s * SPAN + 32 * j;
                // live lanes: [start, end) of this chunk (a span can hold the end of one block's edges)
                const unsigned from = e0 >= start ? 0xffffffffu : start - e0 >= 32 ? 0u : 0xffffffffu << (start - e0);
                const unsigned live = from & (end - e0 >= 32 ? 0xffffffffu : end <= e0 ? 0u : (1u << (end - e0)) - 1);
                const unsigned begins = ((word[j] << 1) | before) & live, last = word[j] & live;
                if (live) {
                    const T v = gravel_staged_scan<T>((live >> lane) & 1u ? slice[id[j]] : identity, begins, carry,
                                                      lane);
                    if ((last >> lane) & 1u) value[pair + __popc(word[j] & ((1u << lane) - 1))] = v;
                    carry = __shfl_sync(0xffffffffu, v, 31);
                }
                pair += __popc(word[j]);
                before = word[j] >> 31;
            }
        }
        __syncthreads();  // the next chunk overwrites the slice
    }
}

// A warp's 32 (destination key, value) pairs, keys ascending (negative: no edge): lanes with one key
// combine (CUB's head-segmented warp reduction), and the first lane of each key folds the result into
// acc[key]. A step whose keys all differ (most, outside hub tiles) folds directly.
template <typename T, int OP>
__device__ __forceinline__ void gravel_staged_fold(T *acc, int key, T x, int lane,
                                                   typename cub::WarpReduce<T>::TempStorage &temp) {
    const int prev_key = __shfl_up_sync(0xffffffffu, key, 1);
    const bool head = lane == 0 || prev_key != key;
    if (__all_sync(0xffffffffu, head)) {
        if (key >= 0) gravel_atomic_fold<T, OP>(&acc[key], x);
        return;
    }
    x = cub::WarpReduce<T>(temp).HeadSegmentedReduce(x, head, GravelNrReduce<T>());
    __syncwarp();  // the next fold reuses temp
    if (key >= 0 && head) gravel_atomic_fold<T, OP>(&acc[key], x);
}

// One CTA per piece: a piece is about STAGED_PIECE edges (gravel.blocking) of one destination tile,
// as segments of runs (a run: one block's edges into the tile, destinations ascending). A warp takes a
// segment at a time, 32 edges per step; lanes with one destination combine first (gravel_staged_fold),
// so a hub's edges cost one shared atomic per step, not 32 on one address. A tile that is one piece
// applies its accumulators at once; a tile cut into pieces folds them into `total` with atomics and
// the last of its pieces to finish (counted in `done`) applies the tile and puts `total` and `done`
// back to the identity and zero for the next sweep.
template <typename T, int OP>
__global__ void gravel_staged_merge(const long long *__restrict__ piece_first, const int *__restrict__ piece_tile,
                                    const int *__restrict__ tile_pieces, long long pieces,
                                    const long long *__restrict__ seg_start, const long long *__restrict__ seg_end,
                                    const unsigned short *__restrict__ target, const T *__restrict__ value, int tile,
                                    long long n, T identity, T *total, unsigned int *done,
                                    T *__restrict__ out GRAVEL_USER_PARAMS) {
    extern __shared__ __align__(16) unsigned char gravel_smem[];
    T *acc = reinterpret_cast<T *>(gravel_smem);
    __shared__ bool last;
    __shared__ typename cub::WarpReduce<T>::TempStorage warp_temp[32];  // one per warp (up to 1024 threads)
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    constexpr int UNROLL = 4;
    for (long long p = blockIdx.x; p < pieces; p += gridDim.x) {
        const int t = piece_tile[p];
        const long long first = (long long)t * tile;
        const int size = (int)min((long long)tile, n - first);
        for (int k = threadIdx.x; k < size; k += blockDim.x) acc[k] = identity;
        __syncthreads();
        for (long long s = piece_first[p] + (threadIdx.x >> 5); s < piece_first[p + 1]; s += warps) {
            // UNROLL steps of 32 edges at once: their loads in flight together
            for (long long base = seg_start[s], end = seg_end[s]; base < end; base += 32 * UNROLL) {
                int key[UNROLL];
                T x[UNROLL];
#pragma unroll
                for (int j = 0; j < UNROLL; ++j) {
                    const long long e = base + 32 * j + lane;
                    key[j] = e < end ? (int)__ldcs(target + e) : -1 - lane;  // off the end: a key of its own
                    x[j] = e < end ? __ldcs(value + e) : identity;
                }
#pragma unroll
                for (int j = 0; j < UNROLL; ++j)
                    gravel_staged_fold<T, OP>(acc, key[j], x[j], lane, warp_temp[threadIdx.x >> 5]);
            }
        }
        __syncthreads();
        if (tile_pieces[t] == 1) {
            for (int k = threadIdx.x; k < size; k += blockDim.x)
                gravel_nr_apply<T>((vid_t)(first + k), first + k, acc[k], out GRAVEL_USER_ARGS);
        } else {
            for (int k = threadIdx.x; k < size; k += blockDim.x)
                if (acc[k] != identity) gravel_atomic_fold<T, OP>(&total[first + k], acc[k]);
            __threadfence();  // the folds are seen before the count says this piece is done
            __syncthreads();
            if (threadIdx.x == 0) last = atomicAdd(&done[t], 1u) == (unsigned int)tile_pieces[t] - 1;
            __syncthreads();
            if (last) {
                for (int k = threadIdx.x; k < size; k += blockDim.x) {
                    const T sum = __ldcg(total + first + k);  // past L1: other SMs wrote it
                    total[first + k] = identity;
                    gravel_nr_apply<T>((vid_t)(first + k), first + k, sum, out GRAVEL_USER_ARGS);
                }
                if (threadIdx.x == 0) done[t] = 0;
            }
        }
        __syncthreads();  // the next piece resets acc and `last`
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_staged_gather<float>, (void*)gravel_staged_gather<double>,
                            (void*)gravel_staged_gather<int>,
                            (void*)gravel_staged_merge<float, 0>, (void*)gravel_staged_merge<double, 1>,
                            (void*)gravel_staged_merge<int, 2>};
#endif
