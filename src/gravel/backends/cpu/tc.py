"""Triangle counting with Numba: orient each edge from lower to higher (degree, id) rank, then count
|N+(u) ∩ N+(v)| for every oriented edge (the forward algorithm), each triangle found exactly
once."""

import numba
import numpy as np


@numba.njit(parallel=True, cache=True)
def orient(offsets, indices, degree):
    """CSR of the oriented graph: u -> v kept when (deg u, u) < (deg v, v). Rows stay sorted."""
    n = offsets.shape[0] - 1
    keep = np.zeros(n + 1, np.int64)
    for u in numba.prange(n):
        c = 0
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if degree[u] < degree[v] or (degree[u] == degree[v] and u < v):
                c += 1
        keep[u + 1] = c
    off = np.cumsum(keep)
    idx = np.empty(off[-1], np.int32)
    for u in numba.prange(n):
        k = off[u]
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if degree[u] < degree[v] or (degree[u] == degree[v] and u < v):
                idx[k] = v
                k += 1
    return off, idx


@numba.njit(parallel=True, cache=True)
def count(off, idx, threads, per_vertex):
    """Triangles in total, and per vertex when asked (per-thread counters, summed at the end).

    For each u, its out-list is stamped into a per-thread marker array; then for every v in N+(u),
    the w in N+(v) that carry u's stamp close a triangle. Branch-free lookups beat merging the two
    sorted lists, whose comparisons mispredict (docs/tuning.md, CPU kernels)."""
    n = off.shape[0] - 1
    local = np.zeros((threads, n if per_vertex else 0), np.int64)
    totals = np.zeros(threads, np.int64)
    stamp = np.zeros((threads, n), np.int32)
    # thread t owns rows t, t + threads, ...: interleaving spreads the heavy rows, and each thread
    # writes only its own counters
    for t in numba.prange(threads):
        mark = stamp[t]
        c = 0
        for u in range(t, n, threads):
            a, b = off[u], off[u + 1]
            if b - a < 2:
                continue
            for p in range(a, b):
                mark[idx[p]] = u + 1
            for p in range(a, b):
                v = idx[p]
                for q in range(off[v], off[v + 1]):
                    w = idx[q]
                    if mark[w] == u + 1:
                        c += 1
                        if per_vertex:
                            local[t, u] += 1
                            local[t, v] += 1
                            local[t, w] += 1
        totals[t] = c
    return totals.sum(), local.sum(axis=0) if per_vertex else np.zeros(0, np.int64)
