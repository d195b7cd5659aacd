// Neighbor reduce, staged blocked pull (gravel.blocking.StagedPull): a sweep whose value is x[u], in
// two passes over the in-edges cut by source block and kept one entry per edge.
// Gather: one CTA per chunk (a run of one block's edges) copies the block's slice of x into shared
// memory, then writes each edge's x[u] out in edge order. Reads of 2-byte local ids and writes of
// values are coalesced; the random reads hit shared memory, not the L2, whose request rate bounds a
// sweep that gathers through it (one 32-byte sector per 4-byte value).
// Merge: one CTA per tile of destinations at a time folds, with shared-memory atomics, the tile's run
// of edges in every block (a warp per block) into the tile's accumulators, then applies each vertex
// once (default: out[v] = acc).
#include "neighbor_reduce/neighbor_reduce.cuh"

template <typename T>
__global__ void gravel_staged_gather(const long long *__restrict__ chunk_edges, const int *__restrict__ chunk_block,
                                     long long chunks, const unsigned short *__restrict__ local,
                                     const T *__restrict__ x, long long n, int width, T *__restrict__ value) {
    extern __shared__ __align__(16) unsigned char gravel_smem[];
    T *slice = reinterpret_cast<T *>(gravel_smem);
    constexpr int UNROLL = 4;  // loads in flight per thread: one CTA per SM holds a block's slice
    for (long long c = blockIdx.x; c < chunks; c += gridDim.x) {
        const long long base = (long long)chunk_block[c] * width;
        const int len = (int)min((long long)width, n - base);
        for (int k = threadIdx.x; k < len; k += blockDim.x) slice[k] = x[base + k];
        __syncthreads();
        const long long end = chunk_edges[c + 1];
        long long e = chunk_edges[c] + threadIdx.x;
        for (; e + (UNROLL - 1) * (long long)blockDim.x < end; e += UNROLL * (long long)blockDim.x) {
            unsigned short id[UNROLL];
#pragma unroll
            for (int j = 0; j < UNROLL; ++j) id[j] = __ldcs(local + e + j * (long long)blockDim.x);
#pragma unroll
            for (int j = 0; j < UNROLL; ++j) value[e + j * (long long)blockDim.x] = slice[id[j]];
        }
        for (; e < end; e += blockDim.x) value[e] = slice[__ldcs(local + e)];
        __syncthreads();  // the next chunk overwrites the slice
    }
}

template <typename T, int OP>
__global__ void gravel_staged_merge(const long long *__restrict__ tile_edges, int blocks, long long tiles, int tile,
                                    const unsigned short *__restrict__ target, const T *__restrict__ value,
                                    long long n, T identity, T *__restrict__ out GRAVEL_USER_PARAMS) {
    extern __shared__ __align__(16) unsigned char gravel_smem[];
    T *acc = reinterpret_cast<T *>(gravel_smem);
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long first = t * tile;
        for (int k = threadIdx.x; k < tile; k += blockDim.x) acc[k] = identity;
        __syncthreads();
        for (int b = threadIdx.x >> 5; b < blocks; b += warps) {
            const long long *run = tile_edges + b * (tiles + 1) + t;
            for (long long e = run[0] + lane, end = run[1]; e < end; e += 32)
                gravel_atomic_fold<T, OP>(&acc[__ldcs(target + e)], __ldcs(value + e));
        }
        __syncthreads();
        for (int k = threadIdx.x; k < tile && first + k < n; k += blockDim.x)
            gravel_nr_apply<T>((vid_t)(first + k), first + k, acc[k], out GRAVEL_USER_ARGS);
        __syncthreads();  // the next tile resets acc
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_staged_gather<float>, (void*)gravel_staged_gather<double>,
                            (void*)gravel_staged_merge<float, 0>, (void*)gravel_staged_merge<double, 1>,
                            (void*)gravel_staged_merge<int, 2>};
#endif
