"""bfs_edges, bfs_tree, bfs_layers, descendants_at_distance (networkx.algorithms.traversal).

gravel's BFS gives every vertex its depth; one pass per level then orders each level as
NetworkX's queue discovers it: a vertex's parent is its first neighbour, in the previous level's
order, and the level is sorted by (parent's position, vertex id). NetworkX visits neighbours in
edge-insertion order, gravel in node order: where the two differ the tree is another valid BFS
tree.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.arrays import host

from ..._algorithm import algorithm, device, node_not_found


def _depth(G, source, reverse=False):
    """Hops from `source` (a label) to every vertex, -1 where unreachable, and the graph walked."""
    s = G.id_of(source, node_not_found(source))
    graph = G.reverse if reverse and G.is_directed() else G.graph
    return host(bfs(graph, s, device=device()).depth), graph, s


def _levels(graph, s, depth, depth_limit):
    """Yield (parents, vertices) of each level after the source, in NetworkX's discovery order."""
    offsets, indices = graph.offsets, graph.indices
    front = np.array([s], np.int64)
    d = 0
    while front.size and (depth_limit is None or d < depth_limit):
        starts, counts = offsets[front], offsets[front + 1] - offsets[front]
        first = np.repeat(starts - np.cumsum(counts) + counts, counts)
        arcs = first + np.arange(counts.sum())
        src, dst = np.repeat(front, counts), indices[arcs]
        keep = depth[dst] == d + 1
        src, dst = src[keep], dst[keep]
        # arcs are in (position of src, dst) order already: the first arc into each vertex wins
        _, firsts = np.unique(dst, return_index=True)
        firsts.sort()
        front = dst[firsts].astype(np.int64)
        if front.size:
            yield src[firsts], front
        d += 1


def _can_run_bfs(G, source, reverse, depth_limit, sort_neighbors):
    if sort_neighbors is not None:
        return "sort_neighbors is not supported by gravel"
    return True


@algorithm(can_run=_can_run_bfs)
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    depth, graph, s = _depth(G, source, reverse)
    for parents, vertices in _levels(graph, s, depth, depth_limit):
        yield from zip(G.labels_of(parents), G.labels_of(vertices))


@algorithm(can_run=_can_run_bfs)
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse, depth_limit))
    return T


def _can_run_layers(G, sources):
    try:
        if sources in G:
            return True
    except TypeError:  # unhashable: a list of sources
        pass
    return "several sources are not supported by gravel"


@algorithm(can_run=_can_run_layers)
def bfs_layers(G, sources):
    depth, graph, s = _depth(G, sources)
    yield [sources]
    for _, vertices in _levels(graph, s, depth, None):
        yield G.labels_of(vertices)


@algorithm
def descendants_at_distance(G, source, distance):
    depth, _, _ = _depth(G, source)
    return set(G.labels_of(np.flatnonzero(depth == distance)))
