"""is_isolate, isolates, number_of_isolates (networkx.algorithms.isolate).

A vertex is isolated when it has no arc either way (a self loop is an arc: NetworkX counts it
twice in the degree): the graph's degrees, found once and kept with it.
"""

import networkx as nx
import numpy as np

from .._algorithm import algorithm


def isolated(G, ids=slice(None)):
    """bool per vertex of `ids` (default: every vertex): no out-arc and (directed) no in-arc."""
    graph = G.graph
    return (graph.out_degree[ids] == 0) & (graph.in_degree[ids] == 0)


@algorithm
def is_isolate(G, n):
    i = G.id_of(n, nx.NetworkXError(f"Node {n} is not in the graph."))
    graph = G.graph
    return bool(graph.out_degree[i] == 0 and graph.in_degree[i] == 0)


@algorithm
def isolates(G):
    yield from G.labels_of(np.flatnonzero(isolated(G)))


@algorithm
def number_of_isolates(G):
    return int(np.count_nonzero(isolated(G)))
