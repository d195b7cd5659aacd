"""NetworkX graphs to :class:`BackendGraph` and back (NetworkX caches the conversion)."""

import numpy as np

from ..graph import Graph
from .graph import BackendGraph


def from_networkx(graph, edge_attrs=None):
    """Convert a NetworkX graph; `edge_attrs` is NetworkX's ``{attribute: default}`` (at most one).

    Raises NotImplementedError (NetworkX then falls back to its own code) for multigraphs,
    several edge attributes, and weights that are not real numbers. Other attributes stay with
    the NetworkX graph, which the result keeps a weak reference to.
    """
    if graph.is_multigraph():
        raise NotImplementedError("gravel does not hold multigraphs")
    if edge_attrs and len(edge_attrs) > 1:
        raise NotImplementedError("gravel holds one numeric edge attribute at most")
    labels = list(graph)
    index = {v: i for i, v in enumerate(labels)}
    attr, default = next(iter(edge_attrs.items())) if edge_attrs else (None, None)
    edges = list(graph.edges(data=attr, default=default)) if attr else list(graph.edges)
    m = len(edges)
    src = np.fromiter((index[e[0]] for e in edges), np.int64, m)
    dst = np.fromiter((index[e[1]] for e in edges), np.int64, m)
    weights, exact = None, True
    if attr:
        try:
            weights = np.fromiter((e[2] for e in edges), np.float64, m)
        except (TypeError, ValueError) as exc:
            raise NotImplementedError(f"edge attribute {attr!r} holds non-numbers") from exc
        exact = bool(np.array_equal(weights.astype(np.float32), weights))
    G = Graph.from_edges(src, dst, weights, n=len(labels), directed=graph.is_directed())
    return BackendGraph(G, labels, origin=graph, exact_weights=exact)


def to_networkx(obj):
    """A :class:`BackendGraph` as a NetworkX graph; anything else unchanged."""
    return obj.to_networkx() if isinstance(obj, BackendGraph) else obj
