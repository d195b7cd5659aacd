"""Minimum spanning forest, as ``networkx.minimum_spanning_edges`` (Boruvka's algorithm).

Boruvka (1926), as parallel MST codes run it: every round each component takes its lightest edge
to another component, which at least halves the components. backends/cpu/msf.py scans the arcs in
parallel and merges the picks serially (O(n) a round beside the O(m) scan); the GPU path
(``_msf_cuda``) runs the rounds on the operators. Ties between equal weights are broken by the
edge's ends, a strict order under which the minimum forest is unique: both paths find it.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import msf as _k
from ..dispatch import choose_device, ids_to_caller, takes_graph, to_caller
from ..errors import InvalidArgumentError, InvalidGraphError
from ..results import Result, Timer
from ..transform import check_weights


@dataclass
class MSFResult(Result):
    """A minimum spanning forest, as :func:`minimum_spanning_forest` returns it: its edges and
    the rooted forest (CuPy arrays from the GPU path).

    Attributes
    ----------
    src, dst : numpy.ndarray or cupy.ndarray
        int32 caller ids of each forest edge's ends, ``src < dst``; edges by weight, then ends.
    weight : numpy.ndarray or cupy.ndarray
        Each forest edge's weight (G's weight type; float32 if unweighted).
    total_weight : float
        Their sum.
    parent : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: its parent in the forest rooted at each tree's
        smallest id, -1 at roots.
    """

    src: np.ndarray = None

    vertex_arrays = ("parent",)
    id_arrays = ("parent",)
    dst: np.ndarray = None
    weight: np.ndarray = None
    total_weight: float = 0.0
    parent: np.ndarray = None

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``edges`` and ``trees`` (the
            forest's) and ``total_weight``.
        """
        parent = host(self.parent)
        return super().summary() | {
            "edges": int(host(self.src).size),
            "trees": int(np.count_nonzero(parent < 0)),
            "total_weight": self.total_weight,
        }


@takes_graph
def minimum_spanning_forest(G, weight=True, *, device="auto"):
    """The edges of a minimum spanning forest of G: a minimum spanning tree of each component.

    Boruvka's algorithm: every round each component takes its lightest edge to another component,
    which at least halves the components.

    Parameters
    ----------
    G : Graph
        Undirected. Self loops are ignored; of parallel edges the lightest counts.
    weight : True, str or None, default True
        True (or an attribute name, as NetworkX's ``weight="weight"``: a Graph holds one weight
        array) uses G's weights where it has them; None or False gives every edge weight 1.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. Both find the same
        forest.

    Returns
    -------
    MSFResult
        ``src``, ``dst`` (int32, caller ids, ``src < dst``) and ``weight`` (G's weight type, float32
        if unweighted): the n - c forest edges (c components), by weight, then ends (CuPy arrays
        on the GPU, like ``parent``).
        ``total_weight`` (float): their sum. ``parent`` (int32, per vertex): the forest rooted at
        each tree's smallest id, -1 at roots. ``iterations``: the Boruvka rounds.

    Raises
    ------
    InvalidGraphError
        G is directed.
    InvalidArgumentError
        `weight` is not True, False, None or a string.
    InvalidWeightError
        A weight is NaN (NetworkX's ``ignore_nan=False``) or infinite; the message names the arc.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.minimum_spanning_edges
    scipy.sparse.csgraph.minimum_spanning_tree

    Notes
    -----
    Boruvka (1926), as parallel MST codes run it. Ties between equal weights are broken by the
    edge's ends, a strict order under which the minimum forest is unique: both devices find it.
    Negative weights are fine, as for NetworkX. Each round reads every arc once: O((n + m) log n).
    Where weights tie, the forest may differ from NetworkX's Kruskal forest; its weight does not.

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
    dev = choose_device(device, IMPLEMENTATIONS, name)
    return IMPLEMENTATIONS[dev](G, G.weights if weighted else np.ones(G.nnz, np.float32))


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
    res = MSFResult("minimum_spanning_forest", "cpu", t.seconds, rounds, "boruvka")
    return _forest(G, res, u, G.indices[arc], weights[arc])


def _forest(G, res, u, v, w):
    """`res` with the forest of the edges (u[i], v[i]) of weight w[i] (internal ids, host arrays):
    its edges by weight, then ends, in the caller's ids, their total and the rooted forest (built
    on the host: one serial pass), as arrays of the result's device."""
    n = G.n
    callers = ids_to_caller(G, np.arange(n, dtype=np.int32))
    parent = np.empty(n, np.int32)
    _k.root_forest(n, u, v, np.argsort(callers).astype(np.int32), parent)
    cu, cv = callers[u], callers[v]
    src, dst = np.minimum(cu, cv), np.maximum(cu, cv)
    order = np.lexsort((dst, src, w))
    res.src, res.dst, res.weight = src[order], dst[order], w[order]
    res.total_weight = float(np.sum(w, dtype=np.float64))
    res.parent = to_caller(G, ids_to_caller(G, parent))
    if res.device == "cuda":
        import cupy

        for name in ("src", "dst", "weight", "parent"):
            setattr(res, name, cupy.asarray(getattr(res, name)))
    return res


