// Neighbor reduce, pull, over one part of a 1-D partition (gravel.distributed): the part's rows are
// its local vertices, their lists name global ids, which index an array gathered from every part.
// LANES lanes (a power of two, at most a warp) share a row, striding over its list, then a shuffle
// reduction; the row's first lane writes. The operators' pull takes square graphs (ids below n
// rows), which a part is not.
#include "common.cuh"

// Lanes of one row: the row, and this lane's place in it. A row past the last keeps its lanes in
// the shuffles (whose mask names the whole warp) over an empty list.
template <int LANES>
__device__ __forceinline__ long long gravel_part_row(int* lane) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    *lane = threadIdx.x & (LANES - 1);
    return t / LANES;
}

// PageRank's pull: new_rank[v] = base[v] + alpha * (sum over v's list of weight * contrib[u]) and
// err[v] = |new_rank[v] - rank[v]|; the contributions are float32 (all-gathered every iteration),
// the sums double.
template <int LANES>
__global__ void gravel_part_pull_rank(const offset_t* __restrict__ offsets, const vid_t* __restrict__ ids,
                                      const float* __restrict__ weights, int weighted,
                                      const float* __restrict__ contrib, const double* __restrict__ base, double alpha,
                                      const double* __restrict__ rank, double* __restrict__ new_rank,
                                      double* __restrict__ err, long long rows) {
    int lane;
    const long long v = gravel_part_row<LANES>(&lane);
    const bool on = v < rows;
    double s = 0.0;
    for (offset_t p = on ? offsets[v] + lane : 0, end = on ? offsets[v + 1] : 0; p < end; p += LANES) {
        const double c = (double)contrib[ids[p]];
        s += weighted ? (double)weights[p] * c : c;
    }
    for (int d = LANES / 2; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d, LANES);
    if (on && lane == 0) {
        const double x = base[v] + alpha * s;
        err[v] = fabs(x - rank[v]);
        new_rank[v] = x;
    }
}

// Connected components: out[v] = min(out[v], the smallest labels[u] over v's list).
template <int LANES>
__global__ void gravel_part_min_label(const offset_t* __restrict__ offsets, const vid_t* __restrict__ ids,
                                      const vid_t* __restrict__ labels, vid_t* __restrict__ out, long long rows) {
    int lane;
    const long long v = gravel_part_row<LANES>(&lane);
    const bool on = v < rows;
    vid_t s = 0x7fffffff;
    for (offset_t p = on ? offsets[v] + lane : 0, end = on ? offsets[v + 1] : 0; p < end; p += LANES)
        s = min(s, labels[ids[p]]);
    for (int d = LANES / 2; d > 0; d >>= 1) s = min(s, __shfl_down_sync(0xffffffffu, s, d, LANES));
    if (on && lane == 0 && s < out[v]) out[v] = s;
}

#ifdef GRAVEL_INSTANTIATE
void* gravel_instances[] = {
    (void*)gravel_part_pull_rank<1>,  (void*)gravel_part_pull_rank<2>,  (void*)gravel_part_pull_rank<4>,
    (void*)gravel_part_pull_rank<8>,  (void*)gravel_part_pull_rank<16>, (void*)gravel_part_pull_rank<32>,
    (void*)gravel_part_min_label<1>,  (void*)gravel_part_min_label<2>,  (void*)gravel_part_min_label<4>,
    (void*)gravel_part_min_label<8>,  (void*)gravel_part_min_label<16>, (void*)gravel_part_min_label<32>};
#endif
