"""weakly_connected_components and friends (networkx.algorithms.components.weakly_connected)."""

import numpy as np

from ..._algorithm import algorithm
from .connected import component_labels, components, one_component


@algorithm
def weakly_connected_components(G):
    yield from components(G, component_labels(G))


@algorithm
def number_weakly_connected_components(G):
    return int(np.unique(component_labels(G)).size)


@algorithm
def is_weakly_connected(G):
    return one_component(G)
