"""Vertex orders for cache locality (Balaji's thesis, chapters 2 and 3), as pure functions.

Lightweight, degree-based orders put the hubs (degree above the average) next to each other so that
their data shares cache lines: degree sort, hub sort, hub cluster and DBG; RCM (SciPy's) is the
classic bandwidth-reducing order. The packing factor (the thesis's Algorithm 3) predicts whether hub
sorting pays. Every order takes the degrees (NumPy or CuPy: it runs where they live, with no host
wait) and returns ``perm`` with ``perm[v]`` the new id of vertex v."""

import numpy as np

from ..arrays import xp


def perm_from_order(order):
    """order[k] = the vertex that becomes k  ->  perm[v] = new id of v."""
    m = xp(order)
    perm = m.empty(order.size, m.int32)
    perm[order] = m.arange(order.size, dtype=m.int32)
    return perm


def hubs(degree):
    """Boolean mask of the hubs: degree above the average (tested in integers, on the device where
    the degrees are: no wait for it)."""
    degree = degree.astype(xp(degree).int64)
    return degree * degree.size > degree.sum()


def degree_sort(degree):
    """Every vertex by decreasing degree (ties keep their order)."""
    m = xp(degree)
    return perm_from_order(m.argsort(-degree.astype(m.int64), kind="stable"))


def hub_sort(degree):
    """Hubs first by decreasing degree; the other vertices keep their relative order."""
    m = xp(degree)
    h = hubs(degree)
    hub_ids = m.flatnonzero(h)
    hub_ids = hub_ids[m.argsort(-degree[hub_ids].astype(m.int64), kind="stable")]
    return perm_from_order(m.concatenate([hub_ids, m.flatnonzero(~h)]))


def hub_cluster(degree):
    """Hubs first in their original order, then the rest: the cheapest grouping."""
    m = xp(degree)
    h = hubs(degree)
    return perm_from_order(m.concatenate([m.flatnonzero(h), m.flatnonzero(~h)]))


def dbg(degree):
    """Degree-based grouping (Faldu et al., IISWC'19): groups of degree in [2^k, 2^(k+1)) times the
    average, k from -1 (and below) to 5 (and above), hottest group first, original order inside."""
    m = xp(degree)
    if not degree.size:
        return m.zeros(0, m.int32)
    avg = m.maximum(degree.sum() / degree.size, 1e-12)
    group = m.clip(m.floor(m.log2(m.maximum(degree, 1e-12) / avg)), -1, 5).astype(m.int64)
    group[degree == 0] = -2  # vertices without edges last
    return perm_from_order(m.argsort(-group, kind="stable"))


def rcm(adjacency):
    """Reverse Cuthill-McKee (SciPy's) of a symmetric SciPy sparse adjacency matrix."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    if adjacency.shape[0] == 0:
        return np.zeros(0, np.int32)
    order = reverse_cuthill_mckee(adjacency.tocsr(), symmetric_mode=True)
    return perm_from_order(np.asarray(order, dtype=np.int64))


def packing_factor(degree, *, line_bytes=64, value_bytes=4):
    """Algorithm 3 of the thesis: cache lines holding at least one hub in the current order, over
    ceil(hubs / vertices per line). 1 means the hubs are already packed; large values predict gains.
    One pass over the degrees and one read of its two counts."""
    m = xp(degree)
    per_line = max(line_bytes // value_bytes, 1)
    h = hubs(degree)
    lines = m.concatenate([h, m.zeros(-h.size % per_line, bool)]).reshape(-1, per_line)
    n_hubs, lines_with_hub = (int(x) for x in m.stack([h.sum(), lines.any(axis=1).sum()]).tolist())
    return lines_with_hub / -(-n_hubs // per_line) if n_hubs else 1.0
