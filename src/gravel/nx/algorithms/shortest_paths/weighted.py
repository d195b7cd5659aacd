"""Dijkstra and Bellman-Ford paths and lengths (networkx.algorithms.shortest_paths.weighted), on
the trees of trees.py.

Dijkstra's lengths run gravel.sssp on the call's device, its paths NetworkX's heap replayed on the
host (so that of several tied paths they are NetworkX's); Bellman-Ford runs gravel.bellman_ford (a
negative cycle raises NetworkX's NetworkXUnbounded); unit weights take the BFS tree, whose paths
are NetworkX's. Distances are NetworkX's where float32 holds every weight exactly; other weights
run on NetworkX.
"""

import networkx as nx

from ..._algorithm import algorithm
from .trees import check_weights, shortest_tree, unit_weights


def _can_run(G, weight="weight", **_):
    if callable(weight):
        return "weight functions are not supported by gravel"
    return True


def _id(G, source, message="Node {} not found in graph"):
    return G.id_of(source, nx.NodeNotFound(message.format(source)))


def _tree(G, source, weight, cutoff=None, ordered=True):
    """Dijkstra's tree from `source`; `ordered`: NetworkX's paths (trees.py)."""
    return shortest_tree(G, _id(G, source), weight, cutoff=cutoff, ordered=ordered)


def weighted_lengths(G, source, cutoff, weight):
    """``{label: distance}`` from the node `source` within `cutoff`, nearest first, as
    single_source_dijkstra_path_length gives them (hop counts where `weight` is None).

    Parameters
    ----------
    G : BackendGraph
    source : node
    cutoff : float or None
    weight : str or None

    Returns
    -------
    dict

    Raises
    ------
    networkx.NodeNotFound
        `source` is not a node of G.
    NotImplementedError
        Weights gravel cannot take as NetworkX does (NetworkX then runs the call).
    """
    return _tree(G, source, weight, cutoff=cutoff, ordered=False).lengths_dict(G)


def _to(G, tree, target, error):
    """(length, path) to `target`, or `error` raised."""
    found = tree.to(G, target)
    if found is None:
        raise error
    return found


# -- Dijkstra --------------------------------------------------------------------------------------
@algorithm(can_run=_can_run)
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    _id(G, source)
    if target == source:
        return 0, [target]
    tree = _tree(G, source, weight, cutoff=cutoff)
    if target is None:
        return tree.lengths_dict(G), tree.paths(G)
    return _to(G, tree, target, nx.NetworkXNoPath(f"No path to {target}."))


@algorithm(can_run=_can_run)
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    return _tree(G, source, weight, cutoff=cutoff).paths(G)


@algorithm(can_run=_can_run)
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    return weighted_lengths(G, source, cutoff, weight)


@algorithm(can_run=_can_run)
def dijkstra_path(G, source, target, weight="weight"):
    return single_source_dijkstra(G, source, target, weight=weight)[1]


@algorithm(can_run=_can_run)
def dijkstra_path_length(G, source, target, weight="weight"):
    _id(G, source)
    if source == target:
        return 0
    length = _tree(G, source, weight, ordered=False).length_to(G, target)
    if length is None:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return length


def _all_pairs(G, method, cutoff, weight, parts, ordered=True):
    """Check the weights once (NotImplementedError before the first source, where NetworkX can
    still run the call), then one tree per source, lazily: ``parts(tree)`` of each."""
    if not unit_weights(G, weight):
        check_weights(G, method)

    def tree(s):
        return shortest_tree(G, s, weight, method, cutoff=cutoff, ordered=ordered)

    return ((v, parts(tree(s))) for v, s in G.index.items())


@algorithm(can_run=_can_run, large_items=True)
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    return _all_pairs(G, "dijkstra", cutoff, weight, lambda t: (t.lengths_dict(G), t.paths(G)))


@algorithm(can_run=_can_run, large_items=True)
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    return _all_pairs(G, "dijkstra", cutoff, weight, lambda t: t.lengths_dict(G), ordered=False)


@algorithm(can_run=_can_run, large_items=True)
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    return _all_pairs(G, "dijkstra", cutoff, weight, lambda t: t.paths(G))


# -- Bellman-Ford ----------------------------------------------------------------------------------
def _bf_tree(G, source, weight):
    s = _id(G, source, "Source {} not in G")
    return shortest_tree(G, s, weight, "bellman-ford")


@algorithm(can_run=_can_run)
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    if source == target:
        _id(G, source, "Node {} is not found in the graph")
        return 0, [source]
    tree = _bf_tree(G, source, weight)
    if target is None:
        return tree.lengths_dict(G), tree.paths(G)
    no_path = nx.NetworkXNoPath(f"Target {target} cannot be reached from given sources")
    return _to(G, tree, target, no_path)


@algorithm(can_run=_can_run)
def single_source_bellman_ford_path(G, source, weight="weight"):
    return _bf_tree(G, source, weight).paths(G)


@algorithm(can_run=_can_run)
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    return _bf_tree(G, source, weight).lengths_dict(G)


@algorithm(can_run=_can_run)
def bellman_ford_path(G, source, target, weight="weight"):
    return single_source_bellman_ford(G, source, target, weight=weight)[1]


@algorithm(can_run=_can_run)
def bellman_ford_path_length(G, source, target, weight="weight"):
    if source == target:
        _id(G, source)
        return 0
    no_path = nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return _to(G, _bf_tree(G, source, weight), target, no_path)[0]


@algorithm(can_run=_can_run, large_items=True)
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    return _all_pairs(G, "bellman-ford", None, weight, lambda t: t.lengths_dict(G))


@algorithm(can_run=_can_run, large_items=True)
def all_pairs_bellman_ford_path(G, weight="weight"):
    return _all_pairs(G, "bellman-ford", None, weight, lambda t: t.paths(G))
