"""The conversion of NetworkX graphs for the backend: cached on the graph and made again after
a mutation; calls that keep every edge attribute leave the cache right for later weighted calls;
weights that are not numbers go back to NetworkX; the CSR read is the graph of NetworkX's own edge
list whatever the labels; and a gravel.Graph handed to NetworkX is a clear TypeError (issue 51)."""

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx.interface import BackendInterface


def test_conversion_is_cached(monkeypatch):
    calls = []
    convert = BackendInterface.convert_from_nx

    def counting(*args, **kwargs):
        calls.append(1)
        return convert(*args, **kwargs)

    monkeypatch.setattr(BackendInterface, "convert_from_nx", staticmethod(counting))
    G = nx.path_graph(6)
    nx.pagerank(G, backend="gravel")
    nx.pagerank(G, backend="gravel", alpha=0.9)
    assert len(calls) == 1
    assert G.__networkx_cache__["backends"]["gravel"]
    G.add_edge(0, 5)  # a mutation clears the cache: the next call converts again
    assert nx.pagerank(G, backend="gravel") == pytest.approx(nx.pagerank(G))
    assert len(calls) == 2


def test_a_call_keeping_every_edge_attribute_leaves_weighted_calls_right():
    """k_core keeps every edge attribute: NetworkX caches its conversion as holding all of them
    and hands it to later weighted calls, so on a graph whose edges carry data gravel refuses it
    (NetworkX runs k_core) rather than cache an unweighted graph under that key."""
    G = nx.Graph([(0, 1, {"weight": 5.0}), (1, 2, {"weight": 1.0, "cost": 2.0})])
    with pytest.raises(NotImplementedError):
        nx.k_core(G, backend="gravel")
    assert nx.single_source_dijkstra_path_length(G, 0, backend="gravel") == {0: 0, 1: 5, 2: 6}
    assert nx.pagerank(G, backend="gravel") == pytest.approx(nx.pagerank(G))
    bare = nx.path_graph(4)  # no edge data: every attribute is none, and gravel runs it
    assert sorted(nx.k_core(bare, 1, backend="gravel").edges) == [(0, 1), (1, 2), (2, 3)]


def test_non_numeric_weights_go_back_to_networkx():
    G = nx.Graph([(0, 1, {"weight": "heavy"})])
    with pytest.raises(NotImplementedError):
        nx.pagerank(G, backend="gravel")
    with pytest.raises(NotImplementedError):
        nx.community.louvain_communities(G, backend="gravel")


def test_calls_keeping_every_edge_attribute_read_theirs_and_leave_the_cache_right():
    """NetworkX keeps every edge attribute for these calls, and caches the conversion as holding
    them all: gravel reads the weight from the caller's graph and takes that conversion out of the
    cache, so that later calls for another attribute convert again."""
    G = nx.Graph(
        [(0, 1, {"weight": 2.0, "cost": 9}), (1, 2, {"weight": 1.0}), (0, 2, {"weight": 3})]
    )
    T = nx.minimum_spanning_tree(G, backend="gravel")
    assert sorted(T.edges(data="weight")) == [(0, 1, 2.0), (1, 2, 1.0)]
    assert list(nx.minimum_spanning_edges(G, backend="gravel")) == [
        (1, 2, {"weight": 1.0}),
        (0, 1, {"weight": 2.0, "cost": 9}),
    ]
    assert sorted(nx.maximum_spanning_tree(G, weight="cost", backend="gravel").edges) == [
        (0, 1),
        (0, 2),
    ]
    for radius, distance in ((2.5, "weight"), (3, "weight"), (1.5, "cost"), (2, "cost")):
        ours = nx.ego_graph(G, 0, radius, distance=distance, backend="gravel")
        assert list(ours) == list(nx.ego_graph(G, 0, radius, distance=distance))
    cached = G.__networkx_cache__.get("backends", {}).get("gravel", {})
    assert not any(g.attributes_left for g in cached.values())
    assert nx.single_source_dijkstra_path_length(G, 0, backend="gravel") == {0: 0, 1: 2, 2: 3}
    assert nx.pagerank(G, weight="cost", backend="gravel") == pytest.approx(
        nx.pagerank(G, weight="cost")
    )
    G.add_edge(0, 2, weight=0.5)  # NetworkX clears the graph's cache, gravel's conversions too
    T = nx.minimum_spanning_tree(G, backend="gravel")
    assert sorted(T.edges(data="weight")) == [(0, 2, 0.5), (1, 2, 1.0)]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 30),
    seed=st.integers(0, 2**31 - 1),
    directed=st.booleans(),
    labels=st.sampled_from(["ids", "shuffled", "strings"]),
)
def test_conversion_equals_the_edge_list(n, seed, directed, labels):
    """The adjacency read into a CSR is the graph of NetworkX's own edge list, whatever the
    labels (ids in order, other ints, strings), with loops, and with weights where set (the
    default where not)."""
    import random

    from gravel import Graph
    from gravel.nx.convert import from_networkx

    rng = random.Random(seed)
    g = nx.gnp_random_graph(n, rng.random() * 0.4, seed=seed, directed=directed)
    g.add_edges_from((v, v) for v in g if rng.random() < 0.1)
    if labels != "ids":
        order = rng.sample(range(n), n)
        g = nx.relabel_nodes(
            g, {v: order[v] if labels == "shuffled" else f"v{order[v]}" for v in g}
        )
    for u, v, d in g.edges(data=True):
        if rng.random() < 0.7:
            d["w"] = rng.choice([0.5, 2.0, 3.25])
    got = from_networkx(g, {"w": 1.0})
    index = {v: i for i, v in enumerate(g)}
    edges = list(g.edges(data="w", default=1.0))
    want = Graph.from_edges(
        [index[u] for u, _, _ in edges],
        [index[v] for _, v, _ in edges],
        [w for _, _, w in edges],
        n=n,
        directed=directed,
    )
    assert got.labels == list(g)
    assert got.graph == want  # weights included


# (functions that NetworkX decorates with not_implemented_for, connected_components say, ask the
# graph is_directed() before any backend sees it: their AttributeError is NetworkX's own)
@pytest.mark.parametrize("call", [nx.pagerank, nx.betweenness_centrality])
def test_issue_51_a_gravel_graph_is_a_clear_type_error(call):
    import gravel

    with pytest.raises(TypeError, match=r"not a gravel\.Graph: .*G\.to_networkx\(\)"):
        call(gravel.generate.grid(3, 3), backend="gravel")
    with pytest.raises(TypeError, match="takes a NetworkX graph, not a builtins.dict"):
        BackendInterface.convert_from_nx({0: {1: {}}})
