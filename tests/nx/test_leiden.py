"""leiden_communities and leiden_partitions through the backend. NetworkX has no Leiden of its own,
so the answers are checked for what they must be (a partition of every node into connected
communities, by first node; each level raising the modularity) and for their quality, against
NetworkX's Louvain."""

import inspect
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from gravel.nx._algorithm import ALGORITHMS
from gravel.nx.interface import BackendInterface

from .helpers import lfr, nx_graphs


def valid(G, parts):
    """A list of sets partitioning G's nodes, by first node, each inducing a connected graph."""
    assert isinstance(parts, list) and all(type(c) is set for c in parts)
    assert nx.community.is_partition(G, parts)
    position = {v: i for i, v in enumerate(G)}
    firsts = [min(position[v] for v in c) for c in parts]
    assert firsts == sorted(firsts)
    assert all(nx.is_connected(G.subgraph(c)) for c in parts)


@settings(max_examples=30, deadline=None)
@given(G=nx_graphs(directed=False))
def test_random_graphs(G):
    """Weighted and not: valid partitions, the same for a seed; leiden_partitions' levels valid,
    each raising the modularity, the last leiden_communities' answer for the seed."""
    for weight in ("weight", None):
        ours = nx.community.leiden_communities(G, weight=weight, seed=3, backend="gravel")
        valid(G, ours)
        assert ours == nx.community.leiden_communities(G, weight=weight, seed=3, backend="gravel")
        levels = nx.community.leiden_partitions(G, weight=weight, seed=3, backend="gravel")
        assert inspect.isgenerator(levels)
        levels = list(levels)
        for parts in levels:
            valid(G, parts)
        assert levels[-1] == ours
        if G.number_of_edges():
            q = [nx.community.modularity(G, p, weight=weight) for p in levels]
            assert all(b > a for a, b in zip(q, q[1:], strict=False))


@pytest.mark.parametrize(
    "graph,weight,resolution",
    [
        (nx.karate_club_graph, None, 1),
        (nx.karate_club_graph, "weight", 1),
        (nx.les_miserables_graph, "weight", 1),
        (nx.les_miserables_graph, None, 1.5),
        (lfr, None, 1),
        (lambda: nx.planted_partition_graph(8, 30, 0.4, 0.02, seed=2), None, 1),
    ],
)
def test_modularity_at_least_networkx_louvain_s(graph, weight, resolution):
    """The median over three seeds within 1 % of NetworkX's Louvain's (or above it)."""
    G = graph()
    kw = {"weight": weight, "resolution": resolution}
    ours, theirs = [], []
    for seed in range(3):
        parts = nx.community.leiden_communities(G, seed=seed, backend="gravel", **kw)
        valid(G, parts)
        ours.append(nx.community.modularity(G, parts, **kw))
        louvain = nx.community.louvain_communities(G, seed=seed, backend="networkx", **kw)
        theirs.append(nx.community.modularity(G, louvain, **kw))
    assert np.median(ours) >= np.median(theirs) - 0.01 * abs(np.median(theirs))


def test_max_level_is_the_level_leiden_partitions_yields():
    G = nx.les_miserables_graph()
    levels = list(nx.community.leiden_partitions(G, seed=42, backend="gravel"))
    assert len(levels) > 1
    for max_level, expect in enumerate(levels, 1):
        assert nx.community.leiden_communities(
            G, max_level=max_level, seed=42, backend="gravel"
        ) == (expect)
    beyond = nx.community.leiden_communities(
        G, max_level=len(levels) + 3, seed=42, backend="gravel"
    )
    assert beyond == levels[-1]


def test_seeds_from_networkx_random_states():
    G = lfr()
    again = nx.community.leiden_communities(G, seed=random.Random(7), backend="gravel")
    assert again == nx.community.leiden_communities(G, seed=7, backend="gravel")
    for seed in (np.random.RandomState(7), np.random.default_rng(7)):
        valid(G, nx.community.leiden_communities(G, seed=seed, backend="gravel"))
    random.seed(4)  # seed=None draws from random's global state
    first_call = nx.community.leiden_communities(G, backend="gravel")
    random.seed(4)
    assert nx.community.leiden_communities(G, backend="gravel") == first_call


def test_edge_cases_and_labels():
    G = nx.empty_graph(5)
    assert nx.community.leiden_communities(G, backend="gravel") == [{0}, {1}, {2}, {3}, {4}]
    assert list(nx.community.leiden_partitions(G, backend="gravel")) == [[{0}, {1}, {2}, {3}, {4}]]
    assert nx.community.leiden_communities(nx.Graph(), backend="gravel") == []
    G = nx.Graph([("b", "a"), ("a", "c"), ("c", "b"), ("x", ("t", 1)), ("x", "x")])
    G.add_node(frozenset({1}))
    ours = nx.community.leiden_communities(G, seed=1, backend="gravel")
    assert ours == [{"b", "a", "c"}, {"x", ("t", 1)}, {frozenset({1})}]


def test_errors_as_networkx_raises_them():
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.community.leiden_communities(nx.DiGraph([(0, 1)]), backend="gravel")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.community.leiden_partitions(nx.DiGraph([(0, 1)]), backend="gravel")
    G = nx.karate_club_graph()
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError):
            nx.community.leiden_communities(G, max_level=bad, backend="gravel")
    with pytest.raises(ValueError, match="max_level argument must be a positive integer"):
        nx.community.leiden_communities(G, max_level=0, backend="gravel")
    G.add_edge(0, 1, weight=-1)  # gravel refuses negative weights, and NetworkX has no Leiden
    with pytest.raises(NotImplementedError):
        nx.community.leiden_communities(G, backend="gravel")
    valid(G, nx.community.leiden_communities(G, weight=None, seed=1, backend="gravel"))


@pytest.mark.parametrize(
    "name,graph,kwargs,reason",
    [
        ("leiden_communities", nx.MultiGraph([(0, 1)]), {}, "multigraphs"),
        ("leiden_communities", nx.path_graph(3), {"resolution": -1}, "resolution"),
        ("leiden_communities", nx.path_graph(3), {"seed": "abc"}, "seed"),
        ("leiden_partitions", nx.path_graph(3), {"resolution": float("nan")}, "resolution"),
    ],
)
def test_can_run_gives_the_reason(name, graph, kwargs, reason):
    said = BackendInterface.can_run(name, (graph,), kwargs)
    assert isinstance(said, str) and reason in said


def test_signatures_are_networkx_s():
    for name in ("leiden_communities", "leiden_partitions"):
        theirs = list(inspect.signature(getattr(nx.community, name)).parameters.values())
        assert list(ALGORITHMS[name].signature.parameters.values()) == theirs[:-2]
