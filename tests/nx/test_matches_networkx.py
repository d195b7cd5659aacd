"""gravel as a NetworkX backend: ``nx.f(G, backend="gravel")`` equals NetworkX's own result.
Every function is registered with NetworkX's signature, and each of the CASES gives NetworkX's
answer on random graphs; also betweenness's options, labels that are not ints, and label
propagation's and greedy colouring's exact order (NetworkX's exceptions: test_errors.py).
NetworkX's own suite, run through the backend, is described in docs/networkx.md."""

import inspect

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx._algorithm import ALGORITHMS
from gravel.nx._info import FUNCTIONS

from .helpers import (
    DICT_VALUES,
    called,
    first,
    nx_function,
    nx_graphs,
    same,
)

# name -> (graph kinds it takes, keyword arguments given the graph)
CASES = {
    "bfs_edges": ("both", lambda G: {"source": first(G)}),
    "bfs_tree": ("both", lambda G: {"source": first(G), "depth_limit": 2}),
    "bfs_layers": ("both", lambda G: {"sources": first(G)}),
    "descendants_at_distance": ("both", lambda G: {"source": first(G), "distance": 2}),
    "single_source_shortest_path_length": ("both", lambda G: {"source": first(G), "cutoff": 3}),
    "single_source_dijkstra_path_length": ("both", lambda G: {"source": first(G)}),
    "shortest_path_length": ("both", lambda G: {"source": first(G), "weight": "weight"}),
    "pagerank": ("both", lambda G: {"personalization": {first(G): 1}}),
    "connected_components": ("undirected", lambda G: {}),
    "number_connected_components": ("undirected", lambda G: {}),
    "is_connected": ("undirected", lambda G: {}),
    "node_connected_component": ("undirected", lambda G: {"n": first(G)}),
    "weakly_connected_components": ("directed", lambda G: {}),
    "strongly_connected_components": ("directed", lambda G: {}),
    "number_strongly_connected_components": ("directed", lambda G: {}),
    "is_strongly_connected": ("directed", lambda G: {}),
    "betweenness_centrality": ("both", lambda G: {"k": min(3, len(G)), "seed": 5}),
    "triangles": ("undirected", lambda G: {}),
    "transitivity": ("undirected", lambda G: {}),
    "average_clustering": ("undirected", lambda G: {}),
    "clustering": ("undirected", lambda G: {}),
    "core_number": ("both", lambda G: {}),
    "k_core": ("both", lambda G: {}),
    "label_propagation_communities": ("undirected", lambda G: {}),
    "greedy_color": ("undirected", lambda G: {}),
    "louvain_communities": ("undirected", lambda G: {"seed": 3}),
    "degree_centrality": ("both", lambda G: {}),
    "in_degree_centrality": ("directed", lambda G: {}),
    "out_degree_centrality": ("directed", lambda G: {}),
    "closeness_centrality": ("both", lambda G: {"distance": "weight"}),
    "eigenvector_centrality": ("both", lambda G: {"max_iter": 300}),
    "katz_centrality": ("both", lambda G: {"alpha": 0.05}),
    "hits": ("both", lambda G: {"max_iter": 0}),  # ARPACK's vectors: tests/nx/test_centrality.py
    "edge_betweenness_centrality": ("both", lambda G: {"k": min(3, len(G)), "seed": 5}),
    "bipartite_betweenness_centrality": ("undirected", lambda G: {"nodes": list(G)[::2]}),
    "square_clustering": ("both", lambda G: {}),
    "jaccard_coefficient": ("undirected", lambda G: {}),
    "adamic_adar_index": ("undirected", lambda G: {}),
    "resource_allocation_index": ("undirected", lambda G: {}),
    "preferential_attachment": ("undirected", lambda G: {}),
    "common_neighbor_centrality": ("undirected", lambda G: {}),
    "is_weakly_connected": ("directed", lambda G: {}),
    "number_weakly_connected_components": ("directed", lambda G: {}),
    "k_truss": ("undirected", lambda G: {"k": 3}),
    "reciprocity": ("directed", lambda G: {"nodes": list(G)[:3]}),
    "overall_reciprocity": ("both", lambda G: {}),
}


