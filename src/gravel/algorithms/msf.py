"""Minimum spanning forest, as ``networkx.minimum_spanning_edges`` (Boruvka's algorithm).

Boruvka (1926), as parallel MST codes run it: every round each component takes its lightest edge
to another component, which at least halves the components. backends/cpu/msf.py scans the arcs in
parallel and merges the picks serially (O(n) a round beside the O(m) scan). Ties between equal
weights are broken by the edge's ends, so the forest is one of the minimum ones and its weight is
the minimum. There is no CUDA path yet.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import msf as _k
from ..errors import InvalidArgumentError, InvalidGraphError
from ..transform import check_weights
from ._common import Result, Timer, choose_device, ids_to_caller, to_caller


@dataclass
class MSFResult(Result):
    src: np.ndarray = None
    dst: np.ndarray = None
    weight: np.ndarray = None
    total_weight: float = 0.0
    parent: np.ndarray = None

    def summary(self):
        parent = host(self.parent)
        return super().summary() | {
            "edges": int(host(self.src).size),
            "trees": int(np.count_nonzero(parent < 0)),
            "total_weight": self.total_weight,
        }


def minimum_spanning_forest(G, weight=True, *, device="auto"):
    """The edges of a minimum spanning forest of G: a minimum spanning tree of each component.

    Parameters
    ----------
    G : Graph
        Undirected. Self loops are ignored; of parallel edges the lightest counts.
    weight : True, str or None, default True
        True (or an attribute name, as NetworkX's ``weight="weight"``: a Graph holds one weight
        array) uses G's weights where it has them; None or False gives every edge weight 1.
    device : {"auto", "cpu", "cuda"}
        Only the CPU path exists: "auto" runs it, "cuda" raises DeviceUnavailableError.

    Returns
    -------
    MSFResult
        ``src``, ``dst`` (int32, caller ids, ``src < dst``) and ``weight`` (G's weight type, float32
        if unweighted): the n - c forest edges (c components), by weight, then ends.
        ``total_weight`` (float): their sum. ``parent`` (int32, per vertex): the forest rooted at
        each tree's smallest id, -1 at roots. ``iterations``: the Boruvka rounds.

    Examples
    --------
    >>> import gravel
    >>> src, dst, w = [0, 1, 0, 3], [1, 2, 2, 4], [1.0, 2.0, 5.0, -1.0]
    >>> G = gravel.Graph.from_edges(src, dst, w, directed=False)
    >>> r = gravel.minimum_spanning_forest(G, device="cpu")
    >>> r.src.tolist(), r.dst.tolist(), r.weight.tolist(), r.total_weight
    ([3, 0, 1], [4, 1, 2], [-1.0, 1.0, 2.0], 2.0)
    >>> r.parent.tolist()
    [-1, 0, 1, -1, 3]

    Notes
    -----
    Negative weights are fine, as for NetworkX. Each round reads every arc once: O((n + m) log n).
    Where weights tie, the forest may differ from NetworkX's Kruskal forest; its weight does not.

    Raises
    ------
    InvalidGraphError
        G is directed.
    InvalidWeightError
        A weight is NaN (NetworkX's ``ignore_nan=False``) or infinite; the message names the arc.
    """
    name = "minimum_spanning_forest"
    if G.directed:
        raise InvalidGraphError(f"{name} is not implemented for directed graphs")
    if weight is None or weight is False:
        weighted = False
    elif weight is True or isinstance(weight, str):
        weighted = G.weighted
    else:
        raise InvalidArgumentError(
            f"weight must be True, None or an attribute name, not {weight!r}"
        )
    if weighted:
        check_weights(G, negative=True, name=name)
    dev = choose_device(device, _IMPLEMENTATIONS, name)
    return _IMPLEMENTATIONS[dev](G, G.weights if weighted else np.ones(G.nnz, np.float32))


def _msf_cpu(G, weights):
    n = G.n
    comp = np.arange(n, dtype=np.int32)
    best = np.empty(n, np.int64)
    pick = np.full(n, -1, np.int64)
    pick_u = np.empty(n, np.int32)
    tree_u = np.empty(max(n - 1, 0), np.int32)
    tree_arc = np.empty(max(n - 1, 0), np.int64)
    k = _k.kernels(G.nnz)
    count = rounds = 0
    with Timer() as t:
        while True:
            k.lightest_arcs(G.offsets, G.indices, weights, comp, best)
            rounds += 1
            new = _k.merge(G.indices, weights, comp, best, pick, pick_u, tree_u, tree_arc, count)
            if new == count:
                break
            count = new
            k.compress(comp)
    u, arc = tree_u[:count], tree_arc[:count]
    v = G.indices[arc]
    callers = ids_to_caller(G, np.arange(n, dtype=np.int32))
    parent = np.empty(n, np.int32)
    _k.root_forest(n, u, v, np.argsort(callers).astype(np.int32), parent)
    cu, cv, w = callers[u], callers[v], weights[arc]
    src, dst = np.minimum(cu, cv), np.maximum(cu, cv)
    order = np.lexsort((dst, src, w))
    return MSFResult(
        "minimum_spanning_forest",
        "cpu",
        t.seconds,
        rounds,
        "boruvka",
        src=src[order],
        dst=dst[order],
        weight=w[order],
        total_weight=float(np.sum(w, dtype=np.float64)),
        parent=to_caller(G, ids_to_caller(G, parent)),
    )


def lightest_edges(G, weighted=True):
    """``(keys, weights)``: each vertex pair u * n + v with an arc u -> v (u != v, caller ids)
    and the lightest weight among its arcs (1 if unweighted or not `weighted`), sorted by key."""
    n = G.n
    callers = ids_to_caller(G, np.arange(n, dtype=np.int32)).astype(np.int64)
    src, dst = G.edges()
    w = G.weights if G.weighted and weighted else np.ones(G.nnz, np.float32)
    keys = callers[src] * n + callers[dst]
    keep = src != dst
    keys, w = keys[keep], w[keep]
    order = np.lexsort((w, keys))
    keys, w = keys[order], w[order]
    first = np.ones(keys.size, bool)
    first[1:] = keys[1:] != keys[:-1]
    return keys[first], w[first]


def verify_msf(G, parent, *, total_weight=None, weight=True):
    """Check that `parent` (caller ids, -1 at roots) is a forest of G's edges with one tree per
    component of G, that its weight (the lightest of parallel edges; 1 each with `weight` None
    or False) is NetworkX's ``minimum_spanning_tree`` weight and, if given, `total_weight`'s.
    Returns a list of problems."""
    import networkx as nx

    n = G.n
    parent = np.asarray(parent)
    if parent.shape != (n,) or (n and (parent.min() < -1 or parent.max() >= n)):
        return [f"parent must hold {n} vertex ids or -1"]
    parent = parent.astype(np.int64)
    child = np.flatnonzero(parent >= 0)
    keys, w = lightest_edges(G, weight is not None and weight is not False)
    q = child * n + parent[child]
    pos = np.minimum(np.searchsorted(keys, q), max(keys.size - 1, 0))
    missing = child[(keys[pos] != q) if keys.size else np.ones(child.size, bool)]
    if missing.size:
        v = int(missing[0])
        return [f"vertex {v}: no edge to its parent {int(parent[v])}"]
    up = np.where(parent < 0, np.arange(n), parent)
    for _ in range(int(np.ceil(np.log2(n + 1))) + 1):
        up = up[up]
    if np.any(parent[up] >= 0):
        return [f"vertex {int(np.flatnonzero(parent[up] >= 0)[0])}: its parents form a cycle"]
    sources, targets = np.divmod(keys, n)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(zip(sources.tolist(), targets.tolist(), w.tolist()))
    problems = []
    trees, components = n - child.size, nx.number_connected_components(g)
    if trees != components:
        problems.append(f"{trees} trees, but G has {components} components")
    ours = float(np.sum(w[pos], dtype=np.float64))
    theirs = nx.minimum_spanning_tree(g).size(weight="weight")
    scale = 1e-6 * max(float(np.sum(np.abs(w), dtype=np.float64)), 1.0)
    if abs(ours - theirs) > scale:
        problems.append(f"forest weight {ours}, NetworkX's minimum spanning tree weighs {theirs}")
    if total_weight is not None and abs(float(total_weight) - ours) > scale:
        problems.append(f"total_weight {total_weight}, but the forest weighs {ours}")
    return problems


_IMPLEMENTATIONS = {"cpu": _msf_cpu}
