// Advance repeated inside one cooperative launch, with a grid-wide barrier between steps. High-
// diameter graphs (roads, meshes) have thousands of thin levels; as separate launches each costs a scan,
// launches and a host round trip (a 2048x2048 grid's BFS has 4,093 levels). Frontiers live in one sliding queue: step s reads queue[bounds[s], bounds[s+1])
// and appends its output right after, so every step's frontier survives (Brandes' backward pass
// replays them with gravel_advance_replay). Each step's edges are balanced over inputs, a chunk of up to
// BLOCK items per block (advance/block_chunk.cuh), its items strided over the frontier: after a degree
// sort, consecutive chunks would put the hubs into a few blocks (docs/tuning.md).
// A list of long_min entries or more is not walked by its chunk's block: the chunk pass sets it aside,
// and after a barrier every block takes a share of those lists' edges (one block walking a hub's
// hundred thousand edges held the whole step back); a step without such lists pays no extra barrier.
#include "advance/steps.cuh"

// Steps run from queue[begin, end) until one outputs nothing or more than `limit` items, `max_steps`
// have run, or fewer than `step_bound` entries of the queue's `cap` remain. bounds[s + 2] receives the
// end of step s's output; status = {steps run, 1 if an output overflowed the queue}. long_items
// (room for long_cap) holds a step's long lists; counts and long_counts hold three counters each.
// PER_SM: the blocks per SM a launch may use; the launch bounds cap registers so that they fit.
template <int BLOCK, int PER_SM>
__global__ void __launch_bounds__(BLOCK, PER_SM)
gravel_advance_steps(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                     const float *__restrict__ weights, int weighted, vid_t *queue, long long cap, long long begin,
                     long long end, long long *bounds, int max_steps, long long limit, long long step_bound,
                     unsigned long long *counts, long long *status, vid_t *long_items, long long long_cap,
                     long long long_min, unsigned long long *long_counts GRAVEL_USER_PARAMS) {
    __shared__ GravelChunkStorage<BLOCK> s;
    cg::grid_group grid = cg::this_grid();
    int step = 0;
    bool overflow = false;
    while (true) {
        // three counters in rotation: this step's, the next one's (zeroed now), and the previous one's,
        // which slow threads may still be reading
        unsigned long long *count = counts + step % 3;
        const GravelLongs longs{long_items, long_counts + step % 3, long_cap, long_min};
        if (grid.thread_rank() == 0) counts[(step + 1) % 3] = long_counts[(step + 1) % 3] = 0;
        long long made = gravel_one_step<BLOCK>(s, grid, offsets, indices, weights, weighted, queue, begin, end,
                                                (unsigned long long)(cap - end), count, longs,
                                                step GRAVEL_USER_ARGS);
        overflow = made > cap - end;
        begin = end;
        end += overflow ? cap - end : made;
        ++step;
        if (grid.thread_rank() == 0) bounds[step + 1] = end;
        if (overflow || made == 0 || made > limit || step >= max_steps || cap - end < step_bound) break;
    }
    if (grid.thread_rank() == 0) { status[0] = step; status[1] = overflow; }
}

// Advance over recorded frontiers queue[bounds[s], bounds[s + 1]) for s in [first, last), in reverse
// when asked, one step each, with no output; the functor sees the step's index s. Long lists as above.
template <int BLOCK, int PER_SM>
__global__ void __launch_bounds__(BLOCK, PER_SM)
gravel_advance_replay(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                      const float *__restrict__ weights, int weighted, const vid_t *queue,
                      const long long *__restrict__ bounds, int first, int last, int reverse, vid_t *long_items,
                      long long long_cap, long long long_min, unsigned long long *long_counts GRAVEL_USER_PARAMS) {
    __shared__ GravelChunkStorage<BLOCK> s;
    cg::grid_group grid = cg::this_grid();
    for (int t = first; t < last; ++t) {
        int step = reverse ? last - 1 - (t - first) : t;
        long long b = bounds[step], e = bounds[step + 1];
        const GravelLongs longs{long_items, long_counts + t % 3, long_cap, long_min};
        if (grid.thread_rank() == 0) long_counts[(t + 1) % 3] = 0;
        gravel_step_chunks<0, BLOCK>(s, offsets, indices, weights, weighted, queue + b, e - b, &longs, nullptr, nullptr,
                                     0, step GRAVEL_USER_ARGS);
        grid.sync();
        if (gravel_step_longs<0, BLOCK>(s, offsets, indices, weights, weighted, longs, nullptr, nullptr, 0,
                                        step GRAVEL_USER_ARGS))
            grid.sync();
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_steps<256, 4>, (void*)gravel_advance_replay<256, 4>};
#endif
