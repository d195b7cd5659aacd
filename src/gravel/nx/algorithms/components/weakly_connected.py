"""weakly_connected_components and friends (networkx.algorithms.components.weakly_connected)."""

import networkx as nx
import numpy as np

from ..._algorithm import algorithm
from .connected import component_labels, components


@algorithm
def weakly_connected_components(G):
    yield from components(G, component_labels(G))


@algorithm
def number_weakly_connected_components(G):
    return int(np.unique(component_labels(G)).size)


@algorithm
def is_weakly_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bool(np.all(component_labels(G) == 0))
