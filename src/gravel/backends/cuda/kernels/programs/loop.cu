// A vertex program's whole run loop in one cooperative launch (gravel.programs.fused): every
// iteration's send, pull or push, reduce, apply, active count and push/pull switch on the device,
// a grid-wide barrier between the phases, the host reading nothing until the loop stops (no vertex
// active, max_iter iterations, or `chunk` iterations in this launch).
//
// The program arrives as macros written by gravel/programs/fused.py (the defaults below, a BFS,
// make the file compile on its own). Its arrays arrive as user parameters: the state st<i>[n], the
// messages ms<i>[2n] and active flags gact[2n] (double-buffered by the iteration's parity, so that
// a pull reads the senders' current ones while the vertices it finishes write their next ones), and
// for a push the totals tt<i>[n] and received flags grcv[n], folded by atomics and reset to the
// identity where the apply reads them. A vertex's send runs where it applies (its next message),
// so no pass over the vertices writes the messages.
//
// A pull folds, for each vertex that listens, process() of every in-arc from a sender: a warp takes
// 32 vertices and walks their lists as one run of arcs, 32 at a time (as neighbor_reduce/pull_steps),
// each run folding into its vertex by shuffles; lists of long_list arcs or more take a block each.
// With reduce "any" (GRAVEL_PROG_ANY) a thread takes a vertex and stops at its first sender (a
// bottom-up BFS step). The vertex is finished (apply, next active flag, next message) where its
// fold ends. A push walks the active vertices' out-lists the same way and folds into the totals by
// atomics (skipping vertices that do not listen); after a barrier every vertex applies its totals.
//
// Each phase counts the vertices it leaves active and (where the push/pull choice reads them) the
// arcs a push from them reads, one shared atomic per warp and one global one per block, into a
// slot of `counts` (three slots of two, in rotation as common.cuh's gravel_step_counter). After
// the barrier every thread reads the same counts and takes the same decision: stop, pull or push
// (mode 0: push where the program can, not every vertex is a sender and the active vertices' arcs
// are at most dense_arcs; 1: pull; 2: push).
// log[0..2] receives (iterations run, active vertices left, start time), log[3(s+1)..] each
// iteration's (active vertices, pushed, end time in ns of the device's global timer).

#ifndef GRAVEL_PROG_DEFINED
// the stand-in program: BFS depths (int32) from vertex 0, "any" reduce, listeners unreached
#define GRAVEL_PROG_WAYS 1
#define GRAVEL_PROG_ANY 1
#define GRAVEL_PROG_ALL_SEND 0
#define GRAVEL_PROG_WEIGHTED 0
#define GRAVEL_PROG_CAN_PUSH 1
#define GRAVEL_USER_PARAMS , int *gravel_p_st0, int *gravel_p_ms0, int *gravel_p_tt0, unsigned char *gravel_p_gact, unsigned char *gravel_p_grcv
#define GRAVEL_USER_ARGS , gravel_p_st0, gravel_p_ms0, gravel_p_tt0, gravel_p_gact, gravel_p_grcv
#define GRAVEL_USER_FN_PARAMS , int *st0, int *ms0, int *tt0, unsigned char *gact, unsigned char *grcv
struct gravel_msg { int f0; };
#define GRAVEL_PROG_IDENTITY gravel_msg{2147483647}
#define GRAVEL_PROG_FOLD(a, b) gravel_msg{(a.f0) < (b.f0) ? (a.f0) : (b.f0)}
#define GRAVEL_PROG_SHFL_DOWN(a, d) gravel_msg{__shfl_down_sync(0xffffffffu, a.f0, d)}
#define GRAVEL_PROG_LISTENS(v) (st0[v] < 0)
#define GRAVEL_PROG_SENDS(u, cur) (gact[cur + u] != 0)
#define GRAVEL_PROG_PROCESS(u, v, weight, cur) gravel_msg{(int)(ms0[cur + u])}
#define GRAVEL_PROG_PUSH(v, x) { gravel_atomic_fold<int, 1>(&tt0[v], x.f0); grcv[v] = 1; }
#define GRAVEL_PROG_TAKE(v, t) { t.f0 = tt0[v]; tt0[v] = 2147483647; }
#define GRAVEL_PROG_START(v, init, cur, giter, act) { if (init) st0[v] = v == 0 ? 0 : -1; act = v == 0; gact[cur + v] = act; if (act) ms0[cur + v] = st0[v] + 1; }
#define GRAVEL_PROG_ACTIVE(v, cur) (gact[cur + v] != 0)
#define GRAVEL_PROG_FINISH(v, got, t, giter, nxt, act) { act = false; if (got) { const int o0 = st0[v]; if (o0 < 0) { st0[v] = t.f0; act = t.f0 != o0; } } gact[nxt + v] = act; if (act) ms0[nxt + v] = st0[v] + 1; }
#endif

