"""Brandes betweenness centrality with Numba: sources are split over threads, each with its own
BFS state and accumulator, so no two threads write the same word (:func:`brandes`); with fewer
sources than threads, every thread works on one source at a time (:func:`dependencies`)."""

import numba
import numpy as np

from . import shares


@numba.njit(cache=True)
def _one_source(offsets, indices, s, dist, sigma, delta, order, acc, arcs):
    n = dist.shape[0]
    for i in range(n):
        dist[i] = -1
        sigma[i] = 0.0
        delta[i] = 0.0
    dist[s] = 0
    sigma[s] = 1.0
    order[0] = s
    head, tail = 0, 1
    while head < tail:
        u = order[head]
        head += 1
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                order[tail] = v
                tail += 1
            if dist[v] == dist[u] + 1:
                sigma[v] += sigma[u]
    # dependencies in reverse BFS order: delta[u] = sum over successors v of s_u/s_v (1+delta_v),
    # each term also the arc u -> v's where `arcs` holds one entry per arc (else it is empty)
    for i in range(tail - 1, -1, -1):
        v = order[i]
        if i == 0 and arcs.shape[0] == 0:
            break  # the source's own dependency counts for no vertex
        for p in range(offsets[v], offsets[v + 1]):
            w = indices[p]
            if dist[w] == dist[v] + 1:
                c = sigma[v] / sigma[w] * (1.0 + delta[w])
                delta[v] += c
                if arcs.shape[0]:
                    arcs[p] += c
        if i:
            acc[v] += delta[v]
    return tail


def brandes(offsets, indices, sources, threads):
    """Raw dependency sums over `sources` (ordered pairs, endpoints excluded), per vertex.

    Each of `threads` shares (:func:`gravel.backends.cpu.shares.run`) runs the serial kernel
    `_sources` on its part of the sources, with arrays of its own; the per-share sums are added
    with NumPy. A parallel kernel splitting the sources alike took 1.8 s to compile, these two
    0.56 s, and ran no faster on large graphs (docs/tuning.md, first run)."""
    return _brandes(offsets, indices, sources, threads, False)[0]


def brandes_arcs(offsets, indices, sources, threads):
    """:func:`brandes`'s sums per vertex, and per arc (in CSR order) the dependencies through it.

    Parameters
    ----------
    offsets, indices : numpy.ndarray
        The CSR.
    sources : numpy.ndarray of int32
        The sources.
    threads : int
        Shares of the sources, run side by side.

    Returns
    -------
    vertices, arcs : numpy.ndarray of float64
        n and nnz sums.
    """
    return _brandes(offsets, indices, sources, threads, True)


def _brandes(offsets, indices, sources, threads, edges):
    n = offsets.shape[0] - 1
    acc = np.zeros((threads, n))
    arcs = np.zeros((threads, indices.shape[0] if edges else 0))
    ns = sources.shape[0]

    def share(t, stop):
        work = np.empty((2, n), np.int32), np.empty((2, n))  # dist, order; sigma, delta
        mine = sources[ns * t // threads : ns * (t + 1) // threads]
        _sources(offsets, indices, mine, *work, acc[t], arcs[t], stop)

    shares.run(share, threads)
    return acc.sum(axis=0), arcs.sum(axis=0) if edges else None


@numba.njit(nogil=True, cache=True)
def _sources(offsets, indices, sources, ints, floats, acc, arcs, stop):
    """Add the dependencies on each of `sources` to `acc` (and to `arcs`, per arc, unless it is
    empty); `ints` and `floats` are (2, n) work
    arrays, allocated by the caller so that nothing here compiles NumPy's allocators. Returns
    before the next source once `stop[0]` is set (an interrupted caller)."""
    for s in sources:
        if stop[0]:
            return
        _one_source(offsets, indices, s, ints[0], floats[0], floats[1], ints[1], acc, arcs)


def dependencies(
    offsets, indices, in_offsets, in_indices, s, depth, sigma, delta, order, acc, arcs=None
):
    """Add the dependencies on source `s` to `acc` (and to `arcs`, per arc in CSR order, where
    given), every thread on this one source (:func:`_dependencies`).

    Parameters
    ----------
    offsets, indices, in_offsets, in_indices : numpy.ndarray
        The CSR and the CSC.
    s : int
        The source.
    depth : numpy.ndarray of int32
        BFS depths from `s`, -1 where unreached.
    sigma, delta : numpy.ndarray of float64
        n-long work arrays.
    order : numpy.ndarray of int32
        An n-long work array.
    acc : numpy.ndarray of float64
        The per-vertex sums, added to.
    arcs : numpy.ndarray of float64, optional
        The per-arc sums, added to.
    """
    arcs = _NO_ARCS if arcs is None else arcs
    _dependencies(
        offsets, indices, in_offsets, in_indices, s, depth, sigma, delta, order, acc, arcs
    )


_NO_ARCS = np.zeros(0)


@numba.njit(parallel=True, cache=True)
def _dependencies(
    offsets, indices, in_offsets, in_indices, s, depth, sigma, delta, order, acc, arcs
):
    """Add the dependencies on source `s` to `acc` (and to `arcs`, per arc, unless it is empty),
    every thread on this one source, given the
    BFS depths from it (`depth`, -1 where unreached). The reached vertices are sorted by depth;
    then each level's path counts are pulled from the level before (in-lists) and, deepest level
    first, each level's dependencies from the level after (out-lists): every vertex writes only
    its own entry, so no atomics. `sigma`, `delta` (float64) and `order` (int32) are n-long work
    arrays."""
    n = depth.shape[0]
    top = 0
    for v in range(n):
        top = max(top, depth[v])
    start = np.zeros(top + 2, np.int64)
    for v in range(n):
        if depth[v] >= 0:
            start[depth[v] + 1] += 1
    for d in range(top + 1):
        start[d + 1] += start[d]
    fill = start[:-1].copy()
    for v in range(n):
        d = depth[v]
        if d >= 0:
            order[fill[d]] = v
            fill[d] += 1
    for v in numba.prange(n):
        sigma[v] = 0.0
        delta[v] = 0.0
    sigma[s] = 1.0
    for d in range(1, top + 1):
        for i in numba.prange(start[d], start[d + 1]):
            v = order[i]
            paths = 0.0
            for p in range(in_offsets[v], in_offsets[v + 1]):
                u = in_indices[p]
                if depth[u] == d - 1:
                    paths += sigma[u]
            sigma[v] = paths
    # the deepest level has no successors; the source's dependency counts for its arcs alone
    last = 0 if arcs.shape[0] else 1
    for d in range(top - 1, last - 1, -1):
        for i in numba.prange(start[d], start[d + 1]):
            v = order[i]
            share = 0.0
            for p in range(offsets[v], offsets[v + 1]):
                w = indices[p]
                if depth[w] == d + 1:
                    c = (1.0 + delta[w]) / sigma[w]
                    share += c
                    if arcs.shape[0]:
                        arcs[p] += sigma[v] * c
            delta[v] = sigma[v] * share
            if d:
                acc[v] += delta[v]
