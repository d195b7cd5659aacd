"""Link prediction: similarity scores of vertex pairs from their common neighbours, as NetworkX's
``jaccard_coefficient``, ``adamic_adar_index`` and ``resource_allocation_index`` and cuGraph's
``jaccard``, ``sorensen`` and ``overlap`` compute them.

Scored on the simple undirected graph (a directed graph symmetrised, self loops and parallel edges
dropped). The common neighbours of many pairs are found at once: on the CPU one merge per pair
(the shorter list searched in the longer where they differ a lot), on the GPU the segmented
intersection operator for their number, and a binary search of the shorter list's entries where
each common neighbour carries a weight (Adamic-Adar, resource allocation).
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host, xp
from ..dispatch import choose_device, takes_graph
from ..errors import InvalidArgumentError, UnknownNameError, VertexNotFoundError
from ..results import Result, Timer
from .neighbors import arc_keys, common_entries, tally

#: the scores, by name: each a function of the common neighbours' count (or weight sum) and the
#: two degrees; ``weight`` is what each common neighbour w adds, from its degree (None: 1)
METHODS = (
    "common_neighbors",
    "jaccard",
    "sorensen",
    "overlap",
    "adamic_adar",
    "resource_allocation",
)
#: pairs scored in one batch on the GPU (bounds the entries searched at once)
GPU_BATCH = 1 << 20


@dataclass
class LinkPredictionResult(Result):
    """Scores of vertex pairs, as :func:`link_prediction` returns them.

    Attributes
    ----------
    us, vs : numpy.ndarray
        int32 per pair, caller ids: its two vertices.
    score : numpy.ndarray or cupy.ndarray
        float64 per pair: its score by the method asked for.
    common : numpy.ndarray or cupy.ndarray
        int64 per pair: the common neighbours of its vertices.
    """

    us: np.ndarray = None
    vs: np.ndarray = None
    score: np.ndarray = None
    common: np.ndarray = None

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``pairs``: how many were scored.
        """
        return super().summary() | {"pairs": int(self.us.shape[0])}


