// Neighbor reduce, staged blocked pull (gravel.layouts.StagedPull): a sweep whose value is x[u], or x[u]
// combined with the arc's weight (COMBINE, below), in two passes over the in-edges cut by source block.
// Gather: one CTA per chunk (a run of one block's edges) copies the block's slice of x into shared
// memory, then its warps reduce each pair's x[u] (a pair: the block's edges into one destination,
// side by side, cut where a warp's span ends) and write one value per pair; where the layout keeps
// each edge its own pair (too few edges share one), the copy below writes each edge's x[u] instead.
// Reads of 2-byte local ids and end bits are coalesced; the random reads hit shared memory, not the
// L2, whose request rate bounds a sweep that gathers through it (one 32-byte sector per 4-byte value).
// Merge: destination tiles accumulate the pairs' values in shared memory, each vertex applied once
// (default: out[v] = acc); below.
// The layout's geometry comes as defines (gravel.layouts.staged.KERNEL_DEFINES).
#if !defined(GRAVEL_STAGED_SPAN) || !defined(GRAVEL_STAGED_STAGE) || !defined(GRAVEL_STAGED_GATHER_BLOCK) \
    || !defined(GRAVEL_STAGED_MERGE_BLOCK)
#error "staged.cu takes its geometry as defines: gravel.layouts.staged.KERNEL_DEFINES"
#endif
#include <cub/warp/warp_reduce.cuh>
#include "neighbor_reduce/neighbor_reduce.cuh"

// Block `block`'s values of x into the CTA's shared memory (its last block may be short). The CTA
// holds its SM, which does nothing else until the slice is in: where the slice is 16-byte aligned
// (the widths the card picks are), asynchronous 16-byte copies put all of it in flight at once, with
// no registers held, instead of one value a thread per round trip.
template <typename T>
__device__ __forceinline__ void gravel_staged_slice(T *slice, const T *__restrict__ x, int block, int width,
                                                    long long n) {
    const long long base = (long long)block * width;
    const int len = (int)min((long long)width, n - base);
    int k = 0;
#if __CUDA_ARCH__ >= 800
    if ((reinterpret_cast<size_t>(x + base) & 15) == 0) {
        constexpr int PER = 16 / sizeof(T);
        const int vectors = len / PER;
        const unsigned to = (unsigned)__cvta_generic_to_shared(slice);
        for (int v = threadIdx.x; v < vectors; v += blockDim.x)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to + 16 * v), "l"(x + base + PER * v));
        asm volatile("cp.async.wait_all;\n" ::: "memory");
        k = vectors * PER;
    }
#endif
    for (k += threadIdx.x; k < len; k += blockDim.x) slice[k] = x[base + k];
}

// An edge's value from x[u] and its weight w: COMBINE 0 is x[u], 1 x[u] + w (min-plus paths), 2
// x[u] * w, evaluated as neighbor_reduce's expression `x[u] + weight` is, then converted to T.
template <typename T, int COMBINE>
__device__ __forceinline__ T gravel_staged_combine(T x, float w) {
    static_assert(COMBINE >= 0 && COMBINE <= 2, "COMBINE: 0 none, 1 add, 2 multiply");
    (void)w;
    return COMBINE == 1 ? (T)(x + w) : COMBINE == 2 ? (T)(x * w) : x;
}

// Four edges' weights, one 16-byte load (the layout pads them to whole spans; none without COMBINE).
template <int COMBINE>
__device__ __forceinline__ float4 gravel_staged_weights4(const float *weight, long long e) {
    return COMBINE ? __ldcs(reinterpret_cast<const float4 *>(weight + e)) : float4{};
}

// Four edges' values from their ids (packed in a uint2) and weights, stored as one 16-byte write per
// 4-byte T: a warp's store is 512 contiguous bytes.
template <typename T, int COMBINE>
__device__ __forceinline__ void gravel_staged_put4(T *out, const T *slice, uint2 packed, float4 weights) {
    union { uint2 q; unsigned short id[4]; } in{packed};
    union { T v[4]; uint4 w[sizeof(T) / 4]; } put;
    const float w[4] = {weights.x, weights.y, weights.z, weights.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) put.v[j] = gravel_staged_combine<T, COMBINE>(slice[in.id[j]], w[j]);
#pragma unroll
    for (int j = 0; j < (int)(sizeof(T) / 4); ++j) reinterpret_cast<uint4 *>(out)[j] = put.w[j];
}

