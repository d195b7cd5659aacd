"""Brandes on the CPU: the sources split over the threads, or every thread on one source."""

import numba
import numpy as np

from ...backends.cpu import bc as _k
from ...results import Timer
from .result import BCResult


def _bc_cpu(G, sources, edges=False):
    """Brandes with the sources split over the threads; with fewer sources than threads (on a
    graph past the serial kernels' size), every thread on each source in turn: the depths from
    the parallel BFS, then :func:`gravel.backends.cpu.bc.dependencies` level by level. With
    `edges`, each arc's dependencies too (``edge_centrality``, in CSR order)."""
    from ...backends.cpu.serial import is_small
    from ..bfs import _bfs_cpu

    threads = numba.get_num_threads()
    by_levels = len(sources) < threads and not is_small(G.nnz)
    with Timer() as t:
        if not G.n:
            raw, arcs = np.zeros(0), np.zeros(0) if edges else None
        elif by_levels:
            in_off, in_idx, _ = G.csc()
            raw, arcs = np.zeros(G.n), np.zeros(G.nnz if edges else 0)
            work = np.empty(G.n), np.empty(G.n), np.empty(G.n, np.int32)  # sigma, delta, order
            for s in sources:
                depth = _bfs_cpu(G, int(s)).depth
                _k.dependencies(G.offsets, G.indices, in_off, in_idx, s, depth, *work, raw, arcs)
            arcs = arcs if edges else None
        else:
            shares = min(threads, len(sources))
            if edges:
                raw, arcs = _k.brandes_arcs(G.offsets, G.indices, sources, shares)
            else:
                raw, arcs = _k.brandes(G.offsets, G.indices, sources, shares), None
    return BCResult(
        "betweenness_centrality",
        "cpu",
        t.seconds,
        len(sources),
        "brandes, level-parallel" if by_levels else "brandes",
        {"sources": len(sources)},
        centrality=raw,
        edge_centrality=arcs,
    )
