"""ego_graph (networkx.generators.ego).

The nodes within `radius` hops of `n` come from gravel's BFS (over the graph made undirected when
`undirected`); the result is the caller's induced subgraph, attributes kept, as NetworkX returns
it. NetworkX keeps every attribute for this call, so a graph whose edges carry data (a
`distance` attribute among them) runs on NetworkX; on a graph without edge data every edge
weighs 1 and `distance` counts hops.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.arrays import host
from gravel.graph import Graph

from .._algorithm import algorithm, device


def _undirected(graph):
    """The directed `graph` with every arc both ways."""
    src, dst = graph.edges()
    return Graph.from_edges(src, dst, n=graph.n, directed=False)


@algorithm
def ego_graph(G, n, radius=1, center=True, undirected=False, distance=None):
    s = G.id_of(n, nx.NodeNotFound(f"Source {n} is not in G"))
    graph = _undirected(G.graph) if undirected and G.is_directed() else G.graph
    depth = host(bfs(graph, s, device=device()).depth)
    reached = depth >= 0
    if radius is not None:
        reached &= depth <= radius
    H = G.origin().subgraph(G.labels_of(np.flatnonzero(reached))).copy()
    if not center:
        H.remove_node(n)
    return H
