"""Triangle counting with Numba: orient each edge from lower to higher (degree, id) rank, then count
|N+(u) ∩ N+(v)| for every oriented edge (the forward algorithm), each triangle found exactly
once. Where ranking by degree does not pay, the rank is the id alone and needs no new graph: each
sorted row's ids below its own are its out-list (:func:`lower_ends`)."""

import numba
import numpy as np

from . import shares
from .serial import is_small

#: oriented arcs a counting thread is given, on average at least: handing a share to a pool thread
#: costs about as much as the lookups of a few thousand arcs
ARCS_PER_THREAD = 4096


def orient(offsets, indices, degree):
    """CSR of the oriented graph: u -> v kept when (deg u, u) < (deg v, v). Rows stay sorted.

    Up to SMALL_ARCS arcs with NumPy, which has nothing to compile: each vertex's rank as one
    int64 (degree * n + id), an arc kept where its head outranks its tail, the new offsets read
    off the running count of kept arcs. Above, in parallel."""
    if not is_small(indices.shape[0]):
        return shares.stoppable(_orient_parallel, offsets, indices, degree)
    n = offsets.shape[0] - 1
    rank = degree.astype(np.int64) * n + np.arange(n)
    keep = np.repeat(rank, np.diff(offsets)) < rank[indices]
    kept = np.zeros(indices.shape[0] + 1, np.int64)
    np.cumsum(keep, out=kept[1:])
    return kept[offsets], np.compress(keep, indices)  # boolean indexing is slower (docs/tuning.md)


@numba.njit(parallel=True, nogil=True, cache=True)
def _orient_parallel(offsets, indices, degree, stop):
    n = offsets.shape[0] - 1
    keep = np.zeros(n + 1, np.int64)
    for u in numba.prange(n):
        if stop[0]:  # an interrupted caller: what it returns is never read
            continue
        c = 0
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if degree[u] < degree[v] or (degree[u] == degree[v] and u < v):
                c += 1
        keep[u + 1] = c
    off = np.cumsum(keep)
    idx = np.empty(off[-1], np.int32)
    for u in numba.prange(n):
        if stop[0]:
            continue
        k = off[u]
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if degree[u] < degree[v] or (degree[u] == degree[v] and u < v):
                idx[k] = v
                k += 1
    return off, idx


def lower_ends(offsets, indices):
    """Where each sorted row's ids below the row's own end: ``indices[offsets[u]:ends[u]]`` is
    u's out-list in the graph oriented from the higher id to the lower, so that :func:`count` reads
    an undirected graph's own CSR as the forward algorithm's graph of id ranks.

    Up to SMALL_ARCS arcs with NumPy (nothing to compile), above by a binary search a row in
    parallel."""
    if not is_small(indices.shape[0]):
        ends = shares.stoppable(_lower_ends_parallel, offsets, indices)
    else:
        n = offsets.shape[0] - 1
        rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(offsets))
        ends = offsets[:-1] + np.bincount(rows[indices < rows], minlength=n)
    ends.flags.writeable = False  # as the graph's offsets: count's kernels compile once for both
    return ends


@numba.njit(parallel=True, nogil=True, cache=True)
def _lower_ends_parallel(offsets, indices, stop):
    n = offsets.shape[0] - 1
    ends = np.empty(n, np.int64)
    for u in numba.prange(n):
        if stop[0]:  # an interrupted caller: what it returns is never read
            continue
        a = offsets[u]
        ends[u] = a + np.searchsorted(indices[a : offsets[u + 1]], u)
    return ends


