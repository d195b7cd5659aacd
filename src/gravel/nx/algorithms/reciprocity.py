"""reciprocity, overall_reciprocity (networkx.algorithms.reciprocity).

Read off the CSR at once: an arc u -> v is reciprocated where v -> u is an arc too (a binary
search in the sorted rows).
"""

import networkx as nx
import numpy as np

from .._algorithm import algorithm, single_node
from .cluster import _ids


def _reciprocated(graph):
    """Per vertex, its out-arcs whose reverse is an arc (a self loop counts), and the non-loop
    reciprocated arcs in all."""
    rows = np.repeat(np.arange(graph.n), np.diff(graph.offsets))
    back = graph.has_arcs(graph.indices, rows)
    per = np.bincount(rows[back], minlength=graph.n)
    return per, int((back & (rows != graph.indices)).sum())


def _directed_nodes(G, nodes=None, **_):
    """NetworkX reads an undirected graph's predecessors for `nodes`, which it has not."""
    if nodes is not None and not G.is_directed():
        return "reciprocity of nodes needs a directed graph"
    return True


@algorithm(can_run=_directed_nodes)
def reciprocity(G, nodes=None):
    if nodes is None:
        return overall_reciprocity(G)
    per, _ = _reciprocated(G.graph)
    total = G.graph.out_degree.astype(np.int64) + G.graph.in_degree
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (2 * per / total).astype(object)
    ratio[total == 0] = None  # not defined for isolated nodes
    if single_node(G, nodes):
        value = ratio[G.index[nodes]]
        if value is None:
            raise nx.NetworkXError("Not defined for isolated nodes.")
        return value
    return G.to_dict(ratio, _ids(G, nodes))


@algorithm
def overall_reciprocity(G):
    m = G.graph.m
    if m == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    if not G.is_directed():
        return 0 / m
    return _reciprocated(G.graph)[1] / m
