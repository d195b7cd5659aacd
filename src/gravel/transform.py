"""Graph transforms, each returning a new Graph (the input is never changed), and the check of a
graph's weights that algorithms share."""

import numpy as np

from . import seeds
from .arguments import is_integer
from .arrays import entry_rows, host, xp
from .backends.cpu import csr as _csr  # loaded on first use
from .backends.cpu import tc as _tc
from .backends.cuda.graph import DeviceGraph  # imports no CuPy
from .errors import InvalidGraphError, InvalidWeightError
from .graph import Graph


def symmetrize(G):
    """The undirected graph with an edge {u, v} for every arc u -> v (parallel edges kept).

    Parameters
    ----------
    G : Graph
        Directed or undirected.

    Returns
    -------
    Graph
        `G` itself where it is undirected already; else a new undirected graph with G's weights
        and labels (not its order). Arcs u -> v and v -> u give two parallel edges
        (:func:`deduplicate` merges them).

    Examples
    --------
    >>> from gravel import Graph
    >>> from gravel.transform import symmetrize
    >>> S = symmetrize(Graph.from_edges([0, 1], [1, 2]))
    >>> S.directed, S.m, S.nnz
    (False, 2, 4)
    """
    if not G.directed:
        return G
    # streamed from the rows: no edge list besides the new CSR
    blocks = _csr.row_blocks(G.offsets, G.indices, G.weights)
    offsets, indices, weights = _csr.stream_csr(
        blocks, G.nnz, G.n, True, weighted=G.weights is not None
    )
    return Graph.from_csr(offsets, indices, weights, directed=False, labels=G.labels, trusted=True)


def deduplicate(G):
    """Merge parallel arcs, keeping the minimum weight.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    Graph
        A new graph, directed as `G` is, with G's labels and order.

    Examples
    --------
    >>> from gravel import Graph
    >>> from gravel.transform import deduplicate
    >>> G = Graph.from_edges([0, 0, 1], [1, 1, 1], [3.0, 2.0, 5.0])
    >>> deduplicate(G).weights.tolist()
    [2.0, 5.0]
    """
    return _cleaned(G, dedupe=True, drop_loops=False)


def drop_self_loops(G):
    """Remove every arc u -> u.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    Graph
        A new graph, directed as `G` is, with G's labels and order.

    Examples
    --------
    >>> from gravel import Graph
    >>> from gravel.transform import drop_self_loops
    >>> drop_self_loops(Graph.from_edges([0, 1], [1, 1])).nnz
    1
    """
    return _cleaned(G, dedupe=False, drop_loops=True)


def _cleaned(G, *, dedupe, drop_loops):
    """G with its rows cleaned (:func:`gravel.backends.cpu.csr.clean_rows`): still valid, and
    mirrored where G is, so its arrays need no check."""
    off, idx, w = _csr.clean_rows(
        G.offsets, G.indices, G.weights, dedupe=dedupe, drop_loops=drop_loops
    )
    return Graph.from_csr(
        off, idx, w, directed=G.directed, labels=G.labels, order=G.order, trusted=True
    )


def simple_undirected(G):
    """Symmetrised, deduplicated, loop-free, unweighted: the graph triangle counting and k-core see
    (built once per graph and kept: :meth:`Graph.simple_undirected`).

    Parameters
    ----------
    G : Graph

    Returns
    -------
    Graph
        ``G.simple_undirected()``: the same object on every call for one `G`.
    """
    return G.simple_undirected()


