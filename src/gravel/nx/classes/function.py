"""number_of_selfloops (networkx.classes.function): the graph's count, found once;
is_negatively_weighted: the smallest weight, or the one arc named, read from the CSR."""

import networkx as nx
import numpy as np

from .._algorithm import algorithm
from ..algorithms.shortest_paths.trees import check_weights


@algorithm
def number_of_selfloops(G):
    return G.graph.self_loops


def _can_run_negative(G, edge=None, weight="weight"):
    if edge is not None and not (isinstance(edge, tuple) and len(edge) == 2):
        return "gravel takes an edge as a pair (u, v)"
    return True


@algorithm(can_run=_can_run_negative)
def is_negatively_weighted(G, edge=None, weight="weight"):
    g = G.graph
    check_weights(G, "bellman-ford")  # a weight float32 rounds might lose its sign
    if edge is not None:
        u, v = edge
        arcs = np.arange(0)
        if u in G and v in G:
            s, t = G.index[u], G.index[v]
            row = g.indices[g.offsets[s] : g.offsets[s + 1]]
            arcs = g.offsets[s] + np.flatnonzero(row == t)
        if not arcs.size:
            raise nx.NetworkXError(f"Edge {edge!r} does not exist.")
        return bool(g.weighted and g.weights[arcs[0]] < 0)
    return bool(g.weighted and g.nnz and g.weight_stats[0] < 0)
