"""The tiered placement's device tier: the lists of the hot vertices (:attr:`Plan.hot
<gravel.placement.Plan>`) copied to device memory, while every list stays readable in pinned host
memory.

Vertex v's list sits at ``[offsets[v], offsets[v + 1])`` of the device arrays when that range is
not empty, else only in the host CSR. Kernels that read a list from the tier still name its arcs
by their CSR positions (``edge``), so per-arc arrays keep their meaning.
"""

from typing import NamedTuple

import numpy as np

#: hot arcs gathered per step by :func:`hot_lists`
CHUNK_ARCS = 1 << 26


class HotLists(NamedTuple):
    """The device tier: offsets (int64, n + 1, empty ranges for cold vertices), ids, weights."""

    offsets: object
    indices: object
    weights: object


def hot_positions(offsets, hot):
    """CSR positions of the arcs of the `hot` vertices, in vertex order, and the tier's offsets."""
    lengths = np.diff(offsets) * hot
    tier = np.zeros(len(offsets), np.int64)
    np.cumsum(lengths, out=tier[1:])
    rows = np.flatnonzero(lengths)
    # each arc's CSR position: its row's CSR start, plus its place within the row
    shift = np.repeat(offsets[rows] - tier[rows], lengths[rows])
    return shift + np.arange(tier[-1], dtype=np.int64), tier


def hot_lists(G, hot, m=np):
    """The lists of the vertices where `hot` holds, as arrays of the module `m` (CuPy), gathered
    CHUNK_ARCS arcs at a time (a row with more is a chunk of its own): a tier of billions of arcs
    never needs their positions on the host all at once."""
    hot = np.asarray(hot, bool)
    tier = np.zeros(len(G.offsets), np.int64)
    np.cumsum(np.diff(G.offsets) * hot, out=tier[1:])
    indices = m.empty(int(tier[-1]), np.int32)
    weights = None if G.weights is None else m.empty(int(tier[-1]), np.float32)
    r0 = 0
    while r0 < G.n:
        r1 = max(int(np.searchsorted(tier, tier[r0] + CHUNK_ARCS, side="right")) - 1, r0 + 1)
        positions, _ = hot_positions(G.offsets[r0 : r1 + 1], hot[r0:r1])
        part = slice(int(tier[r0]), int(tier[r1]))
        indices[part] = m.asarray(G.indices[positions])
        if weights is not None:
            weights[part] = m.asarray(G.weights[positions])
        r0 = r1
    return HotLists(m.asarray(tier), indices, weights)
