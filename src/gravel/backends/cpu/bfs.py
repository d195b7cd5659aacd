"""Direction-optimizing BFS kernels (Beamer et al.; GAP's bfs.cc), parallel with Numba.

The top-down levels claim each vertex with a compare-and-swap on ``parent[v]`` (atomics.py), as
GAP's do: exactly one claimant wins; each chunk gathers its wins in a buffer of its own and copies
them into the next frontier at a place one atomic add reserves (GAP's QueueBuffer). The
bottom-up steps read and write frontiers as bitmaps of uint64 words, a bit per vertex (GAP's
Bitmap): an eighth of a byte map, so that the frontier a pull tests at random stays in cache.
"""

import numba
import numpy as np

from . import atomics

#: claims a chunk of a parallel top-down level gathers before it reserves their room in the next
#: frontier with one atomic add (GAP's QueueBuffer)
LOCAL_CLAIMS = 1024


@numba.njit(cache=True, inline="always")
def _append(queue, claims, count, at):
    """queue[at : at + count] = claims[:count], element by element: as a slice copy inside the
    parallel loop, Numba asserts the two sizes equal and finds them not."""
    for q in range(count):
        queue[at + q] = claims[q]


@numba.njit(parallel=True, cache=True)
def top_down_levels(
    offsets,
    indices,
    frontier,
    parent,
    depth,
    level,
    unexplored,
    alpha,
    serial_below,
    budget,
    chunks,
):
    """Top-down levels from `frontier` (at `level`), a run of them in one call: each claims every
    unvisited out-neighbour of the frontier with a compare-and-swap on ``parent[v]``, as GAP's
    does, so that exactly one claimant wins. A level of fewer than `serial_below` vertices runs
    on this thread (a parallel region costs more than its work); a bigger one in `chunks`
    parallel pieces, each gathering its claims (LOCAL_CLAIMS at a time) and copying them into
    the next frontier at a place one atomic add reserves, in one parallel region a level.

    The run stops before a level whose frontier's out-arcs `scout` exceed `unexplored` / `alpha`
    (Beamer's switch to bottom-up; alpha 0: never), after a level once the call has scanned
    `budget` arcs or more (the caller's loop stays interruptible), or when no vertex is left.
    Returns (the frontier, int32, in no set order; its level; `unexplored` less the arcs scanned;
    `scout`)."""
    cur = np.empty(parent.shape[0], np.int32)
    nxt = np.empty_like(cur)
    nf = frontier.shape[0]
    cur[:nf] = frontier
    scout = 0
    for i in range(nf):
        scout += offsets[frontier[i] + 1] - offsets[frontier[i]]
    local = np.empty((chunks, LOCAL_CLAIMS), np.int32)
    claims = np.empty(chunks, np.int64)
    # the claims of this call's parallel levels so far, counted by atomic adds alone: Numba may
    # move a plain read or write of it across a parallel loop, whose atomics it does not see
    tail = np.zeros(1, np.int64)
    base = 0  # tail's count before this level
    scanned = 0
    while nf > 0 and scout * alpha <= unexplored and scanned < budget:
        unexplored -= scout
        scanned += scout
        level += 1
        found = 0
        if nf < serial_below:
            k = 0
            for i in range(nf):
                u = cur[i]
                for p in range(offsets[u], offsets[u + 1]):
                    v = indices[p]
                    if parent[v] < 0:
                        parent[v] = u
                        depth[v] = level
                        nxt[k] = v
                        k += 1
                        found += offsets[v + 1] - offsets[v]
        else:
            for c in numba.prange(chunks):
                j, kept = 0, 0
                for i in range(nf * c // chunks, nf * (c + 1) // chunks):
                    u = cur[i]
                    for p in range(offsets[u], offsets[u + 1]):
                        v = np.int64(indices[p])
                        old = parent[v]
                        if old < 0 and atomics.compare_exchange(parent, v, old, u) == old:
                            depth[v] = level
                            found += offsets[v + 1] - offsets[v]
                            local[c, j] = v
                            j += 1
                            if j == LOCAL_CLAIMS:
                                _append(nxt, local[c], j, atomics.add(tail, 0, j) - base)
                                kept, j = kept + j, 0
                if j:
                    _append(nxt, local[c], j, atomics.add(tail, 0, j) - base)
                claims[c] = kept + j
            k = claims.sum()
            base += k
        cur, nxt = nxt, cur
        nf, scout = k, found
    return cur[:nf].copy(), level, unexplored, scout


ONE = np.uint64(1)


def bitmap_words(n):
    """The uint64 words of a bitmap of `n` vertices."""
    return (n + 63) // 64


@numba.njit(parallel=True, cache=True)
def bottom_up_step(in_offsets, in_indices, front, nxt, parent, depth, level):
    """Every unvisited vertex looks for a parent in the frontier bitmap `front`, stopping at the
    first; the finders make the bitmap `nxt`. A thread builds whole words of `nxt` (64 vertices),
    so no two threads write one word."""
    n = parent.shape[0]
    awake = 0
    for w in numba.prange(nxt.shape[0]):
        bits = np.uint64(0)
        lo = w * 64
        for v in range(lo, min(lo + 64, n)):
            if parent[v] < 0:
                for p in range(in_offsets[v], in_offsets[v + 1]):
                    u = np.uint64(in_indices[p])  # unsigned: no test for negative indices
                    if (front[u >> np.uint64(6)] >> (u & np.uint64(63))) & ONE:
                        parent[v] = np.int32(u)
                        depth[v] = level
                        bits |= ONE << np.uint64(v - lo)
                        awake += 1
                        break
        nxt[w] = bits
    return awake


@numba.njit(parallel=True, cache=True)
def queue_to_bitmap(queue, bitmap):
    """Set the bits of the vertices of `queue` in `bitmap`, cleared first."""
    bitmap[:] = 0
    for i in numba.prange(queue.shape[0]):
        u = queue[i]
        atomics.bit_or(bitmap, u >> 6, ONE << np.uint64(u & 63))


@numba.njit(parallel=True, cache=True)
def bitmap_to_queue(bitmap, chunks):
    """The vertices whose bits are set, in increasing order (int32)."""
    words = bitmap.shape[0]
    counts = np.zeros(chunks + 1, np.int64)
    for c in numba.prange(chunks):
        s = 0
        for w in range(words * c // chunks, words * (c + 1) // chunks):
            x = bitmap[w]
            while x:
                x &= x - ONE
                s += 1
        counts[c + 1] = s
    counts = np.cumsum(counts)
    out = np.empty(counts[-1], np.int32)
    for c in numba.prange(chunks):
        j = counts[c]
        for w in range(words * c // chunks, words * (c + 1) // chunks):
            x = bitmap[w]
            v = w * 64
            while x:
                if x & ONE:
                    out[j] = v
                    j += 1
                x >>= ONE
                v += 1
    return out


@numba.njit(parallel=True, cache=True)
def degree_sum(offsets, frontier):
    s = 0
    for i in numba.prange(frontier.shape[0]):
        u = frontier[i]
        s += offsets[u + 1] - offsets[u]
    return s


@numba.njit(cache=True)
def top_down_serial(offsets, indices, source, parent, depth):
    """The whole BFS from `source` (its parent and depth already set) on this thread, a FIFO
    queue in one array: graphs of up to SMALL_ARCS arcs, which it finishes before the parallel
    kernels would have compiled. Returns the levels expanded (the largest depth plus one, as
    :func:`top_down_levels` counts them)."""
    queue = np.empty(parent.shape[0], np.int32)
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if parent[v] < 0:
                parent[v] = u
                depth[v] = depth[u] + 1
                queue[tail] = v
                tail += 1
    return depth[queue[tail - 1]] + 1
