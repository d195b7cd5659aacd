"""The tiered placement's device tier: the lists of the hot vertices (:attr:`Plan.hot
<gravel.placement.Plan>`) copied to device memory, while every list stays readable in pinned host
memory. The map of the placements beyond device memory (EMOGI): :mod:`gravel.placement`.

Vertex v's list sits at ``[offsets[v], offsets[v + 1])`` of the device arrays when that range is
not empty, else only in the host CSR. Kernels that read a list from the tier still name its arcs
by their CSR positions (``edge``), so per-arc arrays keep their meaning. :class:`DeviceGraph
<gravel.backends.cuda.graph.DeviceGraph>` builds the tier from its plan, after it pinned the host
lists.
"""

from typing import NamedTuple

import numpy as np

from ..cpu.arcs import gather_rows

#: hot arcs gathered per step by :func:`hot_lists`
CHUNK_ARCS = 1 << 26


class HotLists(NamedTuple):
    """The device tier, what :func:`hot_lists` returns.

    Attributes
    ----------
    offsets : array of int64, shape (n + 1,)
        Where each vertex's list sits in `indices` (an empty range for a cold vertex).
    indices : array
        The hot vertices' lists, in vertex order.
    weights : array of float32, or None
        Their weights, None for an unweighted graph.
    """

    offsets: object
    indices: object
    weights: object


def hot_lists(G, hot, m=np):
    """The lists of the vertices where `hot` holds, gathered on every core CHUNK_ARCS arcs at a time
    (a row with more is a chunk of its own).

    Parameters
    ----------
    G : Graph
        Read for ``n``, ``offsets``, ``indices`` and ``weights``.
    hot : array of bool, shape (n,)
        The vertices whose lists go in the tier.
    m : module, default numpy
        The array module of the tier's arrays (CuPy for the device).

    Returns
    -------
    HotLists
        The tier, as arrays of `m`.
    """
    hot = np.asarray(hot, bool)
    tier = np.zeros(len(G.offsets), np.int64)
    np.cumsum(np.diff(G.offsets) * hot, out=tier[1:])
    arrays = [G.indices] if G.weights is None else [G.indices, G.weights]
    tiers = [m.empty(int(tier[-1]), a.dtype) for a in arrays]
    r0 = 0
    while r0 < G.n:
        r1 = max(int(np.searchsorted(tier, tier[r0] + CHUNK_ARCS, side="right")) - 1, r0 + 1)
        rows = r0 + np.flatnonzero(hot[r0:r1])
        begin, end = int(tier[r0]), int(tier[r1])
        for a, t in zip(arrays, tiers):
            t[begin:end] = m.asarray(
                gather_rows(G.offsets, a, rows, tier[rows] - begin, end - begin)
            )
        r0 = r1
    return HotLists(m.asarray(tier), tiers[0], tiers[1] if len(tiers) > 1 else None)
