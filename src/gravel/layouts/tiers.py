"""The tiered placement's device tier: the lists of the hot vertices (:attr:`Plan.hot
<gravel.placement.Plan>`) copied to device memory, while every list stays readable in pinned host
memory.

Vertex v's list sits at ``[offsets[v], offsets[v + 1])`` of the device arrays when that range is
not empty, else only in the host CSR. Kernels that read a list from the tier still name its arcs
by their CSR positions (``edge``), so per-arc arrays keep their meaning.
"""

from typing import NamedTuple

import numpy as np


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
    """The lists of the vertices where `hot` holds, as arrays of the module `m` (CuPy)."""
    positions, tier = hot_positions(G.offsets, np.asarray(hot, bool))
    weights = None if G.weights is None else m.asarray(G.weights[positions])
    return HotLists(m.asarray(tier), m.asarray(G.indices[positions]), weights)
