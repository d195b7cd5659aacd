"""weakly_connected_components (networkx.algorithms.components.weakly_connected)."""

from ..._algorithm import algorithm
from .connected import component_labels, components


@algorithm
def weakly_connected_components(G):
    yield from components(G, component_labels(G))