// The gather where each edge is its own pair (the layout found too few edges to combine): a CTA per
// chunk, each edge's value out in edge order. `weight`: the arcs' weights in the layout's order where
// COMBINE is not 0.
template <typename T, int COMBINE>
__global__ void gravel_staged_copy(const long long *__restrict__ chunk_edges, const int *__restrict__ chunk_block,
                                   long long chunks, const unsigned short *__restrict__ local,
                                   const float *__restrict__ weight, const T *__restrict__ x, long long n,
                                   int width, T *__restrict__ value) {
    extern __shared__ __align__(16) unsigned char gravel_smem[];
    T *slice = reinterpret_cast<T *>(gravel_smem);
    // One CTA per SM holds a block's slice, so each thread keeps UNROLL loads of 4 ids in flight:
    // 32 KB a SM, about what the memory's latency times its bandwidth asks for.
    constexpr int UNROLL = 4;
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
        gravel_staged_slice<T>(slice, x, chunk_block[c], width, n);
        __syncthreads();
        // edges head..tail go 4 at a time (aligned: 8-byte id loads, 16-byte value stores)
        const long long start = chunk_edges[c], end = chunk_edges[c + 1];
        const long long head = min(end, (start + 3) & ~3LL), tail = max(head, end & ~3LL);
        for (long long e = start + threadIdx.x; e < head; e += blockDim.x)
            value[e] = gravel_staged_combine<T, COMBINE>(slice[local[e]], COMBINE ? weight[e] : 0.0f);
        for (long long e = tail + threadIdx.x; e < end; e += blockDim.x)
            value[e] = gravel_staged_combine<T, COMBINE>(slice[local[e]], COMBINE ? weight[e] : 0.0f);
        const uint2 *ids = reinterpret_cast<const uint2 *>(local + head);
        T *out = value + head;
        const long long groups = (tail - head) >> 2, stride = blockDim.x;
        long long g = threadIdx.x;
        for (; g + (UNROLL - 1) * stride < groups; g += UNROLL * stride) {
            uint2 q[UNROLL];
            float4 w[UNROLL];
#pragma unroll
            for (int j = 0; j < UNROLL; ++j) {
                q[j] = __ldcs(ids + g + j * stride);
                w[j] = gravel_staged_weights4<COMBINE>(weight, head + 4 * (g + j * stride));
            }
#pragma unroll
            for (int j = 0; j < UNROLL; ++j)
                gravel_staged_put4<T, COMBINE>(out + 4 * (g + j * stride), slice, q[j], w[j]);
        }
        for (; g < groups; g += stride)
            gravel_staged_put4<T, COMBINE>(out + 4 * g, slice, __ldcs(ids + g),
                                           gravel_staged_weights4<COMBINE>(weight, head + 4 * g));
        __syncthreads();  // the next chunk overwrites the slice
    }
}

// A warp's exclusive scan of its lanes' (pairs begun, reduce since the last one began): what came
// before each lane in the span, the first lane's nothing.
template <typename T>
__device__ __forceinline__ void gravel_staged_warp_scan(int &begun, T &since, T identity, int lane) {
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const int up_begun = __shfl_up_sync(0xffffffffu, begun, off);
        const T up_since = __shfl_up_sync(0xffffffffu, since, off);
        if (lane >= off) {
            since = begun ? since : gravel_nr_reduce<T>(up_since, since);
            begun += up_begun;
        }
    }
    const int before_begun = __shfl_up_sync(0xffffffffu, begun, 1);
    const T before_since = __shfl_up_sync(0xffffffffu, since, 1);
    begun = lane ? before_begun : 0;
    since = lane ? before_since : identity;
}

