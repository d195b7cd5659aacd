"""The tiered placement's device tier: the lists of the hot vertices (:attr:`Plan.hot
<gravel.placement.Plan>`) copied to device memory, while every list stays readable in pinned host
memory.

Vertex v's list sits at ``[offsets[v], offsets[v + 1])`` of the device arrays when that range is
not empty, else only in the host CSR. Kernels that read a list from the tier still name its arcs
by their CSR positions (``edge``), so per-arc arrays keep their meaning.
"""

from typing import NamedTuple

import numpy as np

from ..backends.cpu.csr import gather_rows

#: hot arcs gathered per step by :func:`hot_lists`
CHUNK_ARCS = 1 << 26


class HotLists(NamedTuple):
    """The device tier: offsets (int64, n + 1, empty ranges for cold vertices), ids, weights."""

    offsets: object
    indices: object
    weights: object


def hot_lists(G, hot, m=np):
    """The lists of the vertices where `hot` holds, as arrays of the module `m` (CuPy), gathered on
    every core CHUNK_ARCS arcs at a time (a row with more is a chunk of its own)."""
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