#include "common.cuh"

#define GRAVEL_PROG_FULL 0xffffffffu

// Each macro evaluated in a device function of its own, which sees the program's arrays and
// parameters under their own names (GRAVEL_USER_FN_PARAMS) and none of the kernel's locals.
__device__ __forceinline__ bool gravel_prog_listens(vid_t v GRAVEL_USER_FN_PARAMS) {
    (void)v;
    return GRAVEL_PROG_LISTENS(v);
}
__device__ __forceinline__ bool gravel_prog_sends(vid_t u, offset_t cur GRAVEL_USER_FN_PARAMS) {
    (void)u; (void)cur;
    return GRAVEL_PROG_SENDS(u, cur);
}
__device__ __forceinline__ gravel_msg gravel_prog_process(vid_t u, vid_t v, float weight, offset_t cur GRAVEL_USER_FN_PARAMS) {
    (void)u; (void)v; (void)weight; (void)cur;
    return GRAVEL_PROG_PROCESS(u, v, weight, cur);
}
__device__ __forceinline__ gravel_msg gravel_prog_fold(const gravel_msg &a, const gravel_msg &b) {
    return GRAVEL_PROG_FOLD(a, b);
}
__device__ __forceinline__ gravel_msg gravel_prog_shfl_down(const gravel_msg &a, int d) {
    return GRAVEL_PROG_SHFL_DOWN(a, d);
}
// The starting state (where `init`), flag and message of v; whether it is active.
__device__ __forceinline__ bool gravel_prog_start(vid_t v, int init, offset_t cur, int giter GRAVEL_USER_FN_PARAMS) {
    bool act = false;
    (void)giter;
    GRAVEL_PROG_START(v, init, cur, giter, act);
    return act;
}
__device__ __forceinline__ bool gravel_prog_active(vid_t v, offset_t cur GRAVEL_USER_FN_PARAMS) {
    return GRAVEL_PROG_ACTIVE(v, cur);
}
// v's apply where it received (`got`, its total `t`) and listens, its next flag and message;
// whether it is active next.
__device__ __forceinline__ bool gravel_prog_finish(vid_t v, bool got, const gravel_msg &t, int giter,
                                                   offset_t nxt GRAVEL_USER_FN_PARAMS) {
    bool act = false;
    (void)t; (void)giter;
    GRAVEL_PROG_FINISH(v, got, t, giter, nxt, act);
    return act;
}
#if GRAVEL_PROG_CAN_PUSH
__device__ __forceinline__ void gravel_prog_push(vid_t v, const gravel_msg &x GRAVEL_USER_FN_PARAMS) {
    GRAVEL_PROG_PUSH(v, x);
}
// Whether v received in a push; its totals into t, reset to the identity for the next push.
__device__ __forceinline__ bool gravel_prog_take(vid_t v, gravel_msg &t GRAVEL_USER_FN_PARAMS) {
    if (!grcv[v]) return false;
    grcv[v] = 0;
    GRAVEL_PROG_TAKE(v, t);
    return true;
}
#endif

// One way's lists or two (a program's messages along out-edges and in-edges both).
struct gravel_prog_lists {
    const offset_t *off[2];
    const vid_t *idx[2];
    const float *w[2];
};

// v's arcs along every way: where each way's list starts, the first way's length, the total.
struct gravel_prog_span {
    offset_t s0, d0, s1, d;
};

__device__ __forceinline__ gravel_prog_span gravel_prog_span_of(const gravel_prog_lists &l, vid_t v) {
    gravel_prog_span s;
    s.s0 = l.off[0][v];
    s.d0 = l.off[0][v + 1] - s.s0;
    s.s1 = 0;
    s.d = s.d0;
    if (GRAVEL_PROG_WAYS == 2) {
        s.s1 = l.off[1][v];
        s.d += l.off[1][v + 1] - s.s1;
    }
    return s;
}