// A CTA per chunk, its warps a span at a time; a span begins a pair, so no warp waits on another. A
// lane takes 16 consecutive edges: their ids in two 16-byte loads, their end bits, their x[u] from the
// slice (combined with their weights, four 16-byte loads, where COMBINE is not 0); it reduces them by
// pair, a warp scan gives what came before it, and the lane of each pair's last edge puts the pair's
// value in the warp's stage, from where the warp writes them side by side at span_pair of its span on
// (a lane's own writes would scatter one value a lane over the span's range: one L2 request a value).
// Edges of the span before the chunk's (another block's, whole pairs) count their pairs, whose values
// another chunk writes.
template <typename T, int COMBINE>
__global__ void __launch_bounds__(GRAVEL_STAGED_GATHER_BLOCK)
gravel_staged_gather(const long long *__restrict__ chunk_edges, const int *__restrict__ chunk_block,
                     long long chunks, const unsigned short *__restrict__ local, const float *__restrict__ weight,
                     const unsigned int *__restrict__ ends, const long long *__restrict__ span_pair,
                     const T *__restrict__ x, long long n, int width, T identity, T *__restrict__ value) {
    constexpr int SPAN = GRAVEL_STAGED_SPAN, ITEMS = SPAN / 32, STAGE = GRAVEL_STAGED_STAGE;
    static_assert(ITEMS == 16, "a lane loads its 16 edges' ids as two 16-byte vectors");
    extern __shared__ __align__(16) unsigned char gravel_smem[];
    T *slice = reinterpret_cast<T *>(gravel_smem);
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    T *stage = slice + width + (threadIdx.x >> 5) * STAGE;  // this warp's, past the slice
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
        gravel_staged_slice<T>(slice, x, chunk_block[c], width, n);
        __syncthreads();
        const long long start = chunk_edges[c], end = chunk_edges[c + 1];
        for (long long s = start / SPAN + (threadIdx.x >> 5); s * SPAN < end; s += warps) {
            const long long e0 = s * SPAN + ITEMS * lane;  // this lane's first edge
            // its edges before the chunk's (`dead`) and in it (`live`)
            constexpr unsigned all = (1u << ITEMS) - 1;
            const unsigned dead = start <= e0 ? 0u : start - e0 >= ITEMS ? all : (1u << (start - e0)) - 1;
            const unsigned live = ~dead & (end - e0 >= ITEMS ? all : end <= e0 ? 0u : (1u << (end - e0)) - 1);
            // every edge of the span is read, live or not: ids are padded to whole spans and below the
            // width, and a value that is not live only reaches pairs that are not written (dead edges
            // end their pairs before the first live edge begins one; edges past `end` follow the last
            // live edge's end). No predicates: the gather is bound by the instructions it issues
            // (Nsight: 74 % of issue slots used); with them the kernel was 1,176 SASS instructions, 912
            // without.
            union { uint4 q[2]; unsigned short id[ITEMS]; } in;
            in.q[0] = __ldcs(reinterpret_cast<const uint4 *>(local + e0));
            in.q[1] = __ldcs(reinterpret_cast<const uint4 *>(local + e0) + 1);
            const unsigned bits = (__ldg(ends + (e0 >> 5)) >> (e0 & 31)) & all;
            const unsigned prev = __shfl_up_sync(0xffffffffu, bits, 1);
            const unsigned before = lane == 0 ? 1u : prev >> (ITEMS - 1);  // the span's first edge begins a pair
            // a pair begins where a live edge follows an end; a dead edge's end counts its pair
            const unsigned key = (((bits << 1) | before) & live) | (bits & dead), last = bits & live;
            float w[ITEMS];
#pragma unroll
            for (int j = 0; j < ITEMS; j += 4) {
                const float4 q = gravel_staged_weights4<COMBINE>(weight, e0 + j);
                w[j] = q.x, w[j + 1] = q.y, w[j + 2] = q.z, w[j + 3] = q.w;
            }
            T v[ITEMS];
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) v[j] = gravel_staged_combine<T, COMBINE>(slice[in.id[j]], w[j]);
            int begun = __popc(key);
            T since = identity;
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) since = (key >> j) & 1u ? v[j] : gravel_nr_reduce<T>(since, v[j]);
            gravel_staged_warp_scan<T>(begun, since, identity, lane);
            // the span's pairs, r = 0 to total - 1 (index span_pair[s] + r); those before `lowest` are
            // dead edges', another chunk's to write. They go out STAGE at a time through the stage,
            // whose writes are side by side; a round reduces the lane's edges again (registers only).
            const int total = __shfl_sync(0xffffffffu, begun + __popc(key), 31);
            const int lowest = __reduce_add_sync(0xffffffffu, __popc(bits & dead));
            for (int r0 = lowest - lowest % STAGE; r0 < total; r0 += STAGE) {
                int b = begun;
                T acc = since;
#pragma unroll
                for (int j = 0; j < ITEMS; ++j) {
                    const bool head = (key >> j) & 1u;
                    b += head;
                    acc = head ? v[j] : gravel_nr_reduce<T>(acc, v[j]);
                    if ((last >> j) & 1u && (unsigned)(b - 1 - r0) < (unsigned)STAGE) stage[b - 1 - r0] = acc;
                }
                __syncwarp();
                for (int k = max(r0, lowest) - r0 + lane; k < min(STAGE, total - r0); k += 32)
                    value[span_pair[s] + r0 + k] = stage[k];
                __syncwarp();  // the next round reuses the stage
            }
        }
        __syncthreads();  // the next chunk overwrites the slice
    }
}

