"""Maximal independent sets, ego graphs and complements through the backend: gravel's maximal
independent set is valid, holds the required nodes, repeats for a seed and is as large as
NetworkX's on average (not NetworkX's own draw); ego graphs and complements equal NetworkX's, node
and edge data included; complement declines graphs over MAX_NODES."""

import random

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx.algorithms.operators.unary import MAX_NODES
from gravel.nx.interface import BackendInterface

from .helpers import (
    nx_graphs,
)


# -- maximal independent sets ---------------------------------------------------------------------
def is_maximal_independent(G, members):
    """No two members adjacent (a member's self loop aside, as NetworkX draws such nodes too),
    and every node a member or next to one."""
    chosen = set(members)
    independent = not any(u in chosen and v in chosen and u != v for u, v in G.edges)
    return independent and chosen.union(*(set(G[v]) for v in chosen)) == set(G)


@settings(max_examples=40, deadline=None)
@given(G=nx_graphs(directed=False), seed=st.integers(0, 99), data=st.data())
def test_maximal_independent_set_is_valid_and_holds_nodes(G, seed, data):
    nodes = None
    if data.draw(st.booleans()):  # a required independent set: part of an answer
        found = nx.maximal_independent_set(G, seed=seed, backend="gravel")
        nodes = data.draw(st.sets(st.sampled_from(found)))
        nodes = [v for v in nodes if not G.has_edge(v, v)]
    ours = nx.maximal_independent_set(G, nodes, seed=seed, backend="gravel")
    assert isinstance(ours, list) and len(set(ours)) == len(ours)
    assert is_maximal_independent(G, ours)
    if nodes:
        assert ours[: len(set(nodes))] == list(set(nodes))
    assert ours == nx.maximal_independent_set(G, nodes, seed=seed, backend="gravel")
    state = random.Random(seed)
    again = nx.maximal_independent_set(G, nodes, seed=state, backend="gravel")
    assert is_maximal_independent(G, again)


def test_maximal_independent_set_size_is_networkx_s():
    """The greedy set in a random order: on a random graph as large as NetworkX's on average."""
    G = nx.gnp_random_graph(300, 0.03, seed=1)
    ours = np.mean(
        [len(nx.maximal_independent_set(G, seed=s, backend="gravel")) for s in range(20)]
    )
    theirs = np.mean([len(nx.maximal_independent_set(G, seed=s)) for s in range(20)])
    assert abs(ours - theirs) <= 0.05 * theirs


# -- ego graphs and complements -------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    G=nx_graphs(),
    radius=st.sampled_from([0, 1, 2, 3, 1.5, 20, None]),
    center=st.booleans(),
    undirected=st.booleans(),
    distance=st.sampled_from([None, "weight"]),
)
def test_ego_graph_matches_networkx(G, radius, center, undirected, distance):
    if undirected and distance and G.is_directed():
        distance = None  # gravel declines weighted distances over reciprocal arcs
    for v in G:
        G.nodes[v]["size"] = 1
    n = next(iter(G))
    kw = {"radius": radius, "center": center, "undirected": undirected, "distance": distance}
    ours, theirs = nx.ego_graph(G, n, backend="gravel", **kw), nx.ego_graph(G, n, **kw)
    assert type(ours) is type(theirs)
    # the node order follows a set's (ego_graph's docstring): compared as dicts
    assert dict(ours.nodes(data=True)) == dict(theirs.nodes(data=True))
    key = (lambda u, v: (u, v)) if G.is_directed() else (lambda u, v: frozenset((u, v)))
    assert {key(u, v): d for u, v, d in ours.edges(data=True)} == {
        key(u, v): d for u, v, d in theirs.edges(data=True)
    }


@settings(max_examples=40, deadline=None)
@given(G=nx_graphs())
def test_complement_matches_networkx(G):
    ours, theirs = nx.complement(G, backend="gravel"), nx.complement(G)
    assert type(ours) is type(theirs)
    assert list(ours.nodes) == list(theirs.nodes)
    assert list(ours.edges) == list(theirs.edges)
    assert [list(a) for a in ours.adj.values()] == [list(a) for a in theirs.adj.values()]


def test_complement_declines_large_graphs():
    G = nx.empty_graph(MAX_NODES + 1)
    assert "at most" in BackendInterface.can_run("complement", (G,), {})