def _msf_cuda(G, weights):
    """Boruvka on the operators. The arcs are ranked once by (weight, smaller end, larger end), the
    CPU path's strict order, the arcs of one edge alike (a sort of the arcs). Each round a min
    neighbor_reduce over every vertex takes its lightest rank to another component and its apply
    folds it into the component's root (atomicMin); a compute turns each root's pick into a link
    to the other root (of two roots that picked one edge, the smaller links), summing the links;
    a compute unions the links with ECL-CC's union (cc.py) and marks their edges, and another
    points every vertex at its root. Under a strict order the picks form a forest, so the union
    takes every link and the forest is the CPU path's."""
    import cupy

    from ..arrays import entry_rows
    from ..operators import compute, compute_sums, neighbor_reduce
    from .cc import _UNION_FIND

    n = G.n
    dg = G.to("cuda")
    w = cupy.asarray(weights)
    none = "0x7fffffffffffffffLL"
    with Timer("cuda") as t:
        src = entry_rows(dg.offsets, dg.nnz).astype(cupy.int32)
        lo, hi = cupy.minimum(src, dg.indices), cupy.maximum(src, dg.indices)
        keys = cupy.stack([hi, lo, w]).astype(cupy.float64)  # exact for int32 ids and weights
        order = cupy.lexsort(keys) if dg.nnz else cupy.zeros(0, cupy.int64)
        lo, hi, sw = lo[order], hi[order], w[order]
        first = cupy.ones(dg.nnz, cupy.bool_)
        first[1:] = (sw[1:] != sw[:-1]) | (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        rank = cupy.empty(dg.nnz, cupy.int64)
        rank[order] = cupy.cumsum(first) - 1
        edges = cupy.flatnonzero(first)
        lo, hi, sw = lo[edges], hi[edges], sw[edges]
        comp = cupy.arange(n, dtype=cupy.int32)
        pick = cupy.empty(n, cupy.int64)
        link = cupy.empty(n, cupy.int32)
        chosen = cupy.zeros(edges.size, cupy.uint8)
        p = {"comp": comp, "rank": rank, "pick": pick, "link": link, "lo": lo, "hi": hi}
        hook = (
            f"long long e = pick[v]; link[v] = -1; if (comp[v] == v && e != {none}) {{ "
            "int a = comp[lo[e]], b = comp[hi[e]]; int other = a == v ? b : a; "
            "if (!(pick[other] == e && other < v)) link[v] = other; }"
        )
        rounds = 0
        while n:
            pick.fill(np.iinfo(np.int64).max)
            neighbor_reduce(
                dg,
                None,
                f"comp[u] != comp[v] ? rank[edge] : {none}",
                "min",
                dtype=np.int64,
                apply=f"if (acc != {none}) atomicMin(&pick[comp[v]], acc)",
                params=p,
            )
            links = compute_sums(None, ["link[v] >= 0 ? 1.0 : 0.0"], op=hook, params=p, n=n)
            rounds += 1
            if not int(links[0]):  # sync: the round's links
                break
            compute(
                None,
                "if (link[v] >= 0) { gravel_union(comp, v, link[v]); chosen[pick[v]] = 1; }",
                params=p | {"chosen": chosen},
                n=n,
                preamble=_UNION_FIND,
            )
            compute(None, "comp[v] = gravel_root(comp, v)", params=p, n=n, preamble=_UNION_FIND)
        tree = cupy.flatnonzero(chosen)
    res = MSFResult("minimum_spanning_forest", "cuda", t.seconds, rounds, "boruvka")
    return _forest(G, res, lo[tree].get(), hi[tree].get(), sw[tree].get())


def lightest_edges(G, weighted=True):
    """Each vertex pair joined by an arc, with the lightest weight among its arcs.

    Parameters
    ----------
    G : Graph
    weighted : bool, default True
        Use G's weights where it has them; else every arc weighs 1.

    Returns
    -------
    keys : numpy.ndarray
        int64 ``u * n + v`` for each pair with an arc u -> v (u != v, caller ids), ascending.
    weights : numpy.ndarray
        The lightest weight among each pair's arcs (G's weight type; float32 ones if unweighted
        or not `weighted`).

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.msf import lightest_edges
    >>> src, dst, w = [0, 0, 1, 2], [1, 1, 2, 2], [3.0, 1.0, 2.0, 5.0]
    >>> G = gravel.Graph.from_edges(src, dst, w, directed=False)
    >>> keys, weights = lightest_edges(G)  # n = 3: 0 - 1 is keys 1 and 3, the loop none
    >>> keys.tolist(), weights.tolist()
    ([1, 3, 5, 7], [1.0, 1.0, 2.0, 2.0])
    """
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
    """Check a minimum spanning forest: `parent` is a forest of G's edges with one tree per
    component of G, and its weight (the lightest of parallel edges) is NetworkX's
    ``minimum_spanning_tree`` weight and, if given, `total_weight`. Needs NetworkX.

    Parameters
    ----------
    G : Graph
        Undirected.
    parent : array_like
        Each vertex's parent in the forest, over the caller's ids, -1 at roots, on the host.
    total_weight : float, optional
        The total weight the run reported; not compared if None.
    weight : True, str or None, default True
        As :func:`minimum_spanning_forest` takes it: None or False weighs every edge 1.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the forest passes.
    """
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


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _msf_cpu, "cuda": _msf_cuda}