// The neighbour at position p (0 <= p < d) of a span, and the arc's weight (1 where unread).
__device__ __forceinline__ vid_t gravel_prog_arc(const gravel_prog_lists &l, offset_t s0, offset_t d0, offset_t s1,
                                                 offset_t p, float &weight) {
    // constant indices into l: a runtime one would put the lists in local memory
    const bool second = GRAVEL_PROG_WAYS == 2 && p >= d0;
    const offset_t e = second ? s1 + (p - d0) : s0 + p;
    weight = GRAVEL_PROG_WEIGHTED ? (second ? l.w[1] : l.w[0])[e] : 1.0f;
    return (second ? l.idx[1] : l.idx[0])[e];
}

// Read the device's global timer (ns).
__device__ __forceinline__ long long gravel_prog_clock() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}

// Add this thread's count and arcs to the block's, then the block's to slot[0..1] (thread 0, after a
// block barrier; every thread of the block calls it). `tally` is zero again on return for thread 0's
// next use, which follows a grid barrier.
__device__ __forceinline__ void gravel_prog_flush(unsigned long long c, unsigned long long a, unsigned long long *slot,
                                                  unsigned long long *tally) {
    for (int d = 16; d > 0; d >>= 1) {
        c += __shfl_down_sync(GRAVEL_PROG_FULL, c, d);
        a += __shfl_down_sync(GRAVEL_PROG_FULL, a, d);
    }
    if ((threadIdx.x & 31) == 0 && (c | a)) {
        atomicAdd(&tally[0], c);
        atomicAdd(&tally[1], a);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (tally[0] | tally[1]) {
            atomicAdd(&slot[0], tally[0]);
            atomicAdd(&slot[1], tally[1]);
        }
        tally[0] = tally[1] = 0;
    }
}

// The exclusive start of each lane's `degree` within the warp's run of arcs, and the run's total.
__device__ __forceinline__ offset_t gravel_prog_scan(offset_t degree, offset_t &total) {
    const int lane = threadIdx.x & 31;
    offset_t end = degree;
    for (int d = 1; d < 32; d <<= 1) {
        const offset_t t = __shfl_up_sync(GRAVEL_PROG_FULL, end, d);
        if (lane >= d) end += t;
    }
    total = __shfl_sync(GRAVEL_PROG_FULL, end, 31);
    return end - degree;
}

// The last lane whose run of arcs starts at or before p (the lanes' starts do not decrease): p's owner.
__device__ __forceinline__ int gravel_prog_owner(offset_t first, offset_t p) {
    int owner = 0;
    for (int half = 16; half > 0; half >>= 1)
        if (__shfl_sync(GRAVEL_PROG_FULL, first, owner + half) <= p) owner += half;
    return owner;
}

