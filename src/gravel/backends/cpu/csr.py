"""Building and cleaning CSR arrays: counting sort of edges, per-row sort, dedupe, loop removal.

Rows are always sorted by destination: intersections (triangles), binary searches and dedupe rely on
it."""

import numba
import numpy as np

from . import shares

#: graphs of up to this many arcs are built and sorted with NumPy's stable sorts, which need no
#: compiling: the parallel kernels below take seconds to compile on their first call, longer than a
#: small graph takes to build either way
SMALL_ARCS = 1 << 20

#: edges per block of a parallel build: a block and its arcs grouped by thread take 24 bytes an
#: edge, small against a graph worth streaming, and a block's passes outlast their start-up
#: (docs/tuning.md)
BLOCK_EDGES = 1 << 20

#: up to this many threads, the build counts the rows' arcs on one thread, straight from the
#: edges; on more, each thread counts the rows it owns from a grouped copy (docs/tuning.md)
SERIAL_COUNT_THREADS = 2

#: rows go to threads in groups of 2**ROW_GROUP_BITS consecutive rows, no two threads writing one
#: cache line of row cursors
ROW_GROUP_BITS = 6


@numba.njit(cache=True, inline="always")
def _owner(u, threads):
    """The thread that places row u's arcs: a Fibonacci hash of u's row group scaled to the threads
    (no division per arc), so consecutive groups, such as a degree-sorted graph's long rows, spread
    over every thread."""
    g = np.int64(u) >> ROW_GROUP_BITS
    return ((g * 0x9E3779B1) & 0xFFFFFFFF) * threads >> 32


@numba.njit(parallel=True, cache=True)
def _group_arcs(src, dst, w, both_ways, threads, rows, cols, ws, starts):
    """Copy a block's arcs (an edge's reverse right after it) into `rows`, `cols` and `ws`, grouped
    by the thread that owns the row (`_owner`) and in edge order within each group; thread t's arcs
    are ``[starts[t], starts[t + 1])``. Each thread takes a slice of the edges."""
    m = src.shape[0]
    has_w = ws.shape[0] > 0
    slots = np.zeros((threads, threads), np.int64)
    for s in numba.prange(threads):
        count = np.zeros(threads, np.int64)  # the thread's own: no shared cache line
        for e in range(m * s // threads, m * (s + 1) // threads):
            count[_owner(src[e], threads)] += 1
            if both_ways and src[e] != dst[e]:
                count[_owner(dst[e], threads)] += 1
        slots[s] = count
    q = 0
    for t in range(threads):
        starts[t] = q
        for s in range(threads):
            c = slots[s, t]
            slots[s, t] = q
            q += c
    starts[threads] = q
    for s in numba.prange(threads):
        slot = slots[s].copy()
        for e in range(m * s // threads, m * (s + 1) // threads):
            u = src[e]
            v = dst[e]
            t = _owner(u, threads)
            rows[slot[t]] = u
            cols[slot[t]] = v
            if has_w:
                ws[slot[t]] = w[e]
            slot[t] += 1
            if both_ways and u != v:
                t = _owner(v, threads)
                rows[slot[t]] = v
                cols[slot[t]] = u
                if has_w:
                    ws[slot[t]] = w[e]
                slot[t] += 1


@numba.njit(parallel=True, cache=True)
def _count_grouped(rows, starts, counts):
    """Add each row's arcs to ``counts[row + 1]``, each thread counting the rows it owns."""
    for t in numba.prange(starts.shape[0] - 1):
        for q in range(starts[t], starts[t + 1]):
            counts[rows[q] + 1] += 1


@numba.njit(cache=True, nogil=True)
def _count_arcs(src, dst, both_ways, counts):
    """Add each row's arcs among the edges to ``counts[row + 1]`` (an edge's reverse too where
    `both_ways`, a loop once). One thread: increments at memory speed, with no grouped copy of the
    edges to make first."""
    for e in range(src.shape[0]):
        counts[src[e] + 1] += 1
        if both_ways and src[e] != dst[e]:
            counts[dst[e] + 1] += 1


@numba.njit(cache=True)
def _row_starts(counts):
    """Turn ``counts[u + 1]`` (row u's arcs) into row u's first slot, in place; returns the total.
    Placing an arc of row u then advances ``counts[u + 1]``, which ends as the row's end: the
    offsets."""
    total = 0
    for u in range(1, counts.shape[0]):
        c = counts[u]
        counts[u] = total
        total += c
    return total


@numba.njit(parallel=True, cache=True)
def _place_arcs(rows, cols, ws, starts, cursor, indices, weights):
    """Write the grouped arcs at their rows' cursors (`_row_starts`), each thread the rows it
    owns, in order: a row receives its arcs in edge order, whatever the number of threads."""
    has_w = weights.shape[0] > 0
    for t in numba.prange(starts.shape[0] - 1):
        for q in range(starts[t], starts[t + 1]):
            u = rows[q]
            p = cursor[u + 1]
            cursor[u + 1] = p + 1
            indices[p] = cols[q]
            if has_w:
                weights[p] = ws[q]


def _scatter(blocks, n, both_ways, weighted):
    """Counting sort of the arcs of `blocks()` into CSR rows, in two passes over the blocks: one
    counts the rows' arcs (on one thread up to SERIAL_COUNT_THREADS threads), the other places them
    into arrays allocated in between. Each block, cut to BLOCK_EDGES edges, is first grouped by
    owner thread, so threads never share a row and keep no counts of their own: memory is the
    CSR, one block and its grouped copy."""
    threads = numba.get_num_threads()
    buffer = BLOCK_EDGES * (1 + both_ways)
    rows, cols = np.empty(buffer, np.int32), np.empty(buffer, np.int32)
    ws = np.empty(buffer if weighted else 0, np.float32)
    starts = np.empty(threads + 1, np.int64)

    def grouped():
        for src, dst, w in blocks():
            for a in range(0, src.shape[0], BLOCK_EDGES):
                cut = slice(a, a + BLOCK_EDGES)
                w_cut = w[cut] if weighted else ws
                _group_arcs(src[cut], dst[cut], w_cut, both_ways, threads, rows, cols, ws, starts)
                yield

    offsets = np.zeros(n + 1, np.int64)
    if threads <= SERIAL_COUNT_THREADS:
        for src, dst, _ in blocks():
            _count_arcs(src, dst, both_ways, offsets)
    else:
        for _ in grouped():
            _count_grouped(rows, starts, offsets)
    nnz = _row_starts(offsets)
    indices = np.empty(nnz, np.int32)
    weights = np.empty(nnz if weighted else 0, np.float32)
    for _ in grouped():
        _place_arcs(rows, cols, ws, starts, offsets, indices, weights)
    return offsets, indices, (weights if weighted else None)


def _scatter_small(src, dst, w, n, both_ways):
    """_scatter's rows by NumPy: the arcs in edge order (each edge's reverse right after it), stably
    sorted by row, so a row lists its arcs in the order _scatter gives them."""
    if both_ways:
        keep = np.ones(2 * src.shape[0], bool)
        keep[1::2] = src != dst  # a loop is stored once
        src, dst = np.stack([src, dst], 1).ravel()[keep], np.stack([dst, src], 1).ravel()[keep]
        w = None if w is None else np.repeat(w, 2)[keep]
    order = np.argsort(src, kind="stable")
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    weights = None if w is None else w[order].astype(np.float32)
    return offsets, dst[order].astype(np.int32), weights


def _row_ids(offsets):
    """The row of every arc, by NumPy (for graphs of up to SMALL_ARCS arcs)."""
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int32), np.diff(offsets))