# generators whose order NetworkX and gravel choose differently (_info.FUNCTIONS says how)
UNORDERED = {"strongly_connected_components"}
# partitions that depend on the visit order: compared as valid partitions (and by modularity in
# test_louvain_modularity_is_networkx_s)
PARTITIONS = {"louvain_communities"}


def test_every_function_is_registered_with_networkx_signature():
    assert set(FUNCTIONS) == set(ALGORITHMS) >= set(CASES)  # others: their own test files
    for name, func in ALGORITHMS.items():
        theirs = list(inspect.signature(nx_function(name)).parameters.values())
        assert list(func.signature.parameters.values()) == theirs[:-2], name  # less backend=


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_matches_networkx(name, data):
    kinds, kwargs = CASES[name]
    G = data.draw(nx_graphs(directed={"both": None, "directed": True, "undirected": False}[kinds]))
    args = kwargs(G)
    if name in ("core_number", "k_core", "k_truss"):
        G.remove_edges_from(list(nx.selfloop_edges(G)))
    if name in (
        "k_core",
        "k_truss",
    ):  # it keeps every edge attribute: gravel takes graphs without any
        for *_, d in G.edges(data=True):
            d.clear()
    ours, theirs = called(name, G, backend="gravel", **args), called(name, G, **args)
    if name in UNORDERED:
        ours, theirs = sorted(map(sorted, ours)), sorted(map(sorted, theirs))
    if name in PARTITIONS:
        assert isinstance(ours, list) and nx.community.is_partition(G, ours)
        position = {v: i for i, v in enumerate(G)}
        firsts = [min(position[v] for v in c) for c in ours]
        assert firsts == sorted(firsts)  # by first node
        return
    assert same(theirs, ours)


@pytest.mark.parametrize("endpoints", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("k", [None, 1, 4])
@pytest.mark.parametrize("directed", [False, True])
def test_betweenness_options(directed, k, normalized, endpoints):
    G = nx.gnp_random_graph(30, 0.1, seed=3, directed=directed)
    kw = dict(k=k, normalized=normalized, endpoints=endpoints, seed=11)
    assert same(
        nx.betweenness_centrality(G, **kw), nx.betweenness_centrality(G, backend="gravel", **kw)
    )


def test_string_labels_map_back():
    G = nx.Graph([("b", "a"), ("a", "c"), ("c", "b"), ("c", ("t", 1))])
    G.add_node(frozenset({1}))
    assert nx.triangles(G, backend="gravel") == {
        "b": 1,
        "a": 1,
        "c": 1,
        ("t", 1): 0,
        frozenset({1}): 0,
    }
    assert nx.core_number(G, backend="gravel") == nx.core_number(G)
    assert list(nx.connected_components(G, backend="gravel")) == list(nx.connected_components(G))
    assert nx.pagerank(G, backend="gravel") == pytest.approx(nx.pagerank(G))


@pytest.mark.parametrize(
    "graph",
    [
        nx.karate_club_graph(),
        nx.les_miserables_graph(),
        nx.planted_partition_graph(6, 20, 0.5, 0.05, seed=1),
        nx.Graph([(0, 0), (0, 1), (1, 2), (3, 4), (4, 4)]),
        nx.empty_graph(["b", "a"]),
        nx.Graph(),
    ],
)
def test_label_propagation_and_colouring_are_networkx_s(graph):
    ours = nx.community.label_propagation_communities(graph, backend="gravel")
    theirs = nx.community.label_propagation_communities(graph)
    assert type(ours) is type(theirs) is DICT_VALUES
    assert list(ours) == list(theirs)  # the same sets, in the same order
    ours, theirs = nx.greedy_color(graph, backend="gravel"), nx.greedy_color(graph)
    assert list(ours.items()) == list(theirs.items())  # the same colours, in the same order