def add_random_weights(G, low=1, high=64, *, seed=0):
    """Integer weights drawn uniformly from ``[low, high]`` (Gunrock's convention is 1..64).

    Both directions of an undirected edge get the same weight, so the graph stays symmetric.

    Parameters
    ----------
    G : Graph
        Its weights, if any, are replaced.
    low, high : int, default 1, 64
        The bounds, both included: integers with ``0 <= low <= high < 2**24`` (float32 holds
        them exactly).
    seed : None, int, sequence of int or numpy.random.Generator, default 0
        The random generator's seed (:func:`gravel.seeds.rng`).

    Returns
    -------
    Graph
        G's arcs, labels and order with float32 weights. A directed graph's weights are drawn
        arc by arc; an undirected one's are a hash of the unordered pair and a drawn salt.

    Raises
    ------
    InvalidGraphError
        A bound that is not an integer below 2**24, or ``not 0 <= low <= high``.
    InvalidArgumentError
        A `seed` that :func:`gravel.seeds.rng` refuses.

    Examples
    --------
    >>> import gravel
    >>> from gravel.transform import add_random_weights
    >>> W = add_random_weights(gravel.generate.grid(2, 3), 1, 8, seed=1)
    >>> bool(W.weights.min() >= 1 and W.weights.max() <= 8), W.whole_weights
    (True, True)
    """
    for bound in (low, high):
        if not is_integer(bound) or bound >= 2**24:
            raise InvalidGraphError(
                f"weight bounds must be integers below 2**24 (float32 holds them), not {bound!r}"
            )
    if not 0 <= low <= high:
        raise InvalidGraphError(f"weight range [{low}, {high}] is empty or negative")
    rng = seeds.rng(seed)
    if G.directed:
        w = rng.integers(low, high + 1, size=G.nnz).astype(np.float32)
    else:
        w = _pair_weights(G, low, high, np.uint64(rng.integers(0, 2**63)))
    return Graph.from_csr(
        G.offsets, G.indices, w, directed=G.directed, labels=G.labels, order=G.order, trusted=True
    )


#: arcs an undirected graph's weights are hashed for at a time (rows whole): the hash's temporaries
#: take about 60 bytes an arc, where the weights take 4 (urand:22 peaked at 12x its CSR at once:
#: docs/tuning.md)
WEIGHT_CHUNK = 1 << 22


def _pair_weights(G, low, high, salt):
    """Weights of an undirected graph's arcs, each a hash of its unordered pair and `salt`, so that
    u->v and v->u agree; rows WEIGHT_CHUNK arcs at a time."""
    w = np.empty(G.nnz, np.float32)
    offsets, indices, span = G.offsets, G.indices, np.uint64(high - low + 1)
    starts = np.searchsorted(offsets, np.arange(0, G.nnz, WEIGHT_CHUNK), side="right") - 1
    rows = np.append(np.unique(starts), G.n)
    for r0, r1 in zip(rows[:-1].tolist(), rows[1:].tolist()):
        a, b = int(offsets[r0]), int(offsets[r1])
        src = entry_rows(offsets[r0 : r1 + 1] - a, b - a) + r0
        dst = indices[a:b]
        key = np.minimum(src, dst).astype(np.uint64) * np.uint64(G.n)
        key += np.maximum(src, dst).astype(np.uint64)
        w[a:b] = low + mix64(key ^ salt) % span
    return w


def relabel(G, perm, *, transparent=False):
    """Renumber vertices: vertex ``v`` becomes ``perm[v]``.

    With ``transparent=True`` the graph remembers the permutation (its ``order``), and algorithms
    keep returning results indexed by the caller's original ids; this is how reordering works. A
    graph already on the GPU is permuted there, and the result keeps its device copy.

    Parameters
    ----------
    G : Graph
    perm : array_like of int, shape (n,)
        A permutation of range(n), on the host or (for a graph on the GPU) the device.
    transparent : bool, default False
        Keep the caller's ids: the result's ``order`` maps them to the new ids (composed with
        G's own order). Otherwise the labels move with their vertices and there is no order.

    Returns
    -------
    Graph
        Directed and weighted as `G` is; rows sorted. On the GPU where G has a device copy (its
        host arrays are copied on first use).

    Raises
    ------
    InvalidGraphError
        `perm` is not a permutation of range(n); or ``transparent=False`` for a graph that is
        reordered already (it has an order).

    See Also
    --------
    gravel.reorder : the reordering planner.

    Examples
    --------
    >>> from gravel import Graph
    >>> from gravel.transform import relabel
    >>> src, dst = relabel(Graph.from_edges([0, 1], [1, 2]), [2, 1, 0]).edges()
    >>> src.tolist(), dst.tolist()
    ([1, 2], [0, 1])
    """
    # checked and applied where the graph lives; the host keeps a copy for the caller's ids
    dg = G.device_graph
    m = np if dg is None else xp(dg.offsets)
    dev_perm = m.asarray(perm)
    if dev_perm.shape != (G.n,) or (G.n and not _is_permutation(dev_perm)):
        raise InvalidGraphError("perm must be a permutation of range(n)")
    dev_perm = dev_perm.astype(m.int32, copy=False)
    perm = host(dev_perm)
    if transparent:
        # labels stay indexed by the caller's ids; order maps caller ids to the new internal ids
        order = perm if G.order is None else perm[G.order]
        labels = G.labels
    else:
        if G.order is not None:
            raise InvalidGraphError("this graph is reordered: relabel it with transparent=True")
        order = None
        labels = None
        if G.labels is not None:
            labels = np.empty_like(G.labels)
            labels[perm] = G.labels
    if dg is not None:
        arrays = permute_csr(dg.offsets, dg.indices, dg.weights, dev_perm)
        dg = DeviceGraph.from_arrays(*arrays, directed=G.directed)
        return Graph.from_device(dg, labels=labels, order=order)
    offsets, indices, weights = _csr.permute(G.offsets, G.indices, G.weights, perm)
    return Graph.from_csr(
        offsets, indices, weights, directed=G.directed, labels=labels, order=order, trusted=True
    )


