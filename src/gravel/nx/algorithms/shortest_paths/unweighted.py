"""Unweighted shortest paths (networkx.algorithms.shortest_paths.unweighted): lengths from gravel's
BFS on the device, paths from the BFS tree in NetworkX's discovery order (trees.py), and
NetworkX's bidirectional BFS replayed on the host.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.arrays import host
from gravel.backends.cpu import networkx_order

from ..._algorithm import algorithm, device
from .trees import hop_tree


def hops_from(G, s, cutoff=None, reverse=False):
    """``{label: hops}`` from vertex id `s` (into it where `reverse`), nearest first. NetworkX
    walks a level while `cutoff` exceeds the one before: a fractional cutoff reaches the next
    whole level, and the source is always in.

    Parameters
    ----------
    G : BackendGraph
    s : int
        A vertex id.
    cutoff : int or float, optional
    reverse : bool, default False

    Returns
    -------
    dict
    """
    graph = G.reverse if reverse else G.graph
    depth = host(bfs(graph, s, device=device(graph)).depth)
    reached = depth >= 0
    if cutoff is not None:
        reached &= (depth < cutoff + 1) | (depth == 0)
    ids = np.flatnonzero(reached)
    return G.to_dict(depth, ids[np.argsort(depth[ids], kind="stable")])


def _source(G, source, message="Source {} is not in G"):
    return G.id_of(source, nx.NodeNotFound(message.format(source)))


def hop_lengths(G, source, cutoff):
    """:func:`hops_from` the node `source` (a label), or NetworkX's NodeNotFound."""
    return hops_from(G, _source(G, source), cutoff)


@algorithm
def single_source_shortest_path_length(G, source, cutoff=None):
    return hop_lengths(G, source, cutoff)


@algorithm
def single_target_shortest_path_length(G, target, cutoff=None):
    return hops_from(G, _source(G, target, "Target {} is not in G"), cutoff, reverse=True)


@algorithm(large_items=True)
def all_pairs_shortest_path_length(G, cutoff=None):
    for v, s in G.index.items():
        yield v, hops_from(G, s, cutoff)


@algorithm
def single_source_shortest_path(G, source, cutoff=None):
    return hop_tree(G, _source(G, source, "Source {} not in G"), cutoff=cutoff).paths(G)


@algorithm
def single_target_shortest_path(G, target, cutoff=None):
    t = _source(G, target, "Target {} not in G")
    return hop_tree(G, t, reverse=True, cutoff=cutoff).paths(G, towards_root=True)


@algorithm(large_items=True)
def all_pairs_shortest_path(G, cutoff=None):
    for v, s in G.index.items():
        yield v, hop_tree(G, s, cutoff=cutoff).paths(G)


@algorithm
def bidirectional_shortest_path(G, source, target):
    s = _source(G, source)
    t = _source(G, target, "Target {} is not in G")
    path = bidirectional_path(G, s, t)
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return G.labels_of(path)


def bidirectional_path(G, s, t):
    """NetworkX's bidirectional BFS between vertex ids, replayed on the host
    (backends/cpu/networkx_order.py): the path through the first vertex an arc reaches that the
    other side has seen, or None.

    Parameters
    ----------
    G : BackendGraph
    s, t : int
        Vertex ids.

    Returns
    -------
    list of int or None
    """
    if s == t:
        return [s]
    g, r = G.graph, G.reverse
    forward, backward = np.full(g.n, -2, np.int64), np.full(g.n, -2, np.int64)
    meet = networkx_order.bidirectional(
        g.offsets, g.indices, r.offsets, r.indices, s, t, forward, backward
    )
    if meet < 0:
        return None
    return chain(forward, meet)[::-1] + chain(backward, meet)[1:]


def chain(parents, v):
    """`v` and its parents up to the root (parent -1 or -2), ids.

    Parameters
    ----------
    parents : numpy.ndarray
        A search's parent of each vertex, negative for its root and for the unreached.
    v : int
        A vertex id the search reached.

    Returns
    -------
    list of int
    """
    out = [int(v)]
    while parents[out[-1]] >= 0:
        out.append(int(parents[out[-1]]))
    return out
