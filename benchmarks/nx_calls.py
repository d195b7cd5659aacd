"""The NetworkX calls that benchmarks/nx_backend.py times: one per function gravel's backend serves.

Each call takes an :class:`Inputs` (the graph in the form the function needs, with random
``"weight"`` attributes that float32 holds exactly and that rarely tie, a source, a target and
node pairs) and optional ``backend=`` keywords, and returns the answer in a form two runs can be
compared in (iterators drawn, graphs as edge sets). ``kind`` says which graph the call takes:
``"undirected"``; ``"plain"``, the same without attributes (for calls that copy the caller's
graph with its attributes); ``"directed"``, each edge of the undirected graph one way, chosen by
a hash, a tenth of them both ways; or ``"dag"``, each edge from the lower id to the higher.
``heavy`` marks calls whose NetworkX run grows faster than the edges (all sources, all pairs,
quadratic layouts): NetworkX alone skips them on graphs above ``--nx-max-edges``. ``seeded``
marks calls whose answer is a random draw: not compared (tests/nx checks its validity).
"""

import functools
from dataclasses import dataclass
from itertools import islice
from typing import Any

import networkx as nx
import numpy as np

import gravel
from gravel.interop import networkx_graph

ALL_PAIRS_SOURCES = 4  # all-pairs calls draw this many sources from their iterator
PAIRS = 10_000  # node pairs given to the link-prediction calls


class Inputs:
    """One undirected gravel graph in the forms the calls take (NetworkX graphs built from its
    arrays by :func:`gravel.interop.networkx_graph`, not edge by edge, each when a call first
    asks for it: ``graph(kind)``), and the nodes and pairs the calls are given."""

    def __init__(self, G):
        rng = np.random.default_rng(1)
        self.names = G.labels.tolist() if G.labels is not None else range(G.n)
        names = self.names
        src, dst = G.edges()
        self.src, self.dst = src.astype(np.int64), dst.astype(np.int64)
        src, dst = self.src, self.dst
        # each edge once, (lower id, higher id), in CSR order: NetworkX's edge order
        once = src <= dst
        keys, first = np.unique(src[once] * G.n + dst[once], return_index=True)
        self.u, self.v = src[once][first], dst[once][first]
        self.w = rng.integers(1, 2**24, len(self.u)) / 1024  # exact in float32
        canon = np.minimum(src, dst) * G.n + np.maximum(src, dst)
        self.weight = self.w[np.searchsorted(keys, canon)]
        depth = gravel.bfs(G, int(np.argmax(G.out_degree)), device="cpu").depth
        self.source = names[int(np.argmax(G.out_degree))]
        self.max_degree = int(G.out_degree.max(initial=0))
        reached = np.flatnonzero(depth >= 0)
        self.target = names[int(reached[np.argmax(depth[reached])])]
        # pairs of distinct nodes: NetworkX raises on (u, u) in adamic_adar_index (log 1 = 0)
        # and common_neighbor_centrality
        pairs = rng.integers(0, G.n, (PAIRS, 2))
        self.pairs = [(names[p], names[q]) for p, q in pairs[pairs[:, 0] != pairs[:, 1]].tolist()]

    @functools.cached_property
    def undirected(self):
        """The graph with the random weights."""
        return networkx_graph(self.names, self.src, self.dst, self.weight, directed=False)

    @functools.cached_property
    def plain(self):
        """The graph without attributes."""
        return networkx_graph(self.names, self.src, self.dst, None, directed=False)

    @functools.cached_property
    def dag(self):
        """Each edge from the lower id to the higher, weighted."""
        return networkx_graph(self.names, self.u, self.v, self.w, directed=True)

    @functools.cached_property
    def directed(self):
        """Each edge one way by a hash of its ends, a tenth both ways, weighted."""
        u, v, w = self.u, self.v, self.w
        flip = (u * 0x9E3779B1 + v) % 20
        a, b = np.where(flip < 10, u, v), np.where(flip < 10, v, u)
        both = flip == 0
        a, b, wd = np.r_[a, b[both]], np.r_[b, a[both]], np.r_[w, w[both]]
        order = np.lexsort((b, a))
        return networkx_graph(self.names, a[order], b[order], wd[order], directed=True)

    def graph(self, kind):
        return getattr(self, kind)


