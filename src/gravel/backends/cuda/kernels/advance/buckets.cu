// Delta-stepping's buckets kept on the device: multi-step advances (advance/steps.cuh) over the near
// frontier, and when it empties, the next bucket taken from the far pile in the same cooperative
// launch, so a run of buckets costs no host round trip. The functor pushes a vertex whose key reaches
// the split onto the pile (pile[0..min(*pile_len, pile_cap))) and returns true for one below it, which
// it stamps (stamp[v] = tag + step) so that each step outputs a vertex once. A bucket change finds the
// lowest key on the pile at or above the split, moves the split past it (by delta at least), and sends
// the pile's vertices below the new split to the near frontier, keeping the rest; stale entries (keys
// lowered below the old split since, which the near frontier has seen) are dropped, repeats stamped
// away. The split lives in split_at (double: the sum of widths, kept between launches) and split_f
// (float: the functor's, which every comparison here uses too).
#include "advance/steps.cuh"

// The next bucket: returns its vertices (appended to out through count), or -1 if no key on the pile
// reaches the split (the pile is then emptied). scratch = {lowest key's bits, kept}, reset on return.
__device__ long long gravel_next_bucket(cg::grid_group &grid, const float *keys, double &split, double delta,
                                        float *split_f, vid_t *pile, unsigned long long *pile_len, long long pile_cap,
                                        vid_t *spare, unsigned long long *scratch, unsigned int *stamp,
                                        unsigned int tag, vid_t *out, unsigned long long *count,
                                        unsigned long long room) {
    const long long k = min((long long)*(volatile unsigned long long *)pile_len, pile_cap);
    const float below = (float)split;  // the functor's split: keys below it went to the near frontier
    const long long first = grid.thread_rank(), stride = grid.size();
    for (long long i = first; i < k; i += stride) {
        const float key = keys[pile[i]];
        if (key >= below) atomicMin(&scratch[0], (unsigned long long)__float_as_uint(key));  // keys >= 0
    }
    grid.sync();
    const unsigned long long bits = *(volatile unsigned long long *)&scratch[0];
    if (bits == ~0ULL) {
        if (grid.thread_rank() == 0) *pile_len = 0;
        return -1;
    }
    const double next = fmax(split + delta, (floor((double)__uint_as_float((unsigned int)bits) / delta) + 1) * delta);
    const float above = (float)next;
    for (long long i = first; i < k; i += stride) {
        const vid_t v = pile[i];
        const float key = keys[v];
        if (key < below || atomicExch(&stamp[v], tag) == tag) continue;
        if (key < above) gravel_emit<vid_t>(out, count, room, v);
        else gravel_emit<vid_t>(spare, &scratch[1], (unsigned long long)pile_cap, v);
    }
    split = next;
    grid.sync();
    const long long kept = (long long)*(volatile unsigned long long *)&scratch[1];
    for (long long i = first; i < kept; i += stride) pile[i] = spare[i];
    if (grid.thread_rank() == 0) { *pile_len = kept; *split_f = above; }
    const long long made = (long long)*(volatile unsigned long long *)count;
    grid.sync();  // the pile and split set before the next step pushes onto it
    if (grid.thread_rank() == 0) { scratch[0] = ~0ULL; scratch[1] = 0; }
    return made;
}

// Steps and bucket changes from queue[begin, end), each appending a segment (bounds[s + 2] its end),
// until the pile and the near frontier are both empty (status[2] = 1), a segment holds more than
// `limit` items, `max_steps` advance steps have run, `max_segments` segments are appended, or fewer
// than `step_bound` entries of the queue remain. status = {segments, overflow, done}. Other
// arguments as for gravel_advance_steps.
template <int BLOCK, int PER_SM>
__global__ void __launch_bounds__(BLOCK, PER_SM)
gravel_advance_buckets(const offset_t *__restrict__ offsets, const vid_t *__restrict__ indices,
                       const float *__restrict__ weights, int weighted, vid_t *queue, long long cap, long long begin,
                       long long end, long long *bounds, int max_segments, long long limit, long long step_bound,
                       unsigned long long *counts, long long *status, int max_steps, const float *keys,
                       double *split_at, float *split_f, double delta, vid_t *pile, unsigned long long *pile_len,
                       long long pile_cap, vid_t *spare, unsigned long long *scratch, unsigned int *stamp,
                       unsigned int tag, vid_t *long_items, long long long_cap, long long long_min,
                       unsigned long long *long_counts GRAVEL_USER_PARAMS) {
    __shared__ GravelChunkStorage<BLOCK> s;
    cg::grid_group grid = cg::this_grid();
    double split = *split_at;
    int step = 0, relaxed = 0;
    bool overflow = false, done = false;
    while (true) {
        unsigned long long *count = counts + step % 3;  // in rotation, as in gravel_advance_steps
        const GravelLongs longs{long_items, long_counts + step % 3, long_cap, long_min};
        if (grid.thread_rank() == 0) counts[(step + 1) % 3] = long_counts[(step + 1) % 3] = 0;
        const unsigned long long room = (unsigned long long)(cap - end);
        long long made;
        if (begin == end) {
            made = gravel_next_bucket(grid, keys, split, delta, split_f, pile, pile_len, pile_cap, spare, scratch,
                                      stamp, tag + step, queue + end, count, room);
            if (made < 0) { done = true; break; }
        } else {
            if (relaxed >= max_steps) break;
            made = gravel_one_step<BLOCK>(s, grid, offsets, indices, weights, weighted, queue, begin, end, room,
                                          count, longs, step GRAVEL_USER_ARGS);
            ++relaxed;
        }
        overflow = made > cap - end;
        begin = end;
        end += overflow ? cap - end : made;
        ++step;
        if (grid.thread_rank() == 0) bounds[step + 1] = end;
        if (overflow || made > limit || step >= max_segments || cap - end < step_bound) break;
    }
    if (grid.thread_rank() == 0) { status[0] = step; status[1] = overflow; status[2] = done; *split_at = split; }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instances
void* gravel_instances[] = {(void*)gravel_advance_buckets<256, 4>};
#endif
