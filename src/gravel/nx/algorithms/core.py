"""core_number and k_core (networkx.algorithms.core)."""

import networkx as nx
import numpy as np

from gravel.algorithms import core_number as gravel_core_number
from gravel.arrays import host

from .._algorithm import algorithm, device


def _cores(G):
    """Core number of each vertex; NetworkX's refusal of self loops first."""
    if G.graph.self_loops:
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )
    return host(gravel_core_number(G.graph, device=device()).core)


@algorithm
def core_number(G):
    return G.to_dict(_cores(G))


@algorithm
def k_core(G, k=None, core_number=None):
    if core_number is None:
        core = _cores(G)
        top = int(core.max()) if core.size else None
        nodes = G.labels_of(np.flatnonzero(core >= (top if k is None else k)))
    else:
        if k is None:
            k = max(core_number.values())
        nodes = [v for v in core_number if core_number[v] >= k]
    return G.origin().subgraph(nodes).copy()