def _is_permutation(perm):
    """Does `perm` hold every id of range(len(perm)) once? (one sync, with its array module)"""
    m = xp(perm)
    inside = (perm >= 0) & (perm < perm.size)
    seen = m.zeros(perm.size, bool)
    seen[m.where(inside, perm, 0)] = True
    return bool(inside.all() & seen.all())


def permute_csr(offsets, indices, weights, perm):
    """A CSR with vertex v renamed perm[v], by whole-array operations of the inputs' module (one
    sort of (new row, new id) keys: the GPU's way; the host's Numba path permutes rows in parallel
    instead). Parallel arcs keep their order.

    Parameters
    ----------
    offsets : numpy.ndarray or cupy.ndarray of int64, shape (n + 1,)
    indices : numpy.ndarray or cupy.ndarray of int, shape (nnz,)
    weights : numpy.ndarray or cupy.ndarray of float32, shape (nnz,), or None
    perm : numpy.ndarray or cupy.ndarray of int, shape (n,)
        A permutation of range(n) (not checked), on the device of the other arrays.

    Returns
    -------
    offsets : int64 array, shape (n + 1,)
    indices : int32 array, shape (nnz,)
        Each row sorted by new id.
    weights : float32 array or None
        Moved with their arcs.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.transform import permute_csr
    >>> offsets, indices = np.array([0, 1, 2, 2]), np.array([1, 2], np.int32)
    >>> offsets, indices, _ = permute_csr(offsets, indices, None, np.array([2, 1, 0]))
    >>> offsets.tolist(), indices.tolist()
    ([0, 0, 1, 2], [0, 1])
    """
    m = xp(offsets)
    n, nnz = offsets.size - 1, indices.size
    deg = offsets[1:] - offsets[:-1]
    new_deg = m.empty_like(deg)
    new_deg[perm] = deg
    new_offsets = m.zeros(n + 1, m.int64)
    m.cumsum(new_deg, out=new_offsets[1:])
    row = entry_rows(offsets, nnz)
    ids = perm[indices]
    order = m.argsort(perm[row].astype(m.int64) * n + ids, kind="stable")
    return new_offsets, ids[order].astype(m.int32), (None if weights is None else weights[order])


