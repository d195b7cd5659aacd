"""Unweighted shortest paths (networkx.algorithms.shortest_paths.unweighted): lengths from gravel's
BFS, paths from the BFS tree in NetworkX's discovery order (trees.py), and NetworkX's
bidirectional BFS replayed level by level.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.algorithms.bellman_ford import out_arcs
from gravel.arrays import host

from ..._algorithm import algorithm, device
from ..traversal.breadth_first_search import csr_of
from .trees import hop_tree


def hop_lengths(G, s, cutoff=None, reverse=False):
    """``{label: hops}`` from vertex id `s` (into it where `reverse`), nearest first, as NetworkX
    cuts them: a level is searched while its depth is below `cutoff`."""
    graph = G.reverse if reverse else G.graph
    depth = host(bfs(graph, s, device=device()).depth)
    reached = depth >= 0 if cutoff is None else (depth >= 0) & (depth < cutoff + 1)
    reached[s] = True
    ids = np.flatnonzero(reached)
    return G.to_dict(depth, ids[np.argsort(depth[ids], kind="stable")])


def _source(G, source, message="Source {} is not in G"):
    return G.id_of(source, nx.NodeNotFound(message.format(source)))


@algorithm
def single_source_shortest_path_length(G, source, cutoff=None):
    return hop_lengths(G, _source(G, source), cutoff)


@algorithm
def single_target_shortest_path_length(G, target, cutoff=None):
    return hop_lengths(G, _source(G, target, "Target {} is not in G"), cutoff, reverse=True)


@algorithm
def all_pairs_shortest_path_length(G, cutoff=None):
    for v, s in G.index.items():
        yield v, hop_lengths(G, s, cutoff)


@algorithm
def single_source_shortest_path(G, source, cutoff=None):
    return hop_tree(G, _source(G, source, "Source {} not in G"), cutoff=cutoff).paths(G)


@algorithm
def single_target_shortest_path(G, target, cutoff=None):
    t = _source(G, target, "Target {} not in G")
    return hop_tree(G, t, reverse=True, cutoff=cutoff).paths(G, towards_root=True)


@algorithm
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
    """NetworkX's bidirectional BFS between vertex ids: the smaller fringe grows by a level (the
    forward one on a tie), each new vertex claimed by its first arc, until an arc reaches a vertex
    the other side has seen; the path runs through that vertex. The ids, or None."""
    if s == t:
        return [s]
    xp, offsets, indices = csr_of(G.graph)
    sides = [(offsets, indices), csr_of(G.reverse)[1:]]
    unseen = -2
    trees = [xp.full(G.graph.n, unseen, xp.int64) for _ in sides]  # each side's parents
    trees[0][s], trees[1][t] = -1, -1
    fringes = [xp.asarray([s]), xp.asarray([t])]
    while fringes[0].size and fringes[1].size:
        side = 0 if fringes[0].size <= fringes[1].size else 1
        tree, other = trees[side], trees[1 - side]
        src, dst, _ = out_arcs(xp, *sides[side], fringes[side])
        hit = xp.flatnonzero(other[dst] != unseen)
        meet = int(hit[0]) if hit.size else None
        if meet is not None:  # the arcs up to the first that reaches the other side
            src, dst = src[: meet + 1], dst[: meet + 1]
            meet = int(dst[-1])
        fresh = tree[dst] == unseen
        src, dst = src[fresh], dst[fresh]
        _, firsts = xp.unique(dst, return_index=True)
        firsts.sort()
        tree[dst[firsts]] = src[firsts]
        fringes[side] = dst[firsts]
        if meet is not None:
            forward, backward = host(trees[0]), host(trees[1])
            return _chain(forward, meet)[::-1] + _chain(backward, meet)[1:]
    return None


def _chain(parents, v):
    """`v` and its parents up to the root (parent -1)."""
    out = [v]
    while parents[out[-1]] >= 0:
        out.append(int(parents[out[-1]]))
    return out
