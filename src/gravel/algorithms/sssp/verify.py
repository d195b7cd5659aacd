"""The verifier: distances against SciPy's Dijkstra, and the predecessor tree's arcs."""

import numpy as np

from ...dispatch import to_caller


def verify_sssp(G, source, distance, predecessor=None, *, rtol=1e-6):
    """Check shortest paths: compare distances with SciPy's Dijkstra (parallel arcs: minimum
    weight), and check a predecessor tree if given (:func:`verify_tree`).

    Parameters
    ----------
    G : Graph
    source : int
        The source's caller id.
    distance : array_like
        The distance of each vertex, over the caller's ids, on the host (``inf`` where
        unreachable).
    predecessor : array_like, optional
        The predecessor of each vertex, likewise; not checked if None.
    rtol : float, default 1e-6
        Relative tolerance of the distances (float32 rounding is allowed on top for the tree).

    Returns
    -------
    list of str
        The first problem found, as a sentence; empty if the paths pass.
    """
    from scipy.sparse.csgraph import dijkstra

    return verify_tree(G, source, distance, predecessor, dijkstra, rtol=rtol)


def verify_tree(G, source, distance, predecessor, reference, *, rtol=1e-6):
    """Compare distances with a SciPy shortest-path function's, and check a predecessor tree if
    given: -1 for the source and unreachable vertices; for every other vertex v an arc p -> v with
    distance[p] + w equal to distance[v] (to float32 rounding), and a chain of predecessors that
    ends at the source.

    Parameters
    ----------
    G : Graph
    source : int
        The source's caller id.
    distance : array_like
        The distance of each vertex, over the caller's ids, on the host (``inf`` where
        unreachable).
    predecessor : array_like or None
        The predecessor of each vertex, likewise; not checked if None.
    reference : callable
        ``scipy.sparse.csgraph.dijkstra`` or ``bellman_ford`` (called with ``directed=True`` and
        ``indices``).
    rtol : float, default 1e-6
        Relative tolerance of the distances (float32 rounding is allowed on top for the tree).

    Returns
    -------
    list of str
        The first problem found, as a sentence; empty if the paths pass.
    """
    from ...transform import deduplicate

    n = G.n
    order = np.arange(n) if G.order is None else G.order.astype(np.int64)
    # SciPy would sum parallel arcs; a path takes the lightest
    D = deduplicate(G)
    expect = to_caller(G, reference(D.to_scipy(), directed=True, indices=int(order[source])))
    distance = np.asarray(distance, np.float64)
    if not np.allclose(expect, distance, rtol=rtol, equal_nan=False):
        bad = int(np.flatnonzero(~np.isclose(expect, distance, rtol=rtol))[0])
        name = reference.__name__.replace("_", "-").title()
        return [f"distance of {bad} is {distance[bad]}, {name} says {expect[bad]}"]
    if predecessor is None:
        return []
    pred = np.asarray(predecessor, np.int64)
    reached = np.isfinite(distance)
    reached[source] = False
    wrong = np.flatnonzero((pred != -1) & ~reached)
    if wrong.size:
        v = int(wrong[0])
        return [f"vertex {v} is the source or unreachable, but its predecessor is {pred[v]}"]
    wrong = np.flatnonzero(reached & ((pred < 0) | (pred >= n)))
    if wrong.size:
        v = int(wrong[0])
        return [f"vertex {v} is reached, but its predecessor is {pred[v]}"]
    v = np.flatnonzero(reached)
    p = pred[v]
    # the lightest arc p -> v, found in D's sorted rows by its key (internal ids)
    src, dst = D.edges()
    keys = src.astype(np.int64) * n + dst
    want = order[p] * n + order[v]
    at = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
    has = keys[at] == want if keys.size else np.zeros(v.size, bool)
    w = np.where(has, D.weights[at] if D.weighted else 1.0, np.inf) if keys.size else np.inf
    step = distance[p] + w
    slack = (rtol + 4 * np.finfo(np.float32).eps) * np.abs(distance[v])
    wrong = np.flatnonzero(~(np.abs(step - distance[v]) <= slack))
    if wrong.size:
        i = int(wrong[0])
        arc = f"arc {p[i]} -> {v[i]}" + ("" if has[i] else " (no such arc)")
        return [f"predecessor of {v[i]} is {p[i]}: {arc} gives {step[i]}, not {distance[v[i]]}"]
    # pointer doubling: after k rounds each entry is the 2**k-th ancestor, -1 past the source
    up = pred.copy()
    for _ in range(max(1, n.bit_length())):
        up = np.where(up >= 0, up[np.maximum(up, 0)], -1)
    if (up >= 0).any():
        return [f"the predecessors of vertex {int(np.flatnonzero(up >= 0)[0])} form a cycle"]
    return []
