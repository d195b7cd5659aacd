"""louvain_communities and louvain_partitions through the backend. gravel visits the vertices in
another random order than NetworkX, so its partitions are checked as valid and within 5 % of
NetworkX's modularity, seed for seed; also seeds given as NetworkX's random states, edge cases,
and the levels of louvain_partitions (each merging the one before, the last louvain_communities's
answer)."""

import networkx as nx
import pytest
from hypothesis import given, settings

from .helpers import lfr, nx_graphs


def weighted_karate():
    G = nx.karate_club_graph()  # "weight": 1 to 7
    G.add_edge(0, 0, weight=3)
    return G


@pytest.mark.parametrize(
    "graph,weight,resolution",
    [
        (nx.karate_club_graph, None, 1),
        (weighted_karate, "weight", 1),
        (weighted_karate, "weight", 0.5),
        (lfr, "weight", 1),
        (lambda: nx.planted_partition_graph(8, 30, 0.4, 0.02, seed=2), None, 1),
        (lambda: nx.les_miserables_graph(), "weight", 1.5),
    ],
)
def test_louvain_modularity_is_networkx_s(graph, weight, resolution):
    """A valid partition whose modularity is within 5 % of NetworkX's, seed for seed."""
    G = graph()
    for seed in range(3):
        kw = dict(weight=weight, resolution=resolution, seed=seed)
        ours = nx.community.louvain_communities(G, backend="gravel", **kw)
        assert nx.community.is_partition(G, ours)
        assert ours == nx.community.louvain_communities(G, backend="gravel", **kw)  # same seed
        q = [
            nx.community.modularity(G, p, weight=weight, resolution=resolution)
            for p in (ours, nx.community.louvain_communities(G, **kw))
        ]
        assert q[0] >= q[1] - 0.05 * abs(q[1]), (seed, q)


def test_louvain_seeds_from_networkx_random_states():
    import random

    import numpy as np

    G = lfr()
    again = nx.community.louvain_communities(G, seed=random.Random(7), backend="gravel")
    assert again == nx.community.louvain_communities(G, seed=7, backend="gravel")
    for seed in (np.random.RandomState(7), np.random.default_rng(7)):
        assert nx.community.is_partition(
            G, nx.community.louvain_communities(G, seed=seed, backend="gravel")
        )
    random.seed(4)  # seed=None draws from random's global state, as NetworkX's own code does
    first_call = nx.community.louvain_communities(G, backend="gravel")
    random.seed(4)
    assert nx.community.louvain_communities(G, backend="gravel") == first_call


def test_louvain_edge_cases():
    G = nx.empty_graph(5)
    assert nx.community.louvain_communities(G, backend="gravel") == [{0}, {1}, {2}, {3}, {4}]
    assert nx.community.louvain_communities(nx.Graph(), backend="gravel") == []
    G = nx.karate_club_graph()
    G.add_edge(0, 1, weight=-1)  # gravel refuses negative weights: NetworkX runs them
    with pytest.raises(NotImplementedError):
        nx.community.louvain_communities(G, backend="gravel")


# -- Louvain's levels -----------------------------------------------------------------------------
@pytest.mark.parametrize("graph", [nx.karate_club_graph, lfr, nx.les_miserables_graph])
def test_louvain_partitions_are_levels(graph):
    G = graph()
    levels = list(nx.community.louvain_partitions(G, seed=3, backend="gravel"))
    assert levels and all(nx.community.is_partition(G, p) for p in levels)
    q = [nx.community.modularity(G, p) for p in levels]
    assert q == sorted(q)
    for coarse, fine in zip(levels[1:-1], levels):  # each level merges the one before (the
        assert all(any(c <= d for d in coarse) for c in fine)  # last is refined after)
    last = nx.community.louvain_communities(G, seed=3, backend="gravel")
    assert last == levels[-1]
    theirs = [nx.community.modularity(G, p) for p in nx.community.louvain_partitions(G, seed=3)]
    assert q[-1] >= 0.95 * theirs[-1]
    for k in range(1, len(levels)):
        top = nx.community.louvain_communities(G, seed=3, max_level=k, backend="gravel")
        assert top == levels[k - 1]


@settings(max_examples=25, deadline=None)
@given(G=nx_graphs(directed=False))
def test_louvain_partitions_on_random_graphs(G):
    levels = list(nx.community.louvain_partitions(G, seed=1, backend="gravel"))
    assert levels and all(nx.community.is_partition(G, p) for p in levels)
    if G.number_of_edges() == 0:
        assert levels == [[{v} for v in G]]
