"""bfs_edges, bfs_tree, bfs_layers, bfs_predecessors, bfs_successors, generic_bfs_edges,
descendants_at_distance (networkx.algorithms.traversal.breadth_first_search).

BFS trees come in NetworkX's order from a serial queue over the CSR on the host
(backends/cpu/networkx_order.py): each vertex's neighbours in turn, a vertex claimed by the first
arc that reaches it. That order is sequential by definition, so it is built there whichever device
the call runs on; what needs no order (descendants_at_distance) runs gravel's BFS on the device.
NetworkX visits neighbours in edge-insertion order, gravel in node order: where the two differ the
tree is another valid BFS tree.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.arrays import host
from gravel.backends.cpu import networkx_order

from ..._algorithm import algorithm, device, node_not_found


def discovery(G, sources, reverse=False, depth_limit=None):
    """Every vertex reached from `sources` in NetworkX's discovery order, its BFS parent and depth.

    Parameters
    ----------
    G : BackendGraph
    sources : sequence of int
        Distinct vertex ids, first in the order (parent -1, depth 0).
    reverse : bool, default False
        Walk the arcs backwards (a directed graph's predecessors).
    depth_limit : int or float, optional
        Vertices at this depth are not searched from (NetworkX's ``depth_limit``, and ``cutoff``
        of its unweighted paths); None: no limit.

    Returns
    -------
    tuple of numpy.ndarray
        (ids, parents, depths), int64 each, in discovery order.
    """
    graph = G.reverse if reverse else G.graph
    n = graph.n
    limit = n if depth_limit is None else int(np.clip(np.ceil(depth_limit), 0, n))
    parent, depth = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    sources = np.asarray(sources, np.int64)
    ids = networkx_order.discovery(graph.offsets, graph.indices, sources, limit, parent, depth)
    return ids, parent[ids], depth[ids]


def source_id(G, source):
    """The id of a traversal's source, or the error NetworkX's neighbour lookup raises.

    Parameters
    ----------
    G : BackendGraph
    source : node

    Returns
    -------
    int

    Raises
    ------
    networkx.NetworkXError
        `source` is not a node of G.
    """
    kind = "digraph" if G.is_directed() else "graph"
    return G.id_of(source, nx.NetworkXError(f"The node {source} is not in the {kind}."))


def _can_run_bfs(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    if sort_neighbors is not None:
        return "sort_neighbors is not supported by gravel"
    return True


def _tree(G, source, reverse=False, depth_limit=None):
    """(parents, children) ids of the BFS tree's edges, in NetworkX's order."""
    ids, parents, _ = discovery(G, [source_id(G, source)], reverse, depth_limit)
    return parents[1:], ids[1:]


def _edges(G, source, reverse=False, depth_limit=None):
    parents, children = _tree(G, source, reverse, depth_limit)
    return zip(G.labels_of(parents), G.labels_of(children))


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
    parents, children = _tree(G, source, depth_limit=depth_limit)
    if not children.size:  # NetworkX yields the source without children
        yield source, []
        return
    # a parent's children are consecutive: cut where the parent changes
    cut = np.flatnonzero(np.diff(parents)) + 1
    for p, kids in zip(parents[np.r_[0, cut]].tolist(), np.split(children, cut)):
        yield G.labels[p], G.labels_of(kids)


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
    ids, _, depths = discovery(G, [G.index[v] for v in first])
    bounds = [*(np.flatnonzero(np.diff(depths)) + 1).tolist(), ids.size]
    found = G.labels_of(ids)
    yield first
    for start, end in zip(bounds, bounds[1:]):
        yield found[start:end]


@algorithm
def descendants_at_distance(G, source, distance):
    s = G.id_of(source, node_not_found(source))
    if distance < 0:  # -1 is the depth of the unreached
        return set()
    depth = host(bfs(G.graph, s, device=device(G.graph)).depth)
    return set(G.labels_of(np.flatnonzero(depth == distance)))
