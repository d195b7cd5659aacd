"""ego_graph (networkx.generators.ego).

The nodes within `radius` hops of `n` come from a level-by-level NumPy walk of the CSR (and the
CSC, when `undirected`) where the radius is at most LOCAL_LEVELS: an ego graph is local, and the
walk reads the arcs of the nodes it reaches only. A larger radius runs gravel's BFS, and a
`distance` attribute its SSSP, over the graph (made undirected when `undirected`). The result is
the caller's induced subgraph, attributes kept, as NetworkX returns it. NetworkX keeps every
attribute for this call: gravel reads `distance` from the caller's graph
(:func:`gravel.nx.convert.with_attribute`). The subgraph's node order follows the set of nodes
handed to ``G.subgraph`` where they are under half of G: gravel hands them nearest first, by node
order within a distance, NetworkX in its BFS's order, so the orders may differ.
Weighted distances over a directed graph made undirected run on NetworkX (``G.to_undirected()``
keeps one of two reciprocal arcs' weights).
"""

import networkx as nx
import numpy as np

from gravel.arrays import list_entries
from gravel.graph import Graph

from .._algorithm import algorithm
from ..algorithms.shortest_paths.unweighted import hop_lengths
from ..algorithms.shortest_paths.weighted import weighted_lengths
from ..convert import with_attribute
from ..graph import BackendGraph

#: the largest radius walked level by level on the host; larger ones run gravel's BFS
LOCAL_LEVELS = 16


def _within(G, s, radius, undirected):
    """Vertex ids within `radius` hops of `s`, nearest first (NetworkX's rule: a level is walked
    while `radius` exceeds the level before), along out-arcs, and in-arcs too when `undirected`."""
    graph = G.graph
    sides = [(graph.offsets, graph.indices)]
    if undirected and graph.directed:
        sides.append(graph.csc()[:2])
    seen = np.zeros(graph.n, bool)
    seen[s] = True
    front, level = np.array([s], np.int64), 0
    levels = [front]
    while front.size and radius > level:
        level += 1
        reached = []
        for offsets, indices in sides:
            reached.append(indices[list_entries(offsets, front)[0]])
        front = np.unique(np.concatenate(reached))
        front = front[~seen[front]]
        seen[front] = True
        levels.append(front)
    return np.concatenate(levels)


def _can_run(G, n, radius, center, undirected, distance):
    if undirected and distance is not None and G.is_directed():
        return "gravel does not weigh reciprocal arcs as G.to_undirected() does"
    return True


@algorithm(can_run=_can_run, reads_attributes=True)
def ego_graph(G, n, radius=1, center=True, undirected=False, distance=None):
    G = with_attribute(G, distance)
    if distance is None and radius is not None and radius <= LOCAL_LEVELS:
        s = G.id_of(n, nx.NodeNotFound(f"Source {n} is not in G"))
        nodes = G.labels_of(_within(G, s, radius, undirected))
    else:
        walked = G
        if undirected and G.is_directed():
            src, dst = G.graph.edges()
            both = Graph.from_edges(src, dst, n=G.graph.n, directed=False)
            walked = BackendGraph(both, G.labels)
        if distance is None:
            nodes = hop_lengths(walked, n, radius)
        else:
            nodes = weighted_lengths(walked, n, radius, distance)
    H = G.origin().subgraph(nodes).copy()
    if not center:
        H.remove_node(n)
    return H
