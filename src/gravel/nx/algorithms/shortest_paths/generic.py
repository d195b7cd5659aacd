"""shortest_path, shortest_path_length, has_path (networkx.algorithms.shortest_paths.generic): every
call form, on the functions of unweighted.py and weighted.py as NetworkX dispatches them.

With a source, a target and weights, NetworkX's shortest_path runs its bidirectional Dijkstra,
replayed here on the host, so that of several tied paths gravel's is NetworkX's.
"""

import networkx as nx
import numpy as np

from gravel.backends.cpu import networkx_order

from ..._algorithm import algorithm
from . import unweighted as uw
from . import weighted as wd
from .trees import check_weights, shortest_tree
from .unweighted import chain


def _can_run(G, source=None, target=None, weight=None, method="dijkstra"):
    if callable(weight):
        return "weight functions are not supported by gravel"
    return True


def _method(weight, method):
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    return "unweighted" if weight is None else method


def _into(G, target, weight, method):
    """The tree of paths into `target` (NetworkX reverses a directed graph and runs one source)."""
    t = G.id_of(target, nx.NodeNotFound(f"Source {target} not in G"))
    if method == "unweighted":
        return uw.hop_tree(G, t, reverse=True)
    return shortest_tree(G, t, weight, method, reverse=True, ordered=True)


@algorithm(can_run=_can_run)
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    method = _method(weight, method)
    if source is None and target is None:
        if method == "unweighted":
            return uw.all_pairs_shortest_path(G)
        if method == "dijkstra":
            return wd.all_pairs_dijkstra_path(G, weight=weight)
        return wd.all_pairs_bellman_ford_path(G, weight=weight)
    if source is None:
        return _into(G, target, weight, method).paths(G, towards_root=True)
    if target is None:
        if method == "unweighted":
            return uw.single_source_shortest_path(G, source)
        if method == "dijkstra":
            return wd.single_source_dijkstra_path(G, source, weight=weight)
        return wd.single_source_bellman_ford_path(G, source, weight=weight)
    if method == "unweighted":
        return uw.bidirectional_shortest_path(G, source, target)
    if method == "dijkstra":
        return _dijkstra_between(G, source, target)
    return wd.bellman_ford_path(G, source, target, weight)


def _dijkstra_between(G, source, target):
    """The path NetworkX's bidirectional_dijkstra finds (its search replayed on the host,
    backends/cpu/networkx_order.py), and its exceptions."""
    for end, name in ((source, "Source"), (target, "Target")):
        G.id_of(end, nx.NodeNotFound(f"{name} {end} is not in G"))
    if source == target:
        return [source]
    check_weights(G)
    g, r = G.graph, G.reverse
    forward, backward = np.full(g.n, -1, np.int64), np.full(g.n, -1, np.int64)
    arcs, r_arcs = ((h.offsets, h.indices, _weights(h)) for h in (g, r))
    s, t = G.index[source], G.index[target]
    meet = networkx_order.bidirectional_dijkstra(arcs, r_arcs, s, t, forward, backward)
    if meet < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return G.labels_of(chain(forward, meet)[::-1] + chain(backward, meet)[1:])


def _weights(graph):
    """A graph's weights, ones where it has none."""
    return graph.weights if graph.weighted else np.ones(graph.nnz, np.float32)


@algorithm(can_run=_can_run)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    method = _method(weight, method)
    if source is None and target is None:
        if method == "unweighted":
            return uw.all_pairs_shortest_path_length(G)
        if method == "dijkstra":
            return wd.all_pairs_dijkstra_path_length(G, weight=weight)
        return wd.all_pairs_bellman_ford_path_length(G, weight=weight)
    if source is None:
        if method == "unweighted":
            t = G.id_of(target, nx.NodeNotFound(f"Source {target} is not in G"))
            return uw.hops_from(G, t, reverse=True)
        return _into(G, target, weight, method).lengths_dict(G)
    if target is None:
        if method == "unweighted":
            return uw.single_source_shortest_path_length(G, source)
        if method == "dijkstra":
            return wd.single_source_dijkstra_path_length(G, source, weight=weight)
        return wd.single_source_bellman_ford_path_length(G, source, weight=weight)
    if method == "unweighted":
        return len(uw.bidirectional_shortest_path(G, source, target)) - 1
    if method == "dijkstra":
        return wd.dijkstra_path_length(G, source, target, weight)
    return wd.bellman_ford_path_length(G, source, target, weight)


@algorithm
def has_path(G, source, target):
    s = G.id_of(source, nx.NodeNotFound(f"Source {source} is not in G"))
    t = G.id_of(target, nx.NodeNotFound(f"Target {target} is not in G"))
    # NetworkX's own has_path: a bidirectional BFS, which stops where the two sides meet
    return uw.bidirectional_path(G, s, t) is not None
