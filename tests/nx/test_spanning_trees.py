"""Minimum and maximum spanning edges and trees through the backend: Kruskal's edges, in
NetworkX's order, under distinct weights; forests of NetworkX's weight under ties; the caller's
graph, node and edge attributes kept; and NaN weights raised or ignored as NetworkX does."""

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .helpers import (
    bare,
    distinct_weights,
    nx_graphs,
)


def is_spanning_forest(G, edges):
    """`edges` are edges of G forming a forest with one tree per component of G."""
    F = nx.Graph()
    F.add_nodes_from(G)
    F.add_edges_from(edges)
    real = nx.Graph(G)
    real.remove_edges_from(nx.selfloop_edges(real))
    return (
        all(G.has_edge(u, v) for u, v in edges)
        and nx.is_forest(F)
        and nx.number_connected_components(F) == nx.number_connected_components(real)
    )


@pytest.mark.parametrize("name", ["minimum_spanning_edges", "maximum_spanning_edges"])
@settings(max_examples=30, deadline=None)
@given(G=nx_graphs(directed=False), seed=st.integers(0, 99))
def test_spanning_edges_are_kruskal_s_under_distinct_weights(name, G, seed):
    H = distinct_weights(G, seed)
    for algorithm in ("kruskal", "prim", "boruvka"):
        ours = list(getattr(nx, name)(H, algorithm, data=False, backend="gravel"))
        theirs = list(getattr(nx, name)(H, algorithm, data=False))
        if algorithm == "kruskal":
            assert ours == theirs  # the same edges, in the same order, the same way round
        assert sorted(map(sorted, ours)) == sorted(map(sorted, theirs))


@pytest.mark.parametrize("minimum", [True, False])
@settings(max_examples=30, deadline=None)
@given(G=nx_graphs(directed=False))
def test_spanning_forests_under_ties_weigh_networkx_s(minimum, G):
    name = "minimum_spanning_edges" if minimum else "maximum_spanning_edges"
    ours = list(getattr(nx, name)(G, data=False, backend="gravel"))
    theirs = list(getattr(nx, name)(G, data=False))
    assert is_spanning_forest(G, ours)
    weight = sum(G[u][v]["weight"] for u, v in ours)
    assert weight == sum(G[u][v]["weight"] for u, v in theirs)


@pytest.mark.parametrize("name", ["minimum_spanning_tree", "maximum_spanning_tree"])
@settings(max_examples=30, deadline=None)
@given(G=nx_graphs(directed=False), data=st.booleans())
def test_spanning_trees_keep_the_caller_s_attributes(name, G, data):
    G = G if data else bare(G)
    G.graph["title"] = "g"
    for v in G:
        G.nodes[v]["colour"] = str(v)
    T, theirs = getattr(nx, name)(G, backend="gravel"), getattr(nx, name)(G)
    assert type(T) is type(G) and T.graph == G.graph
    assert list(T.nodes(data=True)) == list(G.nodes(data=True))
    assert is_spanning_forest(G, T.edges)
    assert T.size(weight="weight") == theirs.size(weight="weight")
    edges = list(nx.minimum_spanning_edges(G, backend="gravel"))
    assert all(d is G[u][v] for u, v, d in edges)  # the caller's own data dicts


def test_nan_weights():
    G = nx.Graph([(0, 1, {"weight": 1.0}), (1, 2, {"weight": float("nan")}), (0, 2, {"w": 1})])
    for kwargs in ({}, {"backend": "gravel"}):
        with pytest.raises(ValueError, match="NaN found as an edge weight"):
            list(nx.minimum_spanning_edges(G, data=False, **kwargs))
        ours = list(nx.minimum_spanning_edges(G, data=False, ignore_nan=True, **kwargs))
        assert sorted(ours) == [(0, 1), (0, 2)]