@takes_graph
def link_prediction(G, pairs=None, *, method="jaccard", device="auto"):
    """Similarity scores of vertex pairs from their common neighbours.

    With N(v) the neighbours of v and d(v) = ``|N(v)|``, for a pair (u, v) and
    c = ``|N(u) ∩ N(v)|``: ``"common_neighbors"`` is c; ``"jaccard"`` c / ``|N(u) ∪ N(v)|``;
    ``"sorensen"`` 2c / (d(u) + d(v)); ``"overlap"`` c / min(d(u), d(v)) (each 0 where its
    denominator is); ``"adamic_adar"`` the sum of 1 / log d(w) and ``"resource_allocation"``
    that of 1 / d(w) over the common neighbours w.

    Parameters
    ----------
    G : Graph
        Scored as its simple undirected graph: a directed graph is symmetrised, weights are
        ignored, and self loops and parallel edges dropped.
    pairs : array_like of int, shape (k, 2), optional
        The pairs, as caller ids. None (the default, as cuGraph's): every edge, once.
    method : str, default "jaccard"
        One of ``"common_neighbors"``, ``"jaccard"``, ``"sorensen"``, ``"overlap"``,
        ``"adamic_adar"`` and ``"resource_allocation"``.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    LinkPredictionResult
        ``us``, ``vs`` (the pairs, caller ids), ``score`` (float64) and ``common`` (int64) per
        pair; CuPy arrays for the last two on the GPU.

    Raises
    ------
    InvalidArgumentError
        `pairs` is not an array of integer pairs.
    VertexNotFoundError
        A pair names a vertex that is not in `G` (the message names it).
    UnknownNameError
        `method` is none of the above, or `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.jaccard_coefficient, networkx.adamic_adar_index,
    networkx.resource_allocation_index

    Notes
    -----
    A pair (u, u) has c = d(u); its Adamic-Adar index is infinite where a neighbour of u has
    degree 1. O(sum over pairs of min(d(u), d(v)) log max(d(u), d(v))) at most.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 1], [1, 2, 2, 3], directed=False)
    >>> r = gravel.link_prediction(G, [(0, 3), (2, 3)], device="cpu")
    >>> r.common.tolist(), r.score.tolist()
    ([1, 1], [0.5, 0.5])
    """
    if method not in METHODS:
        raise UnknownNameError(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
    S = G.simple_undirected()
    us, vs = _pairs(S, pairs)
    inner_u, inner_v = (us, vs) if G.order is None else (G.order[us], G.order[vs])
    dev = choose_device(device, IMPLEMENTATIONS, "link_prediction")
    degree = S.out_degree.astype(np.float64)
    with np.errstate(divide="ignore"):  # only a pair (u, u) reaches a vertex of degree < 2
        weights = {"adamic_adar": 1 / np.log(degree), "resource_allocation": 1 / degree}
    weights = weights.get(method)
    with Timer(dev) as t:
        common, sums = neighbor_sums(S, inner_u, inner_v, weights, device=dev)
        score = _score(method, common, sums, S.out_degree, inner_u, inner_v)
    return LinkPredictionResult(
        "link_prediction", dev, t.seconds, 1, method, us=us, vs=vs, score=score, common=common
    )


def _pairs(S, pairs):
    """The pairs as two int32 arrays of caller ids, checked; every edge once where None."""
    if pairs is None:
        rows = np.repeat(np.arange(S.n, dtype=np.int32), np.diff(S.offsets))
        keep = rows < S.indices
        return rows[keep], S.indices[keep].astype(np.int32)
    a = np.asarray(pairs)
    if a.size == 0:
        a = np.zeros((0, 2), np.int64)
    if a.ndim != 2 or a.shape[1] != 2 or not np.issubdtype(a.dtype, np.integer):
        raise InvalidArgumentError(f"pairs must be k pairs of integer vertex ids, not {pairs!r}")
    bad = np.flatnonzero((a < 0) | (a >= S.n))
    if bad.size:
        raise VertexNotFoundError(f"pairs hold vertex {a.flat[bad[0]]}, not in the graph")
    return a[:, 0].astype(np.int32), a[:, 1].astype(np.int32)


def _score(method, common, sums, degree, us, vs):
    """The scores of `method` from the counts, the weight sums and the degrees."""
    m = xp(common)
    if method in ("adamic_adar", "resource_allocation"):
        return sums
    c = common.astype(np.float64)
    if method == "common_neighbors":
        return c
    d = m.asarray(degree).astype(np.float64)
    du, dv = d[m.asarray(us)], d[m.asarray(vs)]
    below = {"jaccard": du + dv - c, "sorensen": (du + dv) / 2, "overlap": m.minimum(du, dv)}
    den = below[method]
    return m.where(den > 0, c / m.where(den > 0, den, 1), 0.0)


def neighbor_sums(S, us, vs, weights=None, *, device="auto"):
    """The common neighbours of pairs of a simple undirected graph, and the sums of per-vertex
    weights over them.

    Parameters
    ----------
    S : Graph
        Simple and undirected (``G.simple_undirected()``).
    us, vs : numpy.ndarray of int
        The pairs, internal ids of `S`.
    weights : numpy.ndarray of float64, optional
        A weight per vertex; None: no sums.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    counts : numpy.ndarray or cupy.ndarray of int64
        ``|N(u) ∩ N(v)|`` per pair.
    sums : numpy.ndarray or cupy.ndarray of float64, or None
        The weights of those common neighbours summed, per pair; None without `weights`.

    Raises
    ------
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    """
    return IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "link_prediction")](
        S, us, vs, weights
    )


