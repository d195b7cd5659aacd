"""bfs_edges, bfs_tree, bfs_layers, bfs_predecessors, bfs_successors, generic_bfs_edges,
descendants_at_distance (networkx.algorithms.traversal.breadth_first_search).

A BFS level by level over the CSR, vectorised, on the device gravel runs on: each level gathers
the out-arcs of the previous one in its order, and a vertex not yet seen is claimed by its first
arc, so the level comes in NetworkX's queue order: by (parent's position, the parent's neighbour
order). NetworkX visits neighbours in edge-insertion order, gravel in node order: where the two
differ the tree is another valid BFS tree.
"""

import networkx as nx
import numpy as np

from gravel.algorithms.bellman_ford import out_arcs
from gravel.arrays import host
from gravel.dispatch import choose_device

from ..._algorithm import algorithm, device, node_not_found


def csr_of(graph):
    """(array module, offsets, indices) of a gravel Graph on the device the call runs on.

    Parameters
    ----------
    graph : gravel.Graph

    Returns
    -------
    tuple
        numpy and the host CSR, or cupy and the graph's arrays on the GPU.
    """
    if choose_device(device(), ("cpu", "cuda"), "bfs") == "cuda":
        import cupy

        dg = graph.to("cuda")
        return cupy, dg.offsets, dg.indices
    return np, graph.offsets, graph.indices


def levels(G, sources, reverse=False, depth_limit=None):
    """Yield (parents, vertices) of each level after `sources`, in NetworkX's discovery order.

    Parameters
    ----------
    G : BackendGraph
    sources : sequence of int
        Vertex ids, the first level, in its order.
    reverse : bool, default False
        Walk the arcs backwards (a directed graph's predecessors).
    depth_limit : int or float, optional
        Levels deeper than this are not searched (NetworkX's ``depth_limit`` and ``cutoff``).

    Yields
    ------
    tuple of numpy.ndarray
        int64 ids on the host: each vertex of the level and the vertex it was found from.
    """
    graph = G.reverse if reverse else G.graph
    xp, offsets, indices = csr_of(graph)
    front = xp.asarray(np.asarray(sources, np.int64))
    seen = xp.zeros(graph.n, bool)
    seen[front] = True
    d = 0
    while front.size and (depth_limit is None or d < depth_limit):
        src, dst, _ = out_arcs(xp, offsets, indices, front)
        fresh = ~seen[dst]
        src, dst = src[fresh], dst[fresh]
        # arcs come in (position of src, neighbour) order: the first arc into a vertex claims it
        _, firsts = xp.unique(dst, return_index=True)
        firsts.sort()
        front = dst[firsts]
        seen[front] = True
        if front.size:
            yield host(src[firsts]), host(front)
        d += 1


def discovery(G, sources, reverse=False, depth_limit=None):
    """Every vertex reached from `sources` in NetworkX's discovery order, and its BFS parent.

    Parameters
    ----------
    G : BackendGraph
    sources : sequence of int
        Vertex ids, first in the order (parent -1).
    reverse, depth_limit
        As :func:`levels`.

    Returns
    -------
    tuple of numpy.ndarray
        (ids, parents, depths), int64 each, in discovery order.
    """
    firsts = np.asarray(sources, np.int64)
    found = [(np.full(firsts.size, -1), firsts)]
    found += levels(G, firsts, reverse, depth_limit)
    depths = np.repeat(np.arange(len(found)), [v.size for _, v in found])
    return np.concatenate([v for _, v in found]), np.concatenate([p for p, _ in found]), depths


def source_id(G, source):
    """The id of a traversal's source, or the error NetworkX's neighbour lookup raises."""
    kind = "digraph" if G.is_directed() else "graph"
    return G.id_of(source, nx.NetworkXError(f"The node {source} is not in the {kind}."))


def _can_run_bfs(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    if sort_neighbors is not None:
        return "sort_neighbors is not supported by gravel"
    return True


def _edges(G, source, reverse=False, depth_limit=None):
    """(parent, child) label pairs of the BFS tree, level by level."""
    for parents, vertices in levels(G, [source_id(G, source)], reverse, depth_limit):
        yield from zip(G.labels_of(parents), G.labels_of(vertices))


@algorithm(can_run=_can_run_bfs)
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    yield from _edges(G, source, reverse and G.is_directed(), depth_limit)


@algorithm(can_run=_can_run_bfs)
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse, depth_limit))
    return T


@algorithm(can_run=_can_run_bfs)
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    for parent, child in _edges(G, source, depth_limit=depth_limit):
        yield child, parent


@algorithm(can_run=_can_run_bfs)
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    s = source_id(G, source)
    found_none = True
    for parents, vertices in levels(G, [s], depth_limit=depth_limit):
        # a parent's children are consecutive: split the level where the parent changes
        cut = np.flatnonzero(np.diff(parents)) + 1
        for p, kids in zip(parents[np.r_[0, cut]].tolist(), np.split(vertices, cut)):
            yield G.labels[p], G.labels_of(kids)
            found_none = False
    if found_none:  # NetworkX yields the source with no children when it finds none
        yield source, []


def _can_run_generic(G, source, neighbors=None, depth_limit=None):
    if neighbors is not None:
        return "a neighbors function is not supported by gravel"
    return True


@algorithm(can_run=_can_run_generic)
def generic_bfs_edges(G, source, neighbors=None, depth_limit=None):
    yield from _edges(G, source, depth_limit=depth_limit)


@algorithm
def bfs_layers(G, sources):
    if sources in G:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer: its sources as a set lists them
    for source in first:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not first:
        return
    yield first
    for _, vertices in levels(G, [G.index[v] for v in first]):
        yield G.labels_of(vertices)


@algorithm
def descendants_at_distance(G, source, distance):
    s = G.id_of(source, node_not_found(source))
    if distance < 0:
        return set()
    ids, _, depths = discovery(G, [s], depth_limit=distance)
    return set(G.labels_of(ids[depths == distance]))
