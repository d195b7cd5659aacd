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


@algorithm
def is_strongly_connected(G):
    g = G.graph  # a vertex no arc leaves or enters is a component of its own
    return one_component(G, _labels, (g.out_degree == 0) | (g.in_degree == 0))