// A warp's 32 (destination key, value), keys ascending (negative: no pair): lanes with one key
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

// One CTA per piece: a piece is about STAGED_PIECE pairs (gravel.layouts.staged) of one destination tile,
// as segments of runs (a run: one block's pairs into the tile, destinations ascending). A warp takes a
// segment at a time, 32 pairs per step; lanes with one destination combine first (gravel_staged_fold),
// so a hub's pairs cost one shared atomic per step, not 32 on one address. A tile that is one piece
// applies its accumulators at once; a tile cut into pieces folds them into `total` with atomics and
// the last of its pieces to finish (counted in `done`) applies the tile and puts `total` and `done`
// back to the identity and zero for the next sweep.
// The merge waits on its loads: 8 CTAs of 256 threads (64 warps, an SM's most) fit in 32 registers,
// which the bound asks of ptxas; left free it took 39 and 6 CTAs (docs/tuning.md).
template <typename T, int OP>
__global__ void __launch_bounds__(GRAVEL_STAGED_MERGE_BLOCK, 8)
gravel_staged_merge(const long long *__restrict__ piece_first, const int *__restrict__ piece_tile,
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
            // UNROLL steps of 32 pairs at once: their loads in flight together
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
        // the apply's sums, put in per piece: held across the folds, they would cost registers there
        double sums[GRAVEL_NR_SLOTS] = {};
        if (tile_pieces[t] == 1) {
            for (int k = threadIdx.x; k < size; k += blockDim.x)
                gravel_nr_apply<T>((vid_t)(first + k), first + k, acc[k], out, sums GRAVEL_USER_ARGS);
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
                    gravel_nr_apply<T>((vid_t)(first + k), first + k, sum, out, sums GRAVEL_USER_ARGS);
                }
                if (threadIdx.x == 0) done[t] = 0;
            }
        }
        gravel_nr_sums_put(sums GRAVEL_USER_ARGS);
        __syncthreads();  // the next piece resets acc, `last` and the sums' shared memory
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_staged_copy<float, 0>, (void*)gravel_staged_copy<double, 0>,
                            (void*)gravel_staged_copy<int, 0>, (void*)gravel_staged_copy<float, 1>,
                            (void*)gravel_staged_copy<double, 2>,
                            (void*)gravel_staged_gather<float, 0>, (void*)gravel_staged_gather<double, 0>,
                            (void*)gravel_staged_gather<int, 0>, (void*)gravel_staged_gather<float, 1>,
                            (void*)gravel_staged_gather<int, 2>,
                            (void*)gravel_staged_merge<float, 0>, (void*)gravel_staged_merge<double, 1>,
                            (void*)gravel_staged_merge<int, 2>};
#endif
