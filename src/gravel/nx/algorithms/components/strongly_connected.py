"""strongly_connected_components and friends (networkx.algorithms.components.strongly_connected).

Components come by their first node, not in Tarjan's order as NetworkX yields them.
"""

import numpy as np

from gravel.algorithms import strongly_connected_components as gravel_scc
from gravel.arrays import host

from ..._algorithm import algorithm, device
from .connected import components, one_component


def _labels(G):
    return host(gravel_scc(G.graph, device=device(G.graph)).labels)


@algorithm
def strongly_connected_components(G):
    yield from components(G, _labels(G))


@algorithm
def number_strongly_connected_components(G):
    return int(np.unique(_labels(G)).size)


def _one_way(G, ids):
    """bool per vertex of `ids`: no arc leaves it or none enters it, so that it is a strongly
    connected component of its own."""
    g = G.graph
    return (g.out_degree[ids] == 0) | (g.in_degree[ids] == 0)


@algorithm
def is_strongly_connected(G):
    return one_component(G, _labels, _one_way)
