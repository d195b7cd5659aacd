"""minimum/maximum_spanning_edges and minimum/maximum_spanning_tree
(networkx.algorithms.tree.mst).

gravel runs Boruvka (:func:`gravel.minimum_spanning_forest`) whatever `algorithm` names: each of
NetworkX's three finds a minimum forest, and under distinct weights all find the same one. Where
weights tie, gravel breaks ties by the edge's ends (node order), NetworkX's Kruskal by edge order
and its Prim and Boruvka by their own visits, so the forests may differ; their weight does not.
Edges come by weight (heaviest first for the maximum), then ends: Kruskal's order under distinct
weights. A maximum forest is the minimum one of the negated weights. The edge data and the tree's
attributes are those of the caller's graph. NetworkX keeps every edge attribute for these calls,
and gravel reads `weight` from the caller's graph (:func:`gravel.nx.convert.with_attribute`).
"""

import networkx as nx
import numpy as np

from gravel.algorithms import minimum_spanning_forest
from gravel.arrays import host
from gravel.graph import Graph

from ..._algorithm import algorithm, device
from ...convert import with_attribute

ALGORITHMS = ("boruvka", "borůvka", "kruskal", "prim")


def _check_algorithm(algorithm):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"{algorithm} is not a valid choice for an algorithm.")


def _without_arcs(graph, drop):
    """`graph` (undirected, weighted) less the arcs where `drop` holds."""
    rows = np.repeat(np.arange(graph.n), np.diff(graph.offsets))
    keep = ~drop
    offsets = np.zeros(graph.n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=graph.n), out=offsets[1:])
    return Graph.from_csr(
        offsets, graph.indices[keep], graph.weights[keep], directed=False, trusted=True
    )


def _forest(G, minimum, ignore_nan):
    """The forest's edges as vertex ids (u, v), u < v, by weight (heaviest first when not
    `minimum`), then ends."""
    graph = G.graph
    if graph.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    w = graph.weights
    if w is not None:
        if not G.exact_weights:
            raise NotImplementedError("float32 does not hold these weights exactly")
        nan = np.isnan(w)
        if nan.any():
            if not ignore_nan:
                src, dst = graph.edges()
                e = int(np.flatnonzero(nan & (src <= dst))[0])
                u, v = G.labels_of([src[e], dst[e]])
                d = G.origin()._adj[u][v]
                raise ValueError(f"NaN found as an edge weight. Edge {(u, v, d)}")
            graph = _without_arcs(graph, nan)
            w = graph.weights
        if np.isinf(w).any():
            raise NotImplementedError("gravel's spanning forest takes finite weights")
        if not minimum:
            graph = Graph.from_csr(
                graph.offsets, graph.indices, -graph.weights, directed=False, trusted=True
            )
    r = minimum_spanning_forest(graph, weight=True, device=device(graph))
    return host(r.src), host(r.dst)


def _edges(G, minimum, data, ignore_nan):
    """The forest's edges, found now (a refusal, NotImplementedError, then reaches NetworkX's
    dispatch, which runs NetworkX's own code) and yielded later; NetworkX's generators raise
    their NaN error when iterated, and so does this one."""
    try:
        src, dst = _forest(G, minimum, ignore_nan)
    except ValueError as exc:
        return _raising(exc)
    us, vs = G.labels_of(src), G.labels_of(dst)
    if not data:
        return ((u, v) for u, v in zip(us, vs))
    adj = G.origin()._adj
    return ((u, v, adj[u][v]) for u, v in zip(us, vs))


def _raising(exc):
    """A generator that raises `exc` at its first next()."""
    raise exc
    yield  # makes this a generator


@algorithm(reads_attributes=True)
def minimum_spanning_edges(
    G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False
):
    _check_algorithm(algorithm)
    return _edges(with_attribute(G, weight), True, data, ignore_nan)


@algorithm(reads_attributes=True)
def maximum_spanning_edges(
    G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False
):
    _check_algorithm(algorithm)
    return _edges(with_attribute(G, weight), False, data, ignore_nan)


def _tree(G, minimum, weight, algorithm, ignore_nan):
    _check_algorithm(algorithm)
    G = with_attribute(G, weight)
    edges = list(_edges(G, minimum, True, ignore_nan))
    origin = G.origin()
    T = origin.__class__()
    T.graph.update(origin.graph)
    T.add_nodes_from(origin.nodes.items())
    T.add_edges_from(edges)
    return T


@algorithm(reads_attributes=True)
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    return _tree(G, True, weight, algorithm, ignore_nan)


@algorithm(reads_attributes=True)
def maximum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    return _tree(G, False, weight, algorithm, ignore_nan)
