"""is_isolate, isolates, number_of_isolates (networkx.algorithms.isolate).

A vertex is isolated when it has no arc either way (a self loop is an arc: NetworkX counts it
twice in the degree). One vectorised pass over the CSR on the host.
"""

import networkx as nx
import numpy as np

from .._algorithm import algorithm


def isolated(G):
    """bool per vertex: no out-arc and (directed) no in-arc."""
    graph = G.graph
    alone = np.diff(graph.offsets) == 0
    if graph.directed:
        alone[graph.indices] = False
    return alone


@algorithm
def is_isolate(G, n):
    i = G.id_of(n, nx.NetworkXError(f"Node {n} is not in the graph."))
    graph = G.graph
    if graph.offsets[i + 1] > graph.offsets[i]:
        return False
    return not (graph.directed and bool(np.any(graph.indices == i)))


@algorithm
def isolates(G):
    yield from G.labels_of(np.flatnonzero(isolated(G)))


@algorithm
def number_of_isolates(G):
    return int(np.count_nonzero(isolated(G)))
