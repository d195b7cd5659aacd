// The generators' edges made on the GPU, bit for bit those of backends/cpu/generate.py (every random
// number a splitmix64 hash of (seed, counter)), for a CSR built a slab of rows at a time: pass 1
// counts each row's arcs, pass 2 (once per slab) emits the arcs whose row lies in [row0, row1) as
// 64-bit keys (row - row0) << 32 | column, which the caller sorts and deduplicates. Loops are dropped.
// KIND 0 is GAP's urand (both endpoints uniform in [0, n)), KIND 1 Graph500's Kronecker. `params`
// holds seed, n, scale, the quadrant thresholds ta, tb, tc (in 1/65536) and the Kronecker id
// scrambler's three round keys, computed on the host as the CPU path computes them.
#include "common.cuh"

#define GRAVEL_GOLDEN 0x9E3779B97F4A7C15ull

__device__ __forceinline__ unsigned long long gravel_mix64(unsigned long long x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

__device__ __forceinline__ unsigned long long gravel_rand64(unsigned long long seed, unsigned long long counter) {
    return gravel_mix64(seed + (counter + 1) * GRAVEL_GOLDEN);
}

// generate.py's permute_id: rounds of multiply-by-odd and xor-shift modulo 2**scale.
__device__ __forceinline__ vid_t gravel_permute_id(unsigned long long h, int scale, const unsigned long long *perm) {
    const unsigned long long mask = (1ull << scale) - 1;
    const int shift = scale / 2 > 1 ? scale / 2 : 1;
    for (int r = 0; r < 3; ++r) {
        h = (h * (perm[r] | 1ull)) & mask;
        h ^= h >> shift;
        h = (h + (perm[r] >> 32)) & mask;
    }
    return (vid_t)h;
}

struct gravel_edge_params {
    unsigned long long seed, n;
    int scale;
    unsigned int ta, tb, tc;
    unsigned long long perm[3];
    __device__ explicit gravel_edge_params(const unsigned long long *p)
        : seed(p[0]), n(p[1]), scale((int)p[2]), ta((unsigned int)p[3]), tb((unsigned int)p[4]),
          tc((unsigned int)p[5]), perm{p[6], p[7], p[8]} {}
};

template <int KIND>
__device__ __forceinline__ void gravel_make_edge(long long e, const gravel_edge_params &p, vid_t &u, vid_t &v) {
    if (KIND == 0) {
        const unsigned long long r = gravel_rand64(p.seed, (unsigned long long)e);
        u = (vid_t)(((r & 0xFFFFFFFFull) * p.n) >> 32);
        v = (vid_t)(((r >> 32) * p.n) >> 32);
        return;
    }
    const unsigned long long words = (p.scale + 3) / 4;
    unsigned long long uu = 0, vv = 0, r = 0;
    for (int level = 0; level < p.scale; ++level) {
        if (level % 4 == 0) r = gravel_rand64(p.seed, (unsigned long long)e * words + level / 4);
        const unsigned int x = (unsigned int)(r >> (16 * (level % 4))) & 0xFFFFu;
        const unsigned long long ub = x >= p.tb;
        const unsigned long long vb = (x >= p.ta) - ub + (x >= p.tc);
        uu |= ub << level;
        vv |= vb << level;
    }
    u = gravel_permute_id(uu, p.scale, p.perm);
    v = gravel_permute_id(vv, p.scale, p.perm);
}

// Pass 1: degree[row] += the arcs of edges first .. first + count - 1 (both ways when both_ways).
template <int KIND>
__global__ void gravel_generate_count(long long first, long long count, const unsigned long long *__restrict__ params,
                                      int both_ways, unsigned int *__restrict__ degree) {
    const gravel_edge_params p(params);
    GRAVEL_GRID_STRIDE(i, count) {
        vid_t u, v;
        gravel_make_edge<KIND>(first + i, p, u, v);
        if (u == v) continue;
        atomicAdd(&degree[u], 1u);
        if (both_ways) atomicAdd(&degree[v], 1u);
    }
}

// Pass 2: the arcs of edges first .. first + count - 1 whose row lies in [row0, row1), as keys.
template <int KIND>
__global__ void gravel_generate_slab(long long first, long long count, const unsigned long long *__restrict__ params,
                                     int both_ways, long long row0, long long row1,
                                     unsigned long long *__restrict__ keys, unsigned long long *__restrict__ len,
                                     unsigned long long cap) {
    const gravel_edge_params p(params);
    GRAVEL_GRID_STRIDE(i, count) {
        vid_t u, v;
        gravel_make_edge<KIND>(first + i, p, u, v);
        if (u == v) continue;
        if (u >= row0 && u < row1)
            gravel_emit<unsigned long long>(keys, len, cap, ((unsigned long long)(u - row0) << 32) | (unsigned int)v);
        if (both_ways && v >= row0 && v < row1)
            gravel_emit<unsigned long long>(keys, len, cap, ((unsigned long long)(v - row0) << 32) | (unsigned int)u);
    }
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {(void*)gravel_generate_count<0>, (void*)gravel_generate_count<1>,
                            (void*)gravel_generate_slab<0>, (void*)gravel_generate_slab<1>};
#endif
