// Pull steps repeated inside one cooperative launch (the bottom-up levels of a direction-optimizing
// traversal), with a grid-wide barrier between them: each step reads a bitmap frontier and writes the
// next, counted, so a run of pull levels costs one launch and one read-back, where a launch per level
// waits on the host's preparation of each. Three bitmaps rotate: step s reads bits[s % 3], writes
// bits[(s + 1) % 3] (zeroed by step s - 1, or before the launch) and zeroes bits[(s + 2) % 3], the last
// step's input, which step s + 1 writes. Counters rotate likewise (common.cuh: gravel_step_counter);
// sizes[s] receives step s's count; the steps stop after one that finds no vertex, or after max_steps.
#include "advance/pull.cuh"

template <int BLOCK, int PER_SM>
__global__ void __launch_bounds__(BLOCK, PER_SM)
gravel_advance_pull_steps(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                          const float *__restrict__ weights, int weighted, const vid_t *__restrict__ candidates,
                          int all, long long n_candidates, unsigned int *bits, long long words,
                          unsigned long long *counts, int max_steps, long long *sizes GRAVEL_USER_PARAMS) {
    cg::grid_group grid = cg::this_grid();
    for (int step = 0; step < max_steps; ++step) {
        const unsigned int *front = bits + (step % 3) * words;
        unsigned int *out = bits + ((step + 1) % 3) * words;
        unsigned int *after = bits + ((step + 2) % 3) * words;
        unsigned long long *count = gravel_step_counter(grid, counts, step);
        GRAVEL_GRID_STRIDE(w, words) after[w] = 0u;
        GRAVEL_GRID_STRIDE(i, n_candidates) {
            const vid_t dst = all ? (vid_t)i : candidates[i];
            if (gravel_pull_one(offsets, indices, weights, weighted, front, dst, step GRAVEL_USER_ARGS) >= 0)
                gravel_emit_bit(out, count, dst);
        }
        if (gravel_step_made(grid, count, step, sizes) == 0) break;
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instance
void* gravel_instances[] = {(void*)gravel_advance_pull_steps<256, 8>};
#endif
