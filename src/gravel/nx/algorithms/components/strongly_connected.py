"""strongly_connected_components and friends (networkx.algorithms.components.strongly_connected).

Components come by their first node, not in Tarjan's order as NetworkX yields them.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import strongly_connected_components as gravel_scc
from gravel.arrays import host

from ..._algorithm import algorithm, device
from .connected import components


def _labels(G):
    return host(gravel_scc(G.graph, device=device()).labels)


@algorithm
def strongly_connected_components(G):
    yield from components(G, _labels(G))


@algorithm
def number_strongly_connected_components(G):
    return int(np.unique(_labels(G)).size)


@algorithm
def is_strongly_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    g = G.graph
    if g.n > 1 and (np.any(g.out_degree == 0) or np.any(g.in_degree == 0)):
        return False  # a vertex no arc leaves or enters: no labelling needed
    return bool(np.all(_labels(G) == 0))