@dataclass
class Call:
    """A NetworkX call: ``run(inputs, G, **backend)``, the graph kind it takes, and its flags."""

    run: Any
    kind: str = "undirected"
    heavy: bool = False
    seeded: bool = False


def _draw(it, k=None):
    return list(it) if k is None else dict(islice(it, k))


def _edges(H):
    return sorted(map(tuple, map(sorted, H.edges()))) if not H.is_directed() else sorted(H.edges())


def _sets(parts):
    return sorted(sorted(p) for p in parts)


def _source(f, **kw):
    return lambda i, G, **b: f(G, i.source, **kw, **b)


def _pair(f, **kw):
    return lambda i, G, **b: f(G, i.source, i.target, **kw, **b)


def _whole(f, **kw):
    return lambda i, G, **b: f(G, **kw, **b)


def _all_pairs(f, **kw):
    return lambda i, G, **b: _draw(f(G, **kw, **b), ALL_PAIRS_SOURCES)


def _links(f):
    return lambda i, G, **b: list(f(G, i.pairs, **b))


CALLS = {
    # shortest paths
    "shortest_path": Call(_source(nx.shortest_path)),
    "shortest_path_length": Call(_source(nx.shortest_path_length, weight="weight")),
    "single_source_shortest_path": Call(_source(nx.single_source_shortest_path)),
    "single_source_shortest_path_length": Call(_source(nx.single_source_shortest_path_length)),
    "single_target_shortest_path": Call(
        lambda i, G, **b: nx.single_target_shortest_path(G, i.target, **b)
    ),
    "single_target_shortest_path_length": Call(
        lambda i, G, **b: dict(nx.single_target_shortest_path_length(G, i.target, **b))
    ),
    "bidirectional_shortest_path": Call(_pair(nx.bidirectional_shortest_path)),
    "all_pairs_shortest_path": Call(_all_pairs(nx.all_pairs_shortest_path)),
    "all_pairs_shortest_path_length": Call(_all_pairs(nx.all_pairs_shortest_path_length)),
    "has_path": Call(_pair(nx.has_path)),
    "dijkstra_path": Call(_pair(nx.dijkstra_path)),
    "dijkstra_path_length": Call(_pair(nx.dijkstra_path_length)),
    "single_source_dijkstra": Call(_source(nx.single_source_dijkstra)),
    "single_source_dijkstra_path": Call(_source(nx.single_source_dijkstra_path)),
    "single_source_dijkstra_path_length": Call(_source(nx.single_source_dijkstra_path_length)),
    "all_pairs_dijkstra": Call(_all_pairs(nx.all_pairs_dijkstra)),
    "all_pairs_dijkstra_path": Call(_all_pairs(nx.all_pairs_dijkstra_path)),
    "all_pairs_dijkstra_path_length": Call(_all_pairs(nx.all_pairs_dijkstra_path_length)),
    "bellman_ford_path": Call(_pair(nx.bellman_ford_path)),
    "bellman_ford_path_length": Call(_pair(nx.bellman_ford_path_length)),
    "single_source_bellman_ford": Call(_source(nx.single_source_bellman_ford)),
    "single_source_bellman_ford_path": Call(_source(nx.single_source_bellman_ford_path)),
    "single_source_bellman_ford_path_length": Call(
        _source(nx.single_source_bellman_ford_path_length)
    ),
    "all_pairs_bellman_ford_path": Call(_all_pairs(nx.all_pairs_bellman_ford_path)),
    "all_pairs_bellman_ford_path_length": Call(_all_pairs(nx.all_pairs_bellman_ford_path_length)),
    "is_negatively_weighted": Call(_whole(nx.is_negatively_weighted)),
    # traversal and DAGs
    "bfs_edges": Call(lambda i, G, **b: list(nx.bfs_edges(G, i.source, **b))),
    "bfs_tree": Call(lambda i, G, **b: _edges(nx.bfs_tree(G, i.source, **b))),
    "bfs_layers": Call(lambda i, G, **b: list(nx.bfs_layers(G, i.source, **b))),
    "bfs_predecessors": Call(lambda i, G, **b: list(nx.bfs_predecessors(G, i.source, **b))),
    "bfs_successors": Call(lambda i, G, **b: list(nx.bfs_successors(G, i.source, **b))),
    "generic_bfs_edges": Call(lambda i, G, **b: list(nx.generic_bfs_edges(G, i.source, **b))),
    "descendants": Call(_source(nx.descendants), kind="directed"),
    "ancestors": Call(_source(nx.ancestors), kind="directed"),
    "descendants_at_distance": Call(_source(nx.descendants_at_distance, distance=2)),
    "lowest_common_ancestor": Call(_pair(nx.lowest_common_ancestor), kind="dag"),
    # centrality and link analysis
    "pagerank": Call(_whole(nx.pagerank)),
    "hits": Call(_whole(nx.hits), kind="directed"),
    # alpha under 1 / (largest degree), which bounds 1 / (largest eigenvalue): it converges
    "katz_centrality": Call(
        lambda i, G, **b: nx.katz_centrality(G, alpha=0.9 / max(1, i.max_degree), **b)
    ),
    "eigenvector_centrality": Call(_whole(nx.eigenvector_centrality, max_iter=10_000)),
    "betweenness_centrality": Call(_whole(nx.betweenness_centrality, k=64, seed=1)),
    "edge_betweenness_centrality": Call(_whole(nx.edge_betweenness_centrality, k=16, seed=1)),
    "degree_centrality": Call(_whole(nx.degree_centrality)),
    "in_degree_centrality": Call(_whole(nx.in_degree_centrality), kind="directed"),
    "out_degree_centrality": Call(_whole(nx.out_degree_centrality), kind="directed"),
    "closeness_centrality": Call(_whole(nx.closeness_centrality), heavy=True),
    "bipartite_betweenness_centrality": Call(
        lambda i, G, **b: nx.bipartite.betweenness_centrality(G, list(G)[::2], **b), heavy=True
    ),
    # components, cores, communities
    "connected_components": Call(lambda i, G, **b: _sets(nx.connected_components(G, **b))),
    "number_connected_components": Call(_whole(nx.number_connected_components)),
    "is_connected": Call(_whole(nx.is_connected)),
    "node_connected_component": Call(_source(nx.node_connected_component)),
    "weakly_connected_components": Call(
        lambda i, G, **b: _sets(nx.weakly_connected_components(G, **b)), kind="directed"
    ),
    "is_weakly_connected": Call(_whole(nx.is_weakly_connected), kind="directed"),
    "number_weakly_connected_components": Call(
        _whole(nx.number_weakly_connected_components), kind="directed"
    ),
    "strongly_connected_components": Call(
        lambda i, G, **b: _sets(nx.strongly_connected_components(G, **b)), kind="directed"
    ),
    "number_strongly_connected_components": Call(
        _whole(nx.number_strongly_connected_components), kind="directed"
    ),
    "is_strongly_connected": Call(_whole(nx.is_strongly_connected), kind="directed"),
    "core_number": Call(_whole(nx.core_number)),
    "k_core": Call(lambda i, G, **b: _edges(nx.k_core(G, **b)), kind="plain"),
    "k_truss": Call(lambda i, G, **b: _edges(nx.k_truss(G, 3, **b)), kind="plain"),
    "louvain_communities": Call(_whole(nx.community.louvain_communities, seed=1), seeded=True),
    "louvain_partitions": Call(
        lambda i, G, **b: list(nx.community.louvain_partitions(G, seed=1, **b)), seeded=True
    ),
    "leiden_communities": Call(_whole(nx.community.leiden_communities, seed=1), seeded=True),
    "leiden_partitions": Call(
        lambda i, G, **b: list(nx.community.leiden_partitions(G, seed=1, **b)), seeded=True
    ),
    "label_propagation_communities": Call(
        lambda i, G, **b: _sets(nx.community.label_propagation_communities(G, **b))
    ),
    "greedy_color": Call(_whole(nx.greedy_color)),
    # clustering and link prediction
    "triangles": Call(_whole(nx.triangles)),
    "clustering": Call(_whole(nx.clustering)),
    "average_clustering": Call(_whole(nx.average_clustering)),
    "transitivity": Call(_whole(nx.transitivity)),
    "square_clustering": Call(_whole(nx.square_clustering), heavy=True),
    "jaccard_coefficient": Call(_links(nx.jaccard_coefficient)),
    "adamic_adar_index": Call(_links(nx.adamic_adar_index)),
    "resource_allocation_index": Call(_links(nx.resource_allocation_index)),
    # NetworkX computes the shortest-path lengths of every pair first
    "common_neighbor_centrality": Call(_links(nx.common_neighbor_centrality), heavy=True),
    "preferential_attachment": Call(_links(nx.preferential_attachment)),
    # trees and structure
    "minimum_spanning_tree": Call(lambda i, G, **b: _edges(nx.minimum_spanning_tree(G, **b))),
    "minimum_spanning_edges": Call(
        lambda i, G, **b: sorted(tuple(sorted(e[:2])) for e in nx.minimum_spanning_edges(G, **b))
    ),
    "maximum_spanning_edges": Call(
        lambda i, G, **b: sorted(tuple(sorted(e[:2])) for e in nx.maximum_spanning_edges(G, **b))
    ),
    "maximum_spanning_tree": Call(lambda i, G, **b: _edges(nx.maximum_spanning_tree(G, **b))),
    "is_tree": Call(_whole(nx.is_tree)),
    "is_forest": Call(_whole(nx.is_forest)),
    "is_arborescence": Call(_whole(nx.is_arborescence), kind="dag"),
    "is_branching": Call(_whole(nx.is_branching), kind="dag"),
    "isolates": Call(lambda i, G, **b: list(nx.isolates(G, **b))),
    "is_isolate": Call(_source(nx.is_isolate)),
    "number_of_isolates": Call(_whole(nx.number_of_isolates)),
    "number_of_selfloops": Call(_whole(nx.number_of_selfloops)),
    "maximal_independent_set": Call(_whole(nx.maximal_independent_set, seed=1), seeded=True),
    "reciprocity": Call(_whole(nx.reciprocity), kind="directed"),
    "overall_reciprocity": Call(_whole(nx.overall_reciprocity), kind="directed"),
    "ego_graph": Call(lambda i, G, **b: _edges(nx.ego_graph(G, i.source, radius=2, **b))),
    "complement": Call(lambda i, G, **b: nx.complement(G, **b).number_of_edges(), heavy=True),
    "forceatlas2_layout": Call(
        _whole(nx.forceatlas2_layout, max_iter=100, seed=1), heavy=True, seeded=True
    ),
}


def difference(a, b):
    """How far answer `b` is from `a`: the largest absolute difference of numbers (over dict
    values, tuples and lists of numbers), else 0.0 where equal and 1.0 where not."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return 1.0
        return max((difference(a[k], b[k]) for k in a), default=0.0)
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        if len(a) != len(b):
            return 1.0
        return max((difference(x, y) for x, y in zip(a, b)), default=0.0)
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(float(a) - float(b))
    return float(a != b)
