"""triangles, transitivity, clustering, average_clustering (networkx.algorithms.cluster).

All read gravel's per-vertex triangle counts on the simple graph (self loops and parallel edges
dropped, as NetworkX's counting ignores them) and its degrees. Zero coefficients are the int 0,
as NetworkX returns them.
"""

import numpy as np

from gravel.algorithms import triangles as gravel_triangles
from gravel.arrays import host

from .._algorithm import algorithm, device, single_node, unweighted_undirected


def _counts(G):
    """Triangles through each vertex and each vertex's degree, self loops excluded."""
    t = host(gravel_triangles(G.graph, device=device()).triangles).astype(np.int64)
    return t, G.graph.simple_undirected().out_degree.astype(np.int64)


def _ids(G, nodes):
    """The vertex ids of `nodes` (None: all), skipping nodes not in G as NetworkX's nbunch does."""
    if nodes is None:
        return None
    return np.array([G.index[v] for v in nodes if v in G], np.int64)


def _per_node(G, values, nodes):
    """One value when `nodes` is a node of G, else ``{node: value}``."""
    if single_node(G, nodes):
        return values[G.index[nodes]]
    return G.to_dict(values, _ids(G, nodes))


def _coefficients(G):
    """Clustering coefficient of every vertex, as objects: the int 0 where there is no triangle."""
    t, d = _counts(G)
    c = np.zeros(len(G), object)  # int 0s
    has = t > 0
    c[has] = (2 * t[has] / (d[has] * (d[has] - 1))).tolist()
    return c


@algorithm
def triangles(G, nodes=None):
    t, _ = _counts(G)
    if single_node(G, nodes):
        return int(t[G.index[nodes]])
    return G.to_dict(t, _ids(G, nodes))


def _undirected(G):
    """transitivity's condition: NetworkX counts a directed graph's triangles along its
    successors, gravel those of the undirected graph."""
    return "directed transitivity is not implemented in gravel" if G.is_directed() else True


@algorithm(can_run=_undirected)
def transitivity(G):
    t, d = _counts(G)
    total = int(t.sum())
    return 0 if total == 0 else 2 * total / int((d * (d - 1)).sum())


@algorithm(can_run=unweighted_undirected)
def clustering(G, nodes=None, weight=None):
    return _per_node(G, _coefficients(G), nodes)


@algorithm(can_run=unweighted_undirected)
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    c = _coefficients(G)
    ids = _ids(G, nodes)
    values = (c if ids is None else c[ids]).tolist()
    if not count_zeros:
        values = [x for x in values if abs(x) > 0]
    return sum(values) / len(values)