template <int BLOCK, int PER_SM>
__global__ void __launch_bounds__(BLOCK, PER_SM)
gravel_program_loop(const offset_t *__restrict__ in_off0, const vid_t *__restrict__ in_idx0,
                    const float *__restrict__ in_w0, const offset_t *__restrict__ in_off1,
                    const vid_t *__restrict__ in_idx1, const float *__restrict__ in_w1,
                    const offset_t *__restrict__ out_off0, const vid_t *__restrict__ out_idx0,
                    const float *__restrict__ out_w0, const offset_t *__restrict__ out_off1,
                    const vid_t *__restrict__ out_idx1, const float *__restrict__ out_w1,
                    const vid_t *__restrict__ long_in, long long n_long_in, const vid_t *__restrict__ long_out,
                    long long n_long_out, long long long_list, long long n, int first, int init, int iter0,
                    int max_iter, int chunk, int mode, double dense_arcs, unsigned long long *counts,
                    long long *log GRAVEL_USER_PARAMS) {
    static_assert(BLOCK % 32 == 0, "whole warps");
    cg::grid_group grid = cg::this_grid();
    __shared__ gravel_msg acc[BLOCK];  // each lane's vertex's fold so far (a warp's run of arcs)
    __shared__ unsigned char heard[BLOCK];  // whether it has met a sender
#if !GRAVEL_PROG_ANY
    __shared__ gravel_msg red[BLOCK / 32];  // a long list's fold, warp by warp
    __shared__ int red_heard[BLOCK / 32];
#endif
    __shared__ unsigned long long tally[2];
    if (threadIdx.x == 0) tally[0] = tally[1] = 0;
    __syncthreads();
    const gravel_prog_lists in = {{in_off0, in_off1}, {in_idx0, in_idx1}, {in_w0, in_w1}};
    const gravel_prog_lists out = {{out_off0, out_off1}, {out_idx0, out_idx1}, {out_w0, out_w1}};
    (void)long_in; (void)n_long_in; (void)long_out; (void)n_long_out;
    const int lane = threadIdx.x & 31;
    const long long thread = blockIdx.x * (long long)BLOCK + threadIdx.x;
    const long long threads = (long long)gridDim.x * BLOCK;
    const long long warp = thread >> 5, warps = threads >> 5;
    gravel_msg *const warp_acc = acc + (threadIdx.x & ~31);
    unsigned char *const warp_heard = heard + (threadIdx.x & ~31);
    // only the push/pull choice reads the active vertices' arcs
    const bool count_arcs = !GRAVEL_PROG_ALL_SEND && GRAVEL_PROG_CAN_PUSH && mode == 0;
    const long long t0 = gravel_prog_clock();

    {  // the starting flags (and state, messages) on a first launch; the count of the active ones
        const offset_t cur = (offset_t)(iter0 & 1) * n;
        unsigned long long c = 0, a = 0;
        for (long long i = thread; i < n; i += threads) {
            const vid_t v = (vid_t)i;
            const bool act = first ? gravel_prog_start(v, init, cur, iter0 GRAVEL_USER_ARGS)
                                   : gravel_prog_active(v, cur GRAVEL_USER_ARGS);
            if (act) {
                ++c;
                if (count_arcs) a += gravel_prog_span_of(out, v).d;
            }
        }
        gravel_prog_flush(c, a, counts, tally);  // slot 0
    }
    grid.sync();
    long long count = (long long)*(volatile unsigned long long *)&counts[0];
    long long arcs = (long long)*(volatile unsigned long long *)&counts[1];
    int s = 0;
    for (; count > 0 && iter0 + s < max_iter && s < chunk; ++s) {
        const int it = iter0 + s;
        const offset_t cur = (offset_t)(it & 1) * n, nxt = (offset_t)((it + 1) & 1) * n;
        unsigned long long *const slot = counts + 2 * ((s + 1) % 3);
        if (grid.thread_rank() == 0) {  // read by every thread before the barrier that ended step s - 1
            counts[2 * ((s + 2) % 3)] = 0;
            counts[2 * ((s + 2) % 3) + 1] = 0;
        }
        const bool dense = GRAVEL_PROG_ALL_SEND || count == n || (double)arcs > dense_arcs;
        const bool push = GRAVEL_PROG_CAN_PUSH && (mode == 2 || (mode == 0 && !dense));
        if (grid.thread_rank() == 0) {
            log[3 * (s + 1)] = count;
            log[3 * (s + 1) + 1] = push;
        }
        unsigned long long c = 0, a = 0;
        if (!push) {
#if GRAVEL_PROG_ANY
            // a thread a vertex, up to its first sender
            for (long long i = thread; i < n; i += threads) {
                const vid_t v = (vid_t)i;
                gravel_msg x = GRAVEL_PROG_IDENTITY;
                bool got = false;
                if (gravel_prog_listens(v GRAVEL_USER_ARGS)) {
                    const gravel_prog_span sp = gravel_prog_span_of(in, v);
                    for (offset_t p = 0; p < sp.d; ++p) {
                        float weight;
                        const vid_t u = gravel_prog_arc(in, sp.s0, sp.d0, sp.s1, p, weight);
                        if (gravel_prog_sends(u, cur GRAVEL_USER_ARGS)) {
                            x = gravel_prog_process(u, v, weight, cur GRAVEL_USER_ARGS);
                            got = true;
                            break;
                        }
                    }
                }
                if (gravel_prog_finish(v, got, x, it, nxt GRAVEL_USER_ARGS)) {
                    ++c;
                    if (count_arcs) a += gravel_prog_span_of(out, v).d;
                }
            }
#else
            // a warp 32 vertices, their short lists as one run of arcs
            for (long long base = warp * 32; base < n; base += warps * 32) {
                const long long i = base + lane;
                const vid_t v = (vid_t)(i < n ? i : 0);
                bool mine = false;  // v is finished here (its list is short)
                offset_t s0 = 0, d0 = 0, s1 = 0, degree = 0;
                if (i < n) {
                    const gravel_prog_span sp = gravel_prog_span_of(in, v);
                    mine = sp.d < long_list;
                    if (mine && gravel_prog_listens(v GRAVEL_USER_ARGS)) {
                        s0 = sp.s0;
                        d0 = sp.d0;
                        s1 = sp.s1;
                        degree = sp.d;
                    }
                }
                offset_t total;
                const offset_t start = gravel_prog_scan(degree, total);
                warp_acc[lane] = GRAVEL_PROG_IDENTITY;
                warp_heard[lane] = 0;
                __syncwarp();
                for (offset_t chunk0 = 0; chunk0 < total; chunk0 += 32) {
                    const offset_t p = chunk0 + lane;
                    const int owner = gravel_prog_owner(start, p);
                    const vid_t item = __shfl_sync(GRAVEL_PROG_FULL, v, owner);
                    const offset_t q = p - __shfl_sync(GRAVEL_PROG_FULL, start, owner);
                    const offset_t os0 = __shfl_sync(GRAVEL_PROG_FULL, s0, owner);
                    // the second way's (none on one way)
                    const offset_t od0 = GRAVEL_PROG_WAYS == 2 ? __shfl_sync(GRAVEL_PROG_FULL, d0, owner) : 0;
                    const offset_t os1 = GRAVEL_PROG_WAYS == 2 ? __shfl_sync(GRAVEL_PROG_FULL, s1, owner) : 0;
                    const bool arc = p < total;
                    gravel_msg x = GRAVEL_PROG_IDENTITY;
                    int got = 0;
                    if (arc) {
                        float weight;
                        const vid_t u = gravel_prog_arc(in, os0, od0, os1, q, weight);
                        if (gravel_prog_sends(u, cur GRAVEL_USER_ARGS)) {
                            x = gravel_prog_process(u, item, weight, cur GRAVEL_USER_ARGS);
                            got = 1;
                        }
                    }
                    const int key = arc ? owner : 32;  // past the arcs: a run of its own
                    for (int d = 1; d < 32; d <<= 1) {  // every lane shuffles, whichever folds
                        const gravel_msg t = gravel_prog_shfl_down(x, d);
                        const int tg = __shfl_down_sync(GRAVEL_PROG_FULL, got, d);
                        const int k = __shfl_down_sync(GRAVEL_PROG_FULL, key, d);
                        if (lane + d < 32 && k == key) {
                            x = gravel_prog_fold(x, t);
                            got |= tg;
                        }
                    }
                    const int previous = __shfl_up_sync(GRAVEL_PROG_FULL, key, 1);
                    if (arc && (lane == 0 || previous != key)) {  // the run's first lane holds its fold
                        warp_acc[owner] = gravel_prog_fold(warp_acc[owner], x);
                        warp_heard[owner] |= (unsigned char)got;
                    }
                    __syncwarp();
                }
                if (mine && gravel_prog_finish(v, warp_heard[lane] != 0, warp_acc[lane], it, nxt GRAVEL_USER_ARGS)) {
                    ++c;
                    if (count_arcs) a += gravel_prog_span_of(out, v).d;
                }
                __syncwarp();
            }
            // a block a long list
            for (long long j = blockIdx.x; j < n_long_in; j += gridDim.x) {
                const vid_t v = long_in[j];
                gravel_msg x = GRAVEL_PROG_IDENTITY;
                int got = 0;
                if (gravel_prog_listens(v GRAVEL_USER_ARGS)) {
                    const gravel_prog_span sp = gravel_prog_span_of(in, v);
                    for (offset_t p = threadIdx.x; p < sp.d; p += BLOCK) {
                        float weight;
                        const vid_t u = gravel_prog_arc(in, sp.s0, sp.d0, sp.s1, p, weight);
                        if (gravel_prog_sends(u, cur GRAVEL_USER_ARGS)) {
                            x = gravel_prog_fold(x, gravel_prog_process(u, v, weight, cur GRAVEL_USER_ARGS));
                            got = 1;
                        }
                    }
                }
                for (int d = 16; d > 0; d >>= 1) {
                    const gravel_msg t = gravel_prog_shfl_down(x, d);
                    got |= __shfl_down_sync(GRAVEL_PROG_FULL, got, d);
                    x = gravel_prog_fold(x, t);
                }
                if (lane == 0) {
                    red[threadIdx.x >> 5] = x;
                    red_heard[threadIdx.x >> 5] = got;
                }
                __syncthreads();
                if (threadIdx.x == 0) {
                    for (int w = 1; w < BLOCK / 32; ++w) {
                        x = gravel_prog_fold(x, red[w]);
                        got |= red_heard[w];
                    }
                    if (gravel_prog_finish(v, got != 0, x, it, nxt GRAVEL_USER_ARGS)) {
                        ++c;
                        if (count_arcs) a += gravel_prog_span_of(out, v).d;
                    }
                }
                __syncthreads();  // red is read before the next list writes it
            }
#endif
        }
#if GRAVEL_PROG_CAN_PUSH
        else {
            // the active vertices' short out-lists, a warp's 32 vertices as one run of arcs
            for (long long base = warp * 32; base < n; base += warps * 32) {
                const long long i = base + lane;
                const vid_t u = (vid_t)(i < n ? i : 0);
                offset_t s0 = 0, d0 = 0, s1 = 0, degree = 0;
                if (i < n && gravel_prog_sends(u, cur GRAVEL_USER_ARGS)) {
                    const gravel_prog_span sp = gravel_prog_span_of(out, u);
                    if (sp.d < long_list) {
                        s0 = sp.s0;
                        d0 = sp.d0;
                        s1 = sp.s1;
                        degree = sp.d;
                    }
                }
                offset_t total;
                const offset_t start = gravel_prog_scan(degree, total);
                for (offset_t chunk0 = 0; chunk0 < total; chunk0 += 32) {
                    const offset_t p = chunk0 + lane;
                    const int owner = gravel_prog_owner(start, p);
                    const vid_t sender = __shfl_sync(GRAVEL_PROG_FULL, u, owner);
                    const offset_t q = p - __shfl_sync(GRAVEL_PROG_FULL, start, owner);
                    const offset_t os0 = __shfl_sync(GRAVEL_PROG_FULL, s0, owner);
                    // the second way's (none on one way)
                    const offset_t od0 = GRAVEL_PROG_WAYS == 2 ? __shfl_sync(GRAVEL_PROG_FULL, d0, owner) : 0;
                    const offset_t os1 = GRAVEL_PROG_WAYS == 2 ? __shfl_sync(GRAVEL_PROG_FULL, s1, owner) : 0;
                    if (p < total) {
                        float weight;
                        const vid_t v = gravel_prog_arc(out, os0, od0, os1, q, weight);
                        if (gravel_prog_listens(v GRAVEL_USER_ARGS))
                            gravel_prog_push(v, gravel_prog_process(sender, v, weight, cur GRAVEL_USER_ARGS) GRAVEL_USER_ARGS);
                    }
                }
            }
            // a block a long out-list
            for (long long j = blockIdx.x; j < n_long_out; j += gridDim.x) {
                const vid_t u = long_out[j];
                if (!gravel_prog_sends(u, cur GRAVEL_USER_ARGS)) continue;  // block-uniform
                const gravel_prog_span sp = gravel_prog_span_of(out, u);
                for (offset_t p = threadIdx.x; p < sp.d; p += BLOCK) {
                    float weight;
                    const vid_t v = gravel_prog_arc(out, sp.s0, sp.d0, sp.s1, p, weight);
                    if (gravel_prog_listens(v GRAVEL_USER_ARGS))
                        gravel_prog_push(v, gravel_prog_process(u, v, weight, cur GRAVEL_USER_ARGS) GRAVEL_USER_ARGS);
                }
            }
            grid.sync();  // every total folded
            for (long long i = thread; i < n; i += threads) {
                const vid_t v = (vid_t)i;
                gravel_msg t = GRAVEL_PROG_IDENTITY;
                const bool got = gravel_prog_take(v, t GRAVEL_USER_ARGS);
                if (gravel_prog_finish(v, got, t, it, nxt GRAVEL_USER_ARGS)) {
                    ++c;
                    if (count_arcs) a += gravel_prog_span_of(out, v).d;
                }
            }
        }
#endif
        gravel_prog_flush(c, a, slot, tally);
        grid.sync();
        count = (long long)*(volatile unsigned long long *)&slot[0];
        arcs = (long long)*(volatile unsigned long long *)&slot[1];
        if (grid.thread_rank() == 0) log[3 * (s + 1) + 2] = gravel_prog_clock();
    }
    if (grid.thread_rank() == 0) {
        log[0] = s;
        log[1] = count;
        log[2] = t0;
    }
}

#ifdef GRAVEL_INSTANTIATE  // CI compiles every kernel with nvcc: force the instance
void *gravel_instances[] = {(void *)gravel_program_loop<256, 4>};
#endif