def orient_by_degree(G):
    """Each edge {u, v} of the undirected graph `G` once, as an arc from the lower to the higher
    (degree, id) rank: the forward algorithm's graph for triangle counting.

    Every triangle of a simple graph appears in the result exactly once (u -> v, v -> w, u -> w),
    and no vertex keeps more than about sqrt(2m) out-arcs. Self loops go; parallel edges stay, so
    orient ``G.simple_undirected()``. A graph with a device copy is oriented on the GPU, and the
    result lives there (its host arrays are copied on first use).

    Parameters
    ----------
    G : Graph
        Undirected.

    Returns
    -------
    Graph
        Directed and unweighted, with G's ids, labels and order; rows sorted.

    Raises
    ------
    InvalidGraphError
        `G` is directed.

    Examples
    --------
    >>> import gravel
    >>> from gravel.transform import orient_by_degree
    >>> O = orient_by_degree(gravel.generate.grid(2, 3))
    >>> O.directed, O.nnz
    (True, 7)
    """
    if G.directed:
        raise InvalidGraphError("orient_by_degree takes an undirected graph (symmetrize it first)")
    dg = G.device_graph
    if dg is None:
        off, idx = _tc.orient(G.offsets, G.indices, G.out_degree)
        return Graph.from_csr(off, idx, directed=True, labels=G.labels, order=G.order, trusted=True)
    if xp(dg.offsets) is np:  # a device graph over host arrays (the tests' stand-in)
        orient = _tc.orient
    else:
        from .backends.cuda.orient import orient
    off, idx = orient(dg.offsets, dg.indices, dg.out_degree)
    return Graph.from_device(
        DeviceGraph.from_arrays(off, idx, directed=True), labels=G.labels, order=G.order
    )


def check_weights(G, *, negative=False, name="this algorithm"):
    """Raise InvalidWeightError unless every weight of `G` is one an algorithm can take: a number,
    finite, and non-negative unless `negative`.

    Parameters
    ----------
    G : Graph
        An unweighted graph passes (its weights are all 1).
    negative : bool, default False
        Accept negative weights (NaN and infinite ones are refused all the same).
    name : str, optional
        Who asks, for the message (``"sssp"``, say).

    Raises
    ------
    InvalidWeightError
        Names the first arc at fault, in the caller's ids (labels where the graph has them), and
        its weight. Infinite weights include those beyond float32's range (about 3.4e38), which
        became infinite when the graph was built.

    Notes
    -----
    O(m) once per graph (:attr:`Graph.weight_stats`); the arc at fault is found where the weights
    live: on the GPU when the graph has a device copy (one sync), else on the host.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -2.0])
    >>> gravel.check_weights(G, negative=True)
    >>> try:
    ...     gravel.check_weights(G, name="sssp")
    ... except gravel.InvalidWeightError as e:
    ...     print(e)
    sssp needs non-negative weights: arc 1 -> 2 has weight -2.0
    """
    if not G.weighted:
        return
    lo, hi, _ = G.weight_stats  # a scan once per graph; the arc at fault is looked for below
    if np.isfinite(lo) and np.isfinite(hi) and (negative or lo >= 0):
        return
    dg = G.device_graph
    offsets, indices, w = (
        (dg.offsets, dg.indices, dg.weights)
        if dg is not None
        else (G.offsets, G.indices, G.weights)
    )
    if w is None:
        return
    m = xp(w)
    bad = ~m.isfinite(w)
    if not negative:
        bad |= w < 0
    if not bool(bad.any()):  # sync
        return
    e = int(m.flatnonzero(bad)[0])
    u = int(m.searchsorted(offsets, m.asarray([e]), side="right")[0]) - 1
    weight = float(w[e])
    arc = f"arc {caller_name(G, u)} -> {caller_name(G, int(indices[e]))} has weight {weight}"
    if np.isnan(weight):
        raise InvalidWeightError(f"{name} needs weights that are numbers: {arc}")
    if np.isinf(weight):
        raise InvalidWeightError(f"{name} needs finite weights (float32 ends near 3.4e38): {arc}")
    raise InvalidWeightError(f"{name} needs non-negative weights: {arc}")


def caller_name(G, v):
    """How the caller names internal vertex `v`, for an error message: its id before reordering,
    or its label.

    Parameters
    ----------
    G : Graph
    v : int
        An internal id (an index of G's arrays).

    Returns
    -------
    int or label
    """
    if G.order is not None:
        v = int(np.flatnonzero(G.order == v)[0])
    return v if G.labels is None else G.labels[v : v + 1].tolist()[0]


def mix64(x):
    """splitmix64 finaliser on uint64 arrays: a cheap, well-mixed hash.

    Parameters
    ----------
    x : numpy.ndarray of uint64

    Returns
    -------
    numpy.ndarray of uint64
        The hash of each entry: the keys of :func:`add_random_weights`' undirected weights.
    """
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))
