"""Truss decomposition with Numba: each edge's triangle support, then peeling (Wang and Cheng,
2012): edges of least support leave first, lowering the support of the triangles they close."""

import numba
import numpy as np

from .serial import by_size


@numba.njit(cache=True)
def _find(indices, lo, hi, x):
    """The position of x in the sorted indices[lo:hi], or -1."""
    q = lo + np.searchsorted(indices[lo:hi], x)
    return q if q < hi and indices[q] == x else -1


@numba.njit(parallel=True, cache=True)
def support(offsets, indices, src, dst):
    """Triangles through each edge (src[e], dst[e]) of a simple undirected CSR with sorted rows."""
    m = src.shape[0]
    sup = np.zeros(m, np.int64)
    for e in numba.prange(m):
        u, v = src[e], dst[e]
        pa, ea, pb, eb = offsets[u], offsets[u + 1], offsets[v], offsets[v + 1]
        c = 0
        while pa < ea and pb < eb:
            x, y = indices[pa], indices[pb]
            c += x == y
            pa += x <= y
            pb += y <= x
        sup[e] = c
    return sup


#: the support kernel for a graph of so many arcs (its serial twin for small graphs)
kernels = by_size(support)


@numba.njit(cache=True)
def peel(offsets, indices, edge_of, src, dst, sup):
    """Each edge's truss number: the largest k such that it lies in the k-truss (2 for an edge in
    no triangle). `edge_of` maps every arc of the CSR to its edge; `sup` is each edge's triangle
    count, consumed.

    Level k removes, one by one from a stack, every edge whose remaining support is below k - 2;
    each removal lowers the support of the two other edges of every triangle it still closes
    (both not yet removed), and pushes those that fall below. A level that removes nothing jumps
    to the least remaining support."""
    m = src.shape[0]
    truss = np.zeros(m, np.int32)
    removed = np.zeros(m, np.uint8)
    queued = np.zeros(m, np.uint8)
    stack = np.empty(m, np.int64)
    left = m
    k = 3
    while left:
        top = 0
        low = np.iinfo(np.int64).max
        for e in range(m):
            if not queued[e]:
                if sup[e] < k - 2:
                    queued[e] = 1
                    stack[top] = e
                    top += 1
                elif sup[e] < low:
                    low = sup[e]
        if top == 0:
            k = max(k + 1, low + 3)
            continue
        while top:
            top -= 1
            e = stack[top]
            truss[e] = k - 1
            removed[e] = 1
            left -= 1
            u, v = src[e], dst[e]
            if offsets[u + 1] - offsets[u] > offsets[v + 1] - offsets[v]:
                u, v = v, u
            for p in range(offsets[u], offsets[u + 1]):
                w = indices[p]
                q = _find(indices, offsets[v], offsets[v + 1], w)
                if q < 0:
                    continue
                e1, e2 = edge_of[p], edge_of[q]
                if removed[e1] or removed[e2]:
                    continue
                for f in (e1, e2):
                    sup[f] -= 1
                    if sup[f] < k - 2 and not queued[f]:
                        queued[f] = 1
                        stack[top] = f
                        top += 1
        k += 1
    return truss
