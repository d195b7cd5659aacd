// Frontier representation changes: a sparse queue of ids <-> a dense bitmap (one bit per vertex).
#include "common.cuh"

__global__ void gravel_queue_to_bitmap(const vid_t *__restrict__ ids, long long n, unsigned int *__restrict__ bitmap) {
    GRAVEL_GRID_STRIDE(i, n) {
        vid_t v = ids[i];
        atomicOr(&bitmap[v >> 5], 1u << (v & 31));
    }
}

// One thread per bitmap word: set bits become ids, appended per word (ids ascend within a word).
__global__ void gravel_bitmap_to_queue(const unsigned int *__restrict__ bitmap, long long words, vid_t *__restrict__ out,
                                       unsigned long long *__restrict__ out_len, unsigned long long cap) {
    GRAVEL_GRID_STRIDE(w, words) {
        unsigned int bits = bitmap[w];
        if (!bits) continue;
        unsigned long long base = atomicAdd(out_len, (unsigned long long)__popc(bits));
        while (bits) {
            int b = __ffs(bits) - 1;
            bits &= bits - 1;
            if (base < cap) out[base] = (vid_t)(w * 32 + b);
            ++base;
        }
    }
}
