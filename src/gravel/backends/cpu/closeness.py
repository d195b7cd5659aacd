"""Closeness centrality's breadth-first searches with Numba: the sources are split over the
threads (:func:`gravel.backends.cpu.shares.run`), each thread with its own queue and depths, and
each source's hops to the vertices it reaches are summed."""

import numba
import numpy as np

from . import shares


@numba.njit(nogil=True, cache=True)
def _sources(offsets, indices, sources, depth, queue, total, reached, stop):
    """For each of `sources`, a BFS over the lists: the sum of its vertices' depths into `total`
    and their count (the source included) into `reached`. `depth` is -1 everywhere on entry and
    is left so, each search resetting only the vertices it reached. Returns before the next source
    once `stop[0]` is set (an interrupted caller)."""
    for i in range(sources.shape[0]):
        if stop[0]:
            return
        s = sources[i]
        depth[s] = 0
        queue[0] = s
        head, tail, hops = 0, 1, 0
        while head < tail:
            u = queue[head]
            head += 1
            du = depth[u] + 1
            for p in range(offsets[u], offsets[u + 1]):
                v = indices[p]
                if depth[v] < 0:
                    depth[v] = du
                    hops += du
                    queue[tail] = v
                    tail += 1
        total[i] = hops
        reached[i] = tail
        for j in range(tail):
            depth[queue[j]] = -1


def hop_sums(offsets, indices, sources, threads):
    """The hops summed over the vertices each source reaches, and how many it reaches (itself
    included), by BFS over the lists of a CSR (a CSC's for the hops into each source).

    Parameters
    ----------
    offsets, indices : numpy.ndarray
        The lists searched.
    sources : numpy.ndarray of int32
        The sources.
    threads : int
        Shares of the sources, searched side by side.

    Returns
    -------
    total, reached : numpy.ndarray of int64
        Per source.
    """
    n, ns = offsets.shape[0] - 1, sources.shape[0]
    total, reached = np.zeros(ns, np.int64), np.zeros(ns, np.int64)
    threads = max(1, min(threads, ns))

    def share(t, stop):
        lo, hi = ns * t // threads, ns * (t + 1) // threads
        depth, queue = np.full(n, -1, np.int32), np.empty(n, np.int32)
        _sources(offsets, indices, sources[lo:hi], depth, queue, total[lo:hi], reached[lo:hi], stop)

    shares.run(share, threads)
    return total, reached
