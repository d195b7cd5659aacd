// Filter, inexact culling for idempotent traversals (Gunrock's bitmask + warp history hash):
// an item is dropped when the visited bitmask already has it, or when its warp saw the same id
// recently (a small hash table per warp in shared memory). Some duplicates may survive; no item that
// passes the predicate and is new is ever lost. Survivors are appended in no particular order.
#include "filter/filter.cuh"


#define GRAVEL_WARP_HASH 128

__global__ void gravel_filter_cull(const vid_t *__restrict__ frontier, long long n, unsigned int *__restrict__ bitmask,
                                   vid_t *__restrict__ out, unsigned long long *__restrict__ out_len,
                                   unsigned long long out_cap GRAVEL_USER_PARAMS) {
    extern __shared__ vid_t history[];  // GRAVEL_WARP_HASH entries per warp
    vid_t *gravel_hist = history + (threadIdx.x >> 5) * GRAVEL_WARP_HASH;
    for (int k = threadIdx.x & 31; k < GRAVEL_WARP_HASH; k += 32) gravel_hist[k] = -1;
    __syncwarp();
    GRAVEL_GRID_STRIDE(i, n) {
        const vid_t v = frontier[i];
        bool gravel_keep = gravel_filter_op(v, i GRAVEL_USER_ARGS);
        if (gravel_keep) {
            unsigned int gravel_bit = 1u << (v & 31);
            unsigned int gravel_word = bitmask[v >> 5];  // plain read: a racing duplicate may slip through
            if (gravel_word & gravel_bit) gravel_keep = false;
            else bitmask[v >> 5] = gravel_word | gravel_bit;    // racing writers may drop another's bit: re-set below
        }
        if (gravel_keep) {
            int gravel_h = (v * 2654435761u) % GRAVEL_WARP_HASH;
            if (gravel_hist[gravel_h] == v) gravel_keep = false;
            else gravel_hist[gravel_h] = v;
        }
        if (gravel_keep) {
            atomicOr(&bitmask[v >> 5], 1u << (v & 31));
            gravel_emit<vid_t>(out, out_len, out_cap, v);
        }
    }
}