def count(off, idx, threads, per_vertex, rows=None, ends=None):
    """Triangles in total, and per vertex when asked (empty when not), found at the rows
    ``rows[0] .. rows[1] - 1`` (default all): the others' lists are read only as the middle
    vertex v's (a part of a partitioned graph counts at its own rows). Row u's out-list is
    ``idx[off[u]:ends[u]]`` (default ``ends = off[1:]``: the whole row).

    Up to `threads` shares (:func:`gravel.backends.cpu.shares.run`) each run the serial kernel
    `_rows` over rows t, t + threads, ... (interleaving spreads the heavy rows) with a marker
    array and counters of their own; the counters are summed here with NumPy. One kernel for
    every graph compiles in about the time of a parallel one's serial twin, and counts a small
    graph in parallel too (docs/tuning.md, CPU kernels). The shares are capped at the arcs over
    ARCS_PER_THREAD."""
    n = off.shape[0] - 1
    first, last = (0, n) if rows is None else rows
    if ends is None:
        ends, arcs = off[1:], int(off[last] - off[first])
    else:
        arcs = int((ends[first:last] - off[first:last]).sum())
    threads = max(1, min(threads, arcs // ARCS_PER_THREAD))
    local = np.zeros((threads, n if per_vertex else 0), np.int64)
    totals = np.zeros(threads, np.int64)

    def share(t, stop):
        mark = np.zeros(n, np.uint8)
        mine = local[t]
        totals[t] = _rows(off, ends, idx, first + t, last, threads, mark, mine, per_vertex, stop)

    shares.run(share, threads)
    return totals.sum(), local.sum(axis=0)


@numba.njit(nogil=True, cache=True)
def _rows(off, ends, idx, t, last, threads, mark, mine, per_vertex, stop):
    """Triangles at rows t, t + threads, ... below `last`, and each corner's count in `mine` when
    asked.

    Returns before the next row once `stop[0]` is set (an interrupted caller). For each u, its
    out-list is marked in `mark` (bytes, all zero on entry and on exit); then for
    every v in N+(u), the w in N+(v) that are marked close a triangle. Branch-free lookups beat
    merging the two sorted lists, whose comparisons mispredict; byte marks read through unsigned
    ids (no negative-index fix-up) run the lookups 1.4x faster than int32 stamps (docs/tuning.md,
    CPU kernels)."""
    c = 0
    for u in range(t, last, threads):
        if stop[0]:  # an interrupted caller: the count is abandoned
            return c
        a, b = off[u], ends[u]
        if b - a < 2:
            continue
        for p in range(a, b):
            mark[np.uint32(idx[p])] = 1
        if per_vertex:
            c += _closed_at(off, ends, idx, mark, u, mine)
        else:
            c += _closed(off, ends, idx, mark, u)
        for p in range(a, b):
            mark[np.uint32(idx[p])] = 0
    return c


@numba.njit(inline="always")
def _closed(off, ends, idx, mark, u):
    """Triangles at u: the marked w in N+(v), v in N+(u). Four lookups an iteration, into four
    sums (docs/tuning.md, CPU kernels)."""
    c0 = c1 = c2 = c3 = 0
    for p in range(off[u], ends[u]):
        v = idx[p]
        q, end = off[v], ends[v]
        while q + 4 <= end:
            c0 += mark[np.uint32(idx[q])]
            c1 += mark[np.uint32(idx[q + 1])]
            c2 += mark[np.uint32(idx[q + 2])]
            c3 += mark[np.uint32(idx[q + 3])]
            q += 4
        while q < end:
            c0 += mark[np.uint32(idx[q])]
            q += 1
    return c0 + c1 + c2 + c3


@numba.njit(inline="always")
def _closed_at(off, ends, idx, mark, u, mine):
    """`_closed`, each triangle also counted at its three corners in `mine`: w's count gets the
    lookup's result unconditionally (a branch on it mispredicts), u's and v's theirs once."""
    c = 0
    for p in range(off[u], ends[u]):
        v = idx[p]
        cv = 0
        for q in range(off[v], ends[v]):
            w = np.uint32(idx[q])
            hit = np.int64(mark[w])
            cv += hit
            mine[w] += hit
        mine[v] += cv
        c += cv
    mine[u] += c
    return c