@numba.njit(cache=True, inline="always")
def _insertion_sort(a, lo, hi):
    for i in range(lo + 1, hi):
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


def sort_rows(offsets, indices, weights):
    """Sort every row's ids (and their weights along; parallel arcs keep their order), in place."""
    if indices.shape[0] <= SMALL_ARCS:
        order = np.lexsort((indices, _row_ids(offsets)))
        indices[:] = indices[order]
        if weights is not None and weights.shape[0]:
            weights[:] = weights[order]
        return
    w = weights if weights is not None else np.empty(0, np.float32)
    shares.stoppable(_sort_rows, offsets, indices, w, numba.get_num_threads())


@numba.njit(parallel=True, nogil=True, cache=True)
def _sort_rows(offsets, indices, weights, threads, stop):
    n = offsets.shape[0] - 1
    has_w = weights.shape[0] > 0
    # rows dealt out round-robin: after a degree sort the long rows sit together, and prange's
    # contiguous chunks would give them all to one thread (docs/tuning.md, CPU kernels)
    for t in numba.prange(threads):
        for u in range(t, n, threads):
            if stop[0]:  # an interrupted caller: the rows left stay unsorted
                break
            a = offsets[u]
            b = offsets[u + 1]
            if b - a < 2:
                continue
            if not has_w and b - a <= 32:
                # most rows of skewed graphs are short: there insertion sort beats a library sort
                _insertion_sort(indices, a, b)
            elif has_w:
                order = np.argsort(indices[a:b], kind="mergesort")
                idx = indices[a:b][order]
                ww = weights[a:b][order]
                indices[a:b] = idx
                weights[a:b] = ww
            else:
                indices[a:b].sort()


