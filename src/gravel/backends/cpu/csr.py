"""Building and cleaning CSR arrays: counting sort of edges, per-row sort, dedupe, loop removal.

Rows are always sorted by destination: intersections (triangles), binary searches and dedupe rely on it.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def _scatter(src, dst, w, offsets, indices, weights, both_ways):
    # Sequential counting-sort scatter: one random write per arc, memory-bound; a parallel version
    # needs per-thread count tables (threads x n words), which costs more memory than it saves time.
    pos = offsets[:-1].copy()
    has_w = weights.shape[0] > 0
    for e in range(src.shape[0]):
        u = src[e]
        v = dst[e]
        p = pos[u]
        indices[p] = v
        if has_w:
            weights[p] = w[e]
        pos[u] = p + 1
        if both_ways and u != v:
            q = pos[v]
            indices[q] = u
            if has_w:
                weights[q] = w[e]
            pos[v] = q + 1


@numba.njit(parallel=True, cache=True)
def _sort_rows(offsets, indices, weights):
    n = offsets.shape[0] - 1
    has_w = weights.shape[0] > 0
    for u in numba.prange(n):
        a = offsets[u]
        b = offsets[u + 1]
        if b - a < 2:
            continue
        if has_w:
            order = np.argsort(indices[a:b], kind="mergesort")
            idx = indices[a:b][order]
            ww = weights[a:b][order]
            indices[a:b] = idx
            weights[a:b] = ww
        else:
            indices[a:b].sort()


@numba.njit(parallel=True, cache=True)
def _kept_per_row(offsets, indices, dedupe, drop_loops):
    n = offsets.shape[0] - 1
    kept = np.zeros(n + 1, np.int64)
    for u in numba.prange(n):
        c = 0
        prev = -1
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if drop_loops and v == u:
                continue
            if dedupe and v == prev:
                continue
            prev = v
            c += 1
        kept[u + 1] = c
    return kept


@numba.njit(parallel=True, cache=True)
def _compact_rows(offsets, indices, weights, new_offsets, new_indices, new_weights, dedupe, drop_loops):
    n = offsets.shape[0] - 1
    has_w = weights.shape[0] > 0
    for u in numba.prange(n):
        q = new_offsets[u] - 1
        prev = -1
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if drop_loops and v == u:
                continue
            if dedupe and v == prev:
                # rows are sorted, so duplicates are adjacent: keep the minimum weight
                if has_w and weights[p] < new_weights[q]:
                    new_weights[q] = weights[p]
                continue
            prev = v
            q += 1
            new_indices[q] = v
            if has_w:
                new_weights[q] = weights[p]


def edges_to_csr(src, dst, weights, n, both_ways):
    """Sorted CSR of the arcs ``src[i] -> dst[i]`` (and the reverse arcs when ``both_ways``)."""
    counts = np.bincount(src, minlength=n).astype(np.int64)
    if both_ways:
        loops = src == dst
        counts += np.bincount(dst, minlength=n)
        counts -= np.bincount(src[loops], minlength=n)
        del loops
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    del counts
    nnz = int(offsets[-1])
    indices = np.empty(nnz, np.int32)
    w_out = np.empty(nnz if weights is not None else 0, np.float32)
    w_in = weights if weights is not None else np.empty(0, np.float32)
    _scatter(src, dst, w_in, offsets, indices, w_out, both_ways)
    _sort_rows(offsets, indices, w_out)
    return offsets, indices, (w_out if weights is not None else None)


def clean_rows(offsets, indices, weights, *, dedupe, drop_loops):
    """Copy of sorted CSR without duplicate arcs (minimum weight kept) and/or self loops."""
    kept = _kept_per_row(offsets, indices, dedupe, drop_loops)
    new_offsets = np.cumsum(kept)
    nnz = int(new_offsets[-1])
    new_indices = np.empty(nnz, np.int32)
    w_in = weights if weights is not None else np.empty(0, np.float32)
    new_weights = np.empty(nnz if weights is not None else 0, np.float32)
    _compact_rows(offsets, indices, w_in, new_offsets, new_indices, new_weights, dedupe, drop_loops)
    return new_offsets, new_indices, (new_weights if weights is not None else None)


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
