"""core_number, k_core and k_truss (networkx.algorithms.core)."""

import networkx as nx
import numpy as np

from gravel.algorithms import core_number as gravel_core_number
from gravel.algorithms import truss_number
from gravel.arrays import host

from .._algorithm import algorithm, device


def _refuse_self_loops(G):
    """NetworkX's refusal of a graph with self loops (core numbers and trusses)."""
    if G.graph.self_loops:
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )


def _cores(G):
    """Core number of each vertex; NetworkX's refusal of self loops first."""
    _refuse_self_loops(G)
    return host(gravel_core_number(G.graph, device=device(G.graph)).core)


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


@algorithm
def k_truss(G, k):
    _refuse_self_loops(G)
    r = truss_number(G.graph, device=device(G.graph))
    edge_truss, vertex_truss = host(r.edge_truss), host(r.truss)
    drop = edge_truss < k
    # NetworkX's own steps on a copy: the edges below k out, then the nodes left without edges
    H = G.origin().copy()
    H.remove_edges_from(zip(G.labels_of(host(r.src)[drop]), G.labels_of(host(r.dst)[drop])))
    H.remove_nodes_from(G.labels_of(np.flatnonzero((vertex_truss == 0) | (vertex_truss < k))))
    return H