@numba.njit(cache=True)
def _compact_in_place(offsets, indices, weights, dedupe, drop_loops):
    """Drop loops and/or duplicate arcs of sorted rows in place, keeping a duplicate's minimum
    weight (NaN only where every copy is NaN: a number always wins over NaN, whatever the order).
    Sequential: rows only shrink, so every write trails its read. Returns the new arc count."""
    n = offsets.shape[0] - 1
    has_w = weights.shape[0] > 0
    q = 0
    start = 0
    for u in range(n):
        end = offsets[u + 1]
        row_start = q
        prev = -1
        for p in range(start, end):
            v = indices[p]
            if drop_loops and v == u:
                continue
            if dedupe and v == prev:
                if has_w and (weights[p] < weights[q - 1] or np.isnan(weights[q - 1])):
                    weights[q - 1] = weights[p]
                continue
            prev = v
            indices[q] = v
            if has_w:
                weights[q] = weights[p]
            q += 1
        offsets[u] = row_start
        start = end
    offsets[n] = q
    return q


@numba.njit(parallel=True, cache=True)
def _permute_rows(offsets, indices, weights, perm, new_offsets, out_idx, out_w):
    has_w = weights.shape[0] > 0
    for v in numba.prange(offsets.shape[0] - 1):
        a = offsets[v]
        o = new_offsets[perm[v]]
        for k in range(offsets[v + 1] - a):
            out_idx[o + k] = perm[indices[a + k]]
            if has_w:
                out_w[o + k] = weights[a + k]


def permute(offsets, indices, weights, perm):
    """The CSR with vertex v renamed perm[v]: rows move whole and their ids are mapped, then sorted
    (parallel; no edge list and no counting sort, which cost far more: docs/tuning.md, CPU
    kernels)."""
    deg = np.diff(offsets)
    new_deg = np.empty_like(deg)
    new_deg[perm] = deg
    new_offsets = np.zeros(offsets.size, np.int64)
    np.cumsum(new_deg, out=new_offsets[1:])
    out_idx = np.empty_like(indices)
    out_w = np.empty_like(weights) if weights is not None else np.empty(0, np.float32)
    w = weights if weights is not None else out_w
    _permute_rows(offsets, indices, w, perm, new_offsets, out_idx, out_w)
    sort_rows(new_offsets, out_idx, out_w)
    return new_offsets, out_idx, (out_w if weights is not None else None)


def build_csr(edges, n, both_ways, dedupe=False, drop_loops=False):
    """Sorted CSR from ``edges = [src, dst, weights or None]``.

    The list is emptied at once, so a caller that passes its only reference lets the edge arrays be
    freed as soon as the arcs are placed: peak memory is the edge list plus the CSR, not more.
    """
    m, weighted = edges[0].shape[0], edges[2] is not None
    blocks = [tuple(edges)]
    edges.clear()
    return build_csr_blocks(blocks, m, n, both_ways, weighted, dedupe, drop_loops)


def build_csr_blocks(blocks, m, n, both_ways, weighted, dedupe=False, drop_loops=False):
    """Sorted CSR of the `m` edges in the list `blocks` of ``(src, dst, weights or None)`` int32 and
    float32 arrays (weights ignored unless `weighted`); a block's `src` may be runs, a pair
    ``(ids, counts)`` of int32 arrays: ``ids[k]`` repeated ``counts[k]`` times (an edge list sorted
    by source holds its sources in a fraction of the memory).

    The list is emptied as the arcs are placed, each block dropped once its arcs are in the CSR:
    a caller that passes its only references has memory peak at the blocks plus the CSR's rows
    placed so far, never an edge list and a CSR whole besides.
    """
    passes = 0

    def each():
        # the scatter walks the blocks twice: it counts the rows' arcs, then places them
        nonlocal passes
        passes += 1
        if passes == 1:
            for src, dst, w in blocks:
                yield expand_runs(src), dst, w
        else:
            while blocks:
                src, dst, w = blocks.pop(0)
                yield expand_runs(src), dst, w
                del src, dst, w
                release_freed()

    release_freed()  # what the blocks' maker freed (a reader's buffers) before the CSR comes
    csr = _scatter_any(each, m, n, both_ways, weighted)
    blocks.clear()  # the edges' last reference here: freed before the rows are sorted
    return _finish(*csr, dedupe, drop_loops)