def _sums_cpu(S, us, vs, weights):
    from ..backends.cpu import link_prediction as _k

    w = np.zeros(S.n) if weights is None else np.ascontiguousarray(weights, np.float64)
    # the work: each pair reads its shorter list at least once (a hub's pairs weigh more)
    shorter = int(np.minimum(S.out_degree[us], S.out_degree[vs]).sum(dtype=np.int64))
    counts, sums = _k.kernels(shorter).pair_sums(S.offsets, S.indices, us, vs, w)
    return counts, (None if weights is None else sums)


def _sums_cuda(S, us, vs, weights):
    """Counts by the segmented intersection; weight sums by :func:`weighted_sums`, in batches of
    GPU_BATCH pairs."""
    import cupy

    from ..operators import intersect

    dg = S.to("cuda")
    us, vs = cupy.asarray(us, cupy.int32), cupy.asarray(vs, cupy.int32)
    counts = intersect(dg, us, vs)[0] if us.size else cupy.zeros(0, cupy.int64)
    if weights is None:
        return counts, None
    w = cupy.asarray(weights, cupy.float64)
    keys = arc_keys(dg.offsets, dg.indices)
    sums = cupy.concatenate(
        [cupy.zeros(0)]
        + [
            weighted_sums(
                dg.offsets, dg.indices, keys, us[i : i + GPU_BATCH], vs[i : i + GPU_BATCH], w
            )
            for i in range(0, us.size, GPU_BATCH)
        ]
    )
    return counts, sums


def weighted_sums(offsets, indices, keys, us, vs, weights):
    """Per pair, the sum of `weights` over its common neighbours, in the module of the arrays (the
    GPU path's): the shorter list's entries searched in the longer's arc keys.

    Parameters
    ----------
    offsets, indices, keys : numpy.ndarray or cupy.ndarray
        A CSR with sorted rows and its :func:`~gravel.algorithms.neighbors.arc_keys`.
    us, vs : numpy.ndarray or cupy.ndarray of int
        The pairs.
    weights : numpy.ndarray or cupy.ndarray of float64
        A weight per vertex.

    Returns
    -------
    numpy.ndarray or cupy.ndarray of float64
    """
    pair, at_short, _ = common_entries(offsets, indices, keys, us, vs)
    w = weights[indices[at_short]]
    return tally(pair, us.shape[0], w)


def verify_link_prediction(G, pairs, score, method="jaccard"):
    """Check scores against each method's definition, written out with NetworkX's sets on the
    simple undirected graph.

    Parameters
    ----------
    G : Graph
    pairs : array_like of int, shape (k, 2)
        Caller ids.
    score : array_like
        The scores, on the host.
    method : str, default "jaccard"

    Returns
    -------
    list of str
        The first pair whose score differs, as a sentence; empty if none does.
    """
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    S = G.simple_undirected()
    order = np.arange(G.n) if G.order is None else np.argsort(G.order)
    src, dst = S.edges()
    g.add_edges_from(zip(order[src].tolist(), order[dst].tolist()))

    def expected(u, v):
        common = set(g[u]) & set(g[v])
        c, du, dv = len(common), g.degree(u), g.degree(v)
        if method == "common_neighbors":
            return c
        if method == "jaccard":
            return c / len(set(g[u]) | set(g[v])) if du + dv else 0
        if method == "sorensen":
            return 2 * c / (du + dv) if du + dv else 0
        if method == "overlap":
            return c / min(du, dv) if min(du, dv) else 0
        with np.errstate(divide="ignore"):  # a pair (u, u) with a neighbour of degree 1: inf
            log = np.log if method == "adamic_adar" else float
            return sum(1 / log(np.float64(g.degree(w))) for w in common)

    for (u, v), s in zip(np.asarray(pairs).tolist(), host(np.asarray(score)).tolist()):
        expect = expected(u, v)
        if not np.isclose(s, expect, rtol=1e-9, atol=1e-12):
            return [f"pair ({u}, {v}): {method} {s}, expected {expect}"]
    return []


#: the paths by device
IMPLEMENTATIONS = {"cpu": _sums_cpu, "cuda": _sums_cuda}
