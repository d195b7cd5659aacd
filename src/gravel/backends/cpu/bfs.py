"""Direction-optimizing BFS kernels (Beamer et al.; GAP's bfs.cc), parallel with Numba.

The top-down step claims each vertex with a compare-and-swap on ``parent[v]`` (atomics.py), as
GAP's does: exactly one claimant wins, and each chunk lists its wins in its own slice. The
bottom-up steps read and write frontiers as bitmaps of uint64 words, a bit per vertex (GAP's
Bitmap): an eighth of a byte map, so that the frontier a pull tests at random stays in cache.
"""

import numba
import numpy as np

from . import atomics


@numba.njit(parallel=True, cache=True)
def top_down_step(offsets, indices, frontier, parent, depth, level, chunks):
    nf = frontier.shape[0]
    bounds = np.empty(chunks + 1, np.int64)
    for c in range(chunks + 1):
        bounds[c] = nf * c // chunks
    # each chunk writes its claims into its own slice of the buffer, sized by its out-edges
    edge_start = np.zeros(chunks + 1, np.int64)
    for c in numba.prange(chunks):
        s = 0
        for i in range(bounds[c], bounds[c + 1]):
            u = frontier[i]
            s += offsets[u + 1] - offsets[u]
        edge_start[c + 1] = s
    edge_start = np.cumsum(edge_start)
    claims = np.empty(edge_start[-1], np.int32)
    claimed = np.zeros(chunks + 1, np.int64)
    for c in numba.prange(chunks):
        k = edge_start[c]
        for i in range(bounds[c], bounds[c + 1]):
            u = np.int32(frontier[i])
            for p in range(offsets[u], offsets[u + 1]):
                v = np.int64(indices[p])
                old = parent[v]
                if old < 0 and atomics.compare_exchange(parent, v, old, u) == old:
                    depth[v] = level
                    claims[k] = v
                    k += 1
        claimed[c + 1] = k - edge_start[c]
    kept = np.cumsum(claimed)
    out = np.empty(kept[-1], np.int32)
    for c in numba.prange(chunks):
        out[kept[c] : kept[c + 1]] = claims[edge_start[c] : edge_start[c] + claimed[c + 1]]
    return out, edge_start[-1]


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
def top_down_serial(offsets, indices, frontier, parent, depth, level, limit):
    """Serial top-down levels while the frontier stays below `limit` vertices.

    High-diameter graphs (roads: 1,100 levels of a few hundred vertices) would otherwise pay a
    Python round trip and a parallel launch per level. Returns (frontier, last level, edges
    scanned)."""
    cur = frontier.copy()
    buf = np.empty(parent.shape[0], np.int32)
    scanned = 0
    while 0 < cur.shape[0] < limit:
        level += 1
        k = 0
        for i in range(cur.shape[0]):
            u = cur[i]
            for p in range(offsets[u], offsets[u + 1]):
                v = indices[p]
                if parent[v] < 0:
                    parent[v] = u
                    depth[v] = level
                    buf[k] = v
                    k += 1
            scanned += offsets[u + 1] - offsets[u]
        cur = buf[:k].copy()
    return cur, level, scanned
