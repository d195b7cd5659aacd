"""descendants, ancestors (networkx.algorithms.dag) and lowest_common_ancestor
(networkx.algorithms.lowest_common_ancestors).

Descendants and ancestors are the vertices gravel's BFS reaches, forwards or backwards. The lowest
common ancestor follows NetworkX's own steps: the common ancestors as a set built in BFS order,
its first member, then down to the first successor (in node order) that is still a common
ancestor, until none is.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs, strongly_connected_components
from gravel.arrays import host

from .._algorithm import algorithm, device
from .traversal.breadth_first_search import discovery, source_id


def _reached(G, source, reverse):
    """The labels BFS reaches from `source` (a label), itself left out."""
    graph = G.reverse if reverse else G.graph
    depth = host(bfs(graph, source_id(G, source), device=device(graph)).depth)
    return set(G.labels_of(np.flatnonzero(depth > 0)))


@algorithm
def descendants(G, source):
    return _reached(G, source, reverse=False)


@algorithm
def ancestors(G, source):
    return _reached(G, source, reverse=True)


def is_dag(G):
    """Whether the directed graph has no cycle: no self loop, and every strong component one vertex.

    Parameters
    ----------
    G : BackendGraph

    Returns
    -------
    bool
    """
    g = G.graph
    if g.self_loops:
        return False
    labels = host(strongly_connected_components(g, device=device(g)).labels)
    return bool(np.array_equal(labels, np.arange(g.n)))


@algorithm
def lowest_common_ancestor(G, node1, node2, default=None):
    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    if not is_dag(G):
        raise nx.NetworkXError("LCA only defined on directed acyclic graphs.")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("LCA meaningless on null graphs.")
    pair = (node1, node2)
    missing = {v for v in pair if v not in G}
    if missing:
        raise nx.NodeNotFound(f"Node(s) {missing} from pair {pair} not in G.")
    # as NetworkX builds them: each ancestor set in BFS order, then the node itself
    ancestry = []
    for v in dict.fromkeys(pair):
        ids, _, _ = discovery(G, [G.index[v]], reverse=True)
        found = set(G.labels_of(ids[1:]))
        found.add(v)
        ancestry.append(found)
    common = ancestry[0] & ancestry[-1]
    if not common:
        return default
    inside = np.zeros(G.graph.n, bool)
    inside[[G.index[v] for v in common]] = True
    offsets, indices = G.graph.offsets, G.graph.indices
    c = G.index[next(iter(common))]
    while True:
        row = indices[offsets[c] : offsets[c + 1]]
        lower = row[inside[row]]
        if not lower.size:
            return G.labels[c]
        c = int(lower[0])
