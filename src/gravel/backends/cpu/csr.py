"""Building and cleaning CSR arrays: counting sort of edges, per-row sort, dedupe, loop removal.

Rows are always sorted by destination: intersections (triangles), binary searches and dedupe rely on
it."""

import numba
import numpy as np

#: graphs of up to this many arcs are built and sorted with NumPy's stable sorts, which need no
#: compiling: the parallel kernels below take seconds to compile on their first call, longer than a
#: small graph takes to build either way
SMALL_ARCS = 1 << 20


@numba.njit(parallel=True, cache=True)
def _scatter(src, dst, w, n, both_ways, threads):
    """Counting sort of arcs into CSR rows, in parallel without atomics.

    Each thread takes a contiguous slice of the edges and counts its arcs per row; a prefix over the
    threads then gives every thread its own slots inside each row, so the scatter never collides.
    """
    m = src.shape[0]
    has_w = w.shape[0] > 0
    local = np.zeros((threads, n), np.int32)
    for t in numba.prange(threads):
        for e in range(m * t // threads, m * (t + 1) // threads):
            local[t, src[e]] += 1
            if both_ways and src[e] != dst[e]:
                local[t, dst[e]] += 1
    offsets = np.zeros(n + 1, np.int64)
    for u in numba.prange(n):
        s = 0
        for t in range(threads):
            c = local[t, u]
            local[t, u] = s
            s += c
        offsets[u + 1] = s
    offsets = np.cumsum(offsets)
    indices = np.empty(offsets[-1], np.int32)
    weights = np.empty(offsets[-1] if has_w else 0, np.float32)
    for t in numba.prange(threads):
        for e in range(m * t // threads, m * (t + 1) // threads):
            u = src[e]
            v = dst[e]
            p = offsets[u] + local[t, u]
            local[t, u] += 1
            indices[p] = v
            if has_w:
                weights[p] = w[e]
            if both_ways and u != v:
                q = offsets[v] + local[t, v]
                local[t, v] += 1
                indices[q] = u
                if has_w:
                    weights[q] = w[e]
    return offsets, indices, weights


def _scatter_small(src, dst, w, n, both_ways, threads):
    """_scatter's rows by NumPy: the arcs in edge order (each edge's reverse right after it), stably
    sorted by row, so a row lists its arcs in the order _scatter gives them."""
    if both_ways:
        keep = np.ones(2 * src.shape[0], bool)
        keep[1::2] = src != dst  # a loop is stored once
        src, dst = np.stack([src, dst], 1).ravel()[keep], np.stack([dst, src], 1).ravel()[keep]
        w = np.repeat(w, 2)[keep] if w.shape[0] else w
    order = np.argsort(src, kind="stable")
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    weights = w[order].astype(np.float32) if w.shape[0] else np.empty(0, np.float32)
    return offsets, dst[order].astype(np.int32), weights


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
        rows = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
        order = np.lexsort((indices, rows))
        indices[:] = indices[order]
        if weights is not None and weights.shape[0]:
            weights[:] = weights[order]
        return
    w = weights if weights is not None else np.empty(0, np.float32)
    _sort_rows(offsets, indices, w, numba.get_num_threads())


@numba.njit(parallel=True, cache=True)
def _sort_rows(offsets, indices, weights, threads):
    n = offsets.shape[0] - 1
    has_w = weights.shape[0] > 0
    # rows dealt out round-robin: after a degree sort the long rows sit together, and prange's
    # contiguous chunks would give them all to one thread (docs/tuning.md, CPU kernels)
    for t in numba.prange(threads):
        for u in range(t, n, threads):
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
    weight. Sequential: rows only shrink, so every write trails its read. Returns the new arc
    count."""
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
                if has_w and weights[p] < weights[q - 1]:
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


def edges_to_csr(src, dst, weights, n, both_ways):
    """Sorted CSR of the arcs ``src[i] -> dst[i]`` (and the reverse arcs when ``both_ways``)."""
    return build_csr([src, dst, weights], n, both_ways)


def build_csr(edges, n, both_ways, dedupe=False, drop_loops=False):
    """Sorted CSR from ``edges = [src, dst, weights or None]``.

    The list is emptied once the arcs are scattered, so a caller that passes its only reference lets
    the edge arrays be freed before sorting: peak memory is the edge list plus the CSR, not more.
    Dedupe and loop removal compact the rows in place.
    """
    src, dst, weights = edges
    has_w = weights is not None
    scatter = _scatter_small if src.shape[0] * (1 + both_ways) <= SMALL_ARCS else _scatter
    offsets, indices, w_out = scatter(
        src,
        dst,
        weights if has_w else np.empty(0, np.float32),
        n,
        both_ways,
        numba.get_num_threads(),
    )
    nnz = indices.shape[0]
    edges.clear()
    del src, dst, weights
    sort_rows(offsets, indices, w_out)
    if dedupe or drop_loops:
        nnz = _compact_in_place(offsets, indices, w_out, dedupe, drop_loops)
        if nnz < indices.shape[0]:
            # copies, so that the arcs removed are freed rather than kept behind a view
            indices = indices[:nnz].copy()
            w_out = w_out[:nnz].copy() if has_w else w_out
    return offsets, indices, (w_out if has_w else None)


def clean_rows(offsets, indices, weights, *, dedupe, drop_loops):
    """Copy of sorted CSR without duplicate arcs (minimum weight kept) and/or self loops."""
    offsets, indices = offsets.copy(), indices.copy()
    w = weights.copy() if weights is not None else np.empty(0, np.float32)
    nnz = _compact_in_place(offsets, indices, w, dedupe, drop_loops)
    return offsets, indices[:nnz].copy(), (w[:nnz].copy() if weights is not None else None)


def transpose(offsets, indices, weights, n):
    """CSC (in-edges) of a CSR graph, rows sorted."""
    src = np.repeat(np.arange(n, dtype=np.int32), np.diff(offsets))
    return edges_to_csr(indices, src, weights, n, False)


@numba.njit(parallel=True, cache=True)
def count_loops(offsets, indices):
    n = offsets.shape[0] - 1
    c = 0
    for u in numba.prange(n):
        for p in range(offsets[u], offsets[u + 1]):
            if indices[p] == u:
                c += 1
    return c
