"""The functions that read a graph's structure, against NetworkX's own results: isolates, self
loops, tree, forest, arborescence and branching recognition on random forests, the connectivity
tests with a stranded node (the NetworkX exceptions of these functions: test_errors.py)."""

import inspect

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx.interface import BackendInterface

from .helpers import (
    nx_graphs,
)


def outcome(call):
    """The result (generators as lists), or the type of the NetworkX exception raised."""
    try:
        out = call()
        return list(out) if inspect.isgenerator(out) else out
    except (nx.NetworkXException, KeyError, ValueError) as exc:
        return type(exc)


def both(name, G, **kwargs):
    """(gravel's outcome, NetworkX's outcome) of nx.`name`(G, **kwargs)."""
    f = getattr(nx, name)
    return outcome(lambda: f(G, backend="gravel", **kwargs)), outcome(lambda: f(G, **kwargs))


# -- functions that read the graph: equal to NetworkX's results --------------------------------
READERS = {
    "isolates": ("both", lambda G: {}),
    "number_of_isolates": ("both", lambda G: {}),
    "number_of_selfloops": ("both", lambda G: {}),
    "is_tree": ("both", lambda G: {}),
    "is_forest": ("both", lambda G: {}),
    "is_arborescence": ("directed", lambda G: {}),
    "is_branching": ("directed", lambda G: {}),
}


@st.composite
def forests(draw, directed=None):
    """Random forests (arborescences' edges pointing away from each root when directed), some
    with an extra edge, a self loop or an isolated node, so both answers come up; string labels
    half the time."""
    n = draw(st.integers(1, 20))
    directed = draw(st.booleans()) if directed is None else directed
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    for v in range(1, n):
        if draw(st.integers(0, 4)):  # else v starts a new tree
            u = draw(st.integers(0, v - 1))
            G.add_edge(*(draw(st.permutations([u, v])) if not directed else (u, v)))
    extra = draw(st.sampled_from(["none", "edge", "loop", "reversed"]))
    if extra == "edge" and n > 2:
        G.add_edge(*draw(st.permutations([0, n - 1])))
    elif extra == "loop":
        G.add_edge(n - 1, n - 1)
    elif extra == "reversed" and directed and G.number_of_edges():
        u, v = next(iter(G.edges))
        G.remove_edge(u, v)
        G.add_edge(v, u)
    return nx.relabel_nodes(G, {v: f"v{v}" for v in G}) if draw(st.booleans()) else G


@pytest.mark.parametrize("name", sorted(READERS))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_readers_match_networkx(name, data):
    kinds, kwargs = READERS[name]
    directed = {"both": None, "directed": True}[kinds]
    graphs = forests(directed) if name.startswith("is_") else nx_graphs(directed=directed)
    G = data.draw(graphs)
    ours, theirs = both(name, G, **kwargs(G))
    assert ours == theirs
    assert type(ours) is type(theirs)


@settings(max_examples=30, deadline=None)
@given(G=nx_graphs())
def test_is_isolate_matches_networkx(G):
    for v in G:
        assert nx.is_isolate(G, v, backend="gravel") == nx.is_isolate(G, v)
    assert inspect.isgenerator(nx.isolates(G, backend="gravel"))


@pytest.mark.parametrize("where", ["first", "last", "none"])
@pytest.mark.parametrize(
    "name,make,arcs",
    [
        ("is_connected", nx.Graph, []),
        ("is_connected", nx.Graph, [("x", "x")]),
        ("is_weakly_connected", nx.DiGraph, []),
        ("is_weakly_connected", nx.DiGraph, [("x", "x")]),
        ("is_strongly_connected", nx.DiGraph, [("x", 0)]),
        ("is_strongly_connected", nx.DiGraph, [(0, "x")]),
        ("is_strongly_connected", nx.DiGraph, [("x", "x"), ("x", 0)]),
    ],
)
def test_connectivity_with_a_stranded_node(name, make, arcs, where):
    """A node "x" that shares a component with no other (no arcs, a self loop only, arcs one way
    only), first in node order, last or absent: NetworkX's answer."""
    G = make()
    if where == "first":  # the node comes first in NetworkX's (and the conversion's) order
        G.add_node("x")
    G.add_edges_from(nx.cycle_graph(6, create_using=make).edges)
    if where != "none":
        G.add_node("x")
        G.add_edges_from(arcs)
    expected = getattr(nx, name)(G)
    assert expected == (where == "none")
    assert getattr(nx, name)(G, backend="gravel") == expected


def test_one_component_asks_the_first_node_before_the_rest():
    """A first node without arcs answers False from its own degrees, as NetworkX's search from it
    ends at once: neither the other nodes' degrees nor any labelling are read."""
    from gravel.nx.algorithms.components.connected import one_component
    from gravel.nx.algorithms.isolate import isolated

    G = nx.Graph()
    G.add_node("x")
    G.add_edges_from(nx.cycle_graph(6).edges)
    asked = []

    def stranded(H, ids):
        asked.append(ids)
        return isolated(H, ids)

    def labels(H):
        raise AssertionError("labelled the graph although the first node answers")

    H = BackendInterface.convert_from_nx(G)
    assert one_component(H, labels, stranded) is False
    assert asked == [0]


@pytest.mark.parametrize("name", ["is_tree", "is_forest", "is_arborescence", "is_branching"])
def test_the_null_graph_is_a_pointless_concept(name):
    ours, theirs = both(name, nx.DiGraph())
    assert ours is theirs is nx.NetworkXPointlessConcept
