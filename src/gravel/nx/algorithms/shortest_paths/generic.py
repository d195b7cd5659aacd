"""shortest_path_length from one source (networkx.algorithms.shortest_paths.generic)."""

import networkx as nx

from ..._algorithm import algorithm
from .weighted import weighted_lengths


def _can_run(G, source, target, weight, method):
    if source is None or target is not None:
        return "gravel computes lengths from one source to every node only"
    if callable(weight):
        return "weight functions are not supported by gravel"
    if method not in ("dijkstra", "bellman-ford"):
        return f"method {method!r} is not supported by gravel"
    return True


@algorithm(can_run=_can_run)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return weighted_lengths(G, source, None, weight)
