"""degree_centrality, in_degree_centrality, out_degree_centrality
(networkx.algorithms.centrality.degree_alg), from the CSR's degrees.

NetworkX's degree counts an undirected self loop twice, a directed one once each way: the stored
lists hold an undirected loop once, so each vertex's loops are added to its out-degree.
"""

import networkx as nx
import numpy as np

from ..._algorithm import algorithm


def _scaled(G, degree):
    """``{label: degree / (n - 1)}``, NetworkX's ``{node: 1}`` up to one node."""
    n = len(G)
    if n <= 1:
        return dict.fromkeys(G.labels, 1)
    return G.to_dict(degree * (1.0 / (n - 1.0)))


def _undirected_degree(graph):
    """Each vertex's degree with its self loops counted twice."""
    rows = np.repeat(np.arange(graph.n), graph.out_degree)
    loops = np.bincount(rows[graph.indices == rows], minlength=graph.n)
    return graph.out_degree + loops


def _directed_only(G):
    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")


@algorithm
def degree_centrality(G):
    graph = G.graph
    degree = graph.out_degree + graph.in_degree if graph.directed else _undirected_degree(graph)
    return _scaled(G, degree)


@algorithm
def in_degree_centrality(G):
    _directed_only(G)
    return _scaled(G, G.graph.in_degree)


@algorithm
def out_degree_centrality(G):
    _directed_only(G)
    return _scaled(G, G.graph.out_degree)