def release_freed():
    """Hand the heap's free memory back to the system (glibc's ``malloc_trim``; nothing elsewhere):
    blocks of a few MB live in the heap, whose freed pages glibc keeps for later allocations, so
    a block freed once its arcs are placed would still count in the process's memory."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc():
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


def expand_runs(src):
    """`src` as an array: runs ``(ids, counts)`` expanded, an array as it is."""
    return np.repeat(src[0], src[1]) if isinstance(src, tuple) else src


def stream_csr(blocks, m, n, both_ways, *, weighted=False, dedupe=False, drop_loops=False):
    """Sorted CSR of the `m` edges that `blocks()` yields as ``(src, dst, weights or None)`` blocks.

    `blocks` is called twice and must yield the same edges both times (a generator makes them
    again from its seed): once to count each row's arcs, once to place them into the CSR
    allocated in between. No edge list is ever whole: peak memory is the CSR before dedupe and
    loop removal, plus one block. The result is `build_csr`'s of the blocks joined.
    """
    return _finish(*_scatter_any(blocks, m, n, both_ways, weighted), dedupe, drop_loops)


def row_blocks(offsets, indices, weights):
    """A CSR's arcs as `stream_csr` blocks ``(src, dst, weights or None)`` of whole rows, about
    BLOCK_EDGES arcs each: only one block's sources are ever expanded."""
    n = offsets.shape[0] - 1
    firsts = np.arange(0, offsets[-1], BLOCK_EDGES)
    cuts = np.unique(np.append(np.searchsorted(offsets, firsts), n))

    def blocks():
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            a, b = offsets[lo], offsets[hi]
            src = np.repeat(np.arange(lo, hi, dtype=np.int32), np.diff(offsets[lo : hi + 1]))
            yield src, indices[a:b], None if weights is None else weights[a:b]

    return blocks


def _scatter_any(blocks, m, n, both_ways, weighted):
    """Unsorted CSR rows of the blocks' arcs (weights None unless `weighted`): NumPy's sorts for a
    few arcs (nothing to compile), the parallel kernels otherwise."""
    if m * (1 + both_ways) > SMALL_ARCS:
        return _scatter(blocks, n, both_ways, weighted)
    parts = [[np.empty(0, np.int32)], [np.empty(0, np.int32)], [np.empty(0, np.float32)]]
    for block in blocks():
        for part, a in zip(parts, block[: 2 + weighted]):
            part.append(a)
    src, dst, w = (np.concatenate(p) for p in parts)
    return _scatter_small(src, dst, w if weighted else None, n, both_ways)


def _finish(offsets, indices, weights, dedupe, drop_loops):
    """Sort the rows, then drop duplicates and/or loops, all in place."""
    sort_rows(offsets, indices, weights)
    if dedupe or drop_loops:
        _compact(offsets, indices, weights, dedupe, drop_loops)
    return offsets, indices, weights


def _compact(offsets, indices, weights, dedupe, drop_loops):
    """`_compact_in_place` (`_compact_small` up to SMALL_ARCS arcs), then the arrays shrunk in
    place (realloc hands the tail back to the system without a copy; the arrays must own their
    memory and have no views)."""
    w = weights if weights is not None else np.empty(0, np.float32)
    small = indices.shape[0] <= SMALL_ARCS
    nnz = (_compact_small if small else _compact_in_place)(offsets, indices, w, dedupe, drop_loops)
    indices.resize(nnz, refcheck=False)
    if weights is not None:
        weights.resize(nnz, refcheck=False)


def _compact_small(offsets, indices, weights, dedupe, drop_loops):
    """`_compact_in_place` by NumPy, nothing to compile. A duplicate run keeps its minimum weight,
    NaN passed over (fmin: NaN only where the whole run is NaN), as the kernel does."""
    rows = _row_ids(offsets)
    first = np.ones(indices.shape[0], bool)
    if dedupe:
        first[1:] = (indices[1:] != indices[:-1]) | (rows[1:] != rows[:-1])
    keep = first & (indices != rows) if drop_loops else first
    nnz = int(np.count_nonzero(keep))
    if dedupe and weights.shape[0]:
        starts = np.flatnonzero(first)
        lightest = np.fmin.reduceat(weights, starts)
        weights[:nnz] = lightest[keep[starts]]
    elif weights.shape[0]:
        weights[:nnz] = weights[keep]
    np.cumsum(np.bincount(rows[keep], minlength=offsets.shape[0] - 1), out=offsets[1:])
    indices[:nnz] = indices[keep]
    return nnz


def clean_rows(offsets, indices, weights, *, dedupe, drop_loops):
    """Copy of sorted CSR without duplicate arcs (minimum weight kept) and/or self loops."""
    offsets, indices = offsets.copy(), indices.copy()
    weights = None if weights is None else weights.copy()
    _compact(offsets, indices, weights, dedupe, drop_loops)
    return offsets, indices, weights


def transpose(offsets, indices, weights, n):
    """CSC (in-edges) of a CSR graph, rows sorted, built by `stream_csr` from the rows: no edge
    list."""
    rows = row_blocks(offsets, indices, weights)
    return stream_csr(
        lambda: ((dst, src, w) for src, dst, w in rows()),
        indices.shape[0],
        n,
        False,
        weighted=weights is not None,
    )
