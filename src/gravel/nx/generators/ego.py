"""ego_graph (networkx.generators.ego).

The nodes within `radius` of `n` come from gravel's BFS, or its SSSP where `distance` names an
edge attribute (over the graph made undirected when `undirected`); the result is the caller's
induced subgraph, attributes kept, as NetworkX returns it. NetworkX keeps every attribute for this
call: gravel reads `distance` from the caller's graph (:func:`gravel.nx.convert.with_attribute`).
Weighted distances over a directed graph made undirected run on NetworkX (``G.to_undirected()``
keeps one of two reciprocal arcs' weights).
"""

from gravel.graph import Graph

from .._algorithm import algorithm
from ..algorithms.shortest_paths.unweighted import hop_lengths
from ..algorithms.shortest_paths.weighted import weighted_lengths
from ..convert import with_attribute
from ..graph import BackendGraph


def _can_run(G, n, radius, center, undirected, distance):
    if undirected and distance is not None and G.is_directed():
        return "gravel does not weigh reciprocal arcs as G.to_undirected() does"
    return True


@algorithm(can_run=_can_run, reads_attributes=True)
def ego_graph(G, n, radius=1, center=True, undirected=False, distance=None):
    G = with_attribute(G, distance)
    walked = G
    if undirected and G.is_directed():
        src, dst = G.graph.edges()
        both = Graph.from_edges(src, dst, n=G.graph.n, directed=False)
        walked = BackendGraph(both, G.labels)
    if distance is None:
        reached = hop_lengths(walked, n, radius)
    else:
        reached = weighted_lengths(walked, n, radius, distance)
    H = G.origin().subgraph(reached).copy()
    if not center:
        H.remove_node(n)
    return H
