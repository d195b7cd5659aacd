"""Brandes betweenness centrality with Numba: sources are split over threads, each with its own
BFS state and accumulator, so no two threads write the same word."""

import numba
import numpy as np


@numba.njit(cache=True)
def _one_source(offsets, indices, s, dist, sigma, delta, order, acc):
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
    # dependencies in reverse BFS order: delta[u] = sum over successors v of s_u/s_v (1+delta_v)
    for i in range(tail - 1, 0, -1):
        v = order[i]
        for p in range(offsets[v], offsets[v + 1]):
            w = indices[p]
            if dist[w] == dist[v] + 1:
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w])
        acc[v] += delta[v]
    return tail


def brandes(offsets, indices, sources, threads):
    """Raw dependency sums over `sources` (ordered pairs, endpoints excluded).

    The per-thread sums are added here with NumPy: summing a 2-D array inside the kernel doubles
    its compile time (docs/tuning.md, first run)."""
    return _brandes(offsets, indices, sources, threads).sum(axis=0)


@numba.njit(parallel=True, cache=True)
def _brandes(offsets, indices, sources, threads):
    """Each thread's dependency sums over its share of `sources`."""
    n = offsets.shape[0] - 1
    acc = np.zeros((threads, n))
    ns = sources.shape[0]
    for t in numba.prange(threads):
        dist = np.empty(n, np.int32)
        sigma = np.empty(n)
        delta = np.empty(n)
        order = np.empty(n, np.int32)
        for i in range(ns * t // threads, ns * (t + 1) // threads):
            _one_source(offsets, indices, sources[i], dist, sigma, delta, order, acc[t])
    return acc
