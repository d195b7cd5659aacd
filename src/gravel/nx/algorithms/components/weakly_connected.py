"""weakly_connected_components (networkx.algorithms.components.weakly_connected)."""

from ..._algorithm import algorithm
from .connected import components


@algorithm
def weakly_connected_components(G):
    yield from components(G)
