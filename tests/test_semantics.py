"""NetworkX's and SciPy's semantics on the awkward inputs (issue 17): betweenness on multigraphs,
k-cores of directed graphs, SSSP predecessors and weights, and the edge cases of their arguments.

Graphs are tiny and examples few, so that NetworkX's pure-Python references stay cheap."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.algorithms.centrality.betweenness import (
    _accumulate_basic,
    _rescale,
    _single_source_shortest_path_basic,
)

import gravel
from gravel.algorithms.betweenness import verify_betweenness
from gravel.algorithms.kcore import verify_kcore
from gravel.errors import InvalidGraphError, VertexNotFoundError


@st.composite
def multigraphs(draw, max_n=9, max_m=40, directed=None):
    """Arc lists on few vertices, so that parallel arcs, reciprocal arcs and loops are common."""
    n = draw(st.integers(1, max_n))
    if directed is None:
        directed = draw(st.booleans())
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=max_m))
    src = np.array([a for a, _ in arcs], np.int64)
    dst = np.array([b for _, b in arcs], np.int64)
    return gravel.Graph.from_edges(src, dst, n=n, directed=directed), arcs


def nx_simple(G, arcs):
    """The networkx.DiGraph (networkx.Graph when undirected) of the same arcs."""
    g = nx.DiGraph() if G.directed else nx.Graph()
    g.add_nodes_from(range(G.n))
    g.add_edges_from(arcs)
    return g


def nx_betweenness_from(g, sources, normalized):
    """networkx.betweenness_centrality's sampled computation, with the sample given."""
    bc = dict.fromkeys(g, 0.0)
    for s in sources:
        S, P, sigma, _ = _single_source_shortest_path_basic(g, s)
        bc, _ = _accumulate_basic(bc, S, P, sigma, s)
    k = len(sources)
    bc = _rescale(
        bc,
        len(g),
        normalized=normalized,
        directed=g.is_directed(),
        endpoints=False,
        sampled_nodes=None if k == len(g) else sources,
    )
    return np.array([bc[v] for v in range(len(g))])


# -- betweenness ---------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(multigraphs(), st.booleans())
def test_issue_17_betweenness_counts_parallel_arcs_once(case, normalized):
    G, arcs = case
    g = nx_simple(G, arcs)
    expect = np.array([nx.betweenness_centrality(g, normalized=normalized)[v] for v in range(G.n)])
    bc = gravel.betweenness_centrality(G, normalized=normalized, device="cpu")
    assert bc.centrality.dtype == np.float64
    assert np.allclose(bc.centrality, expect, rtol=1e-9, atol=1e-12)
    if normalized:
        assert verify_betweenness(G, expect) == []


@settings(max_examples=40, deadline=None)
@given(multigraphs(), st.data())
def test_issue_17_betweenness_from_given_sources_as_networkx(case, data):
    G, arcs = case
    g = nx_simple(G, arcs)
    sources = data.draw(st.lists(st.integers(0, G.n - 1), min_size=1, max_size=G.n, unique=True))
    normalized = data.draw(st.booleans())
    expect = nx_betweenness_from(g, sources, normalized)
    bc = gravel.betweenness_centrality(G, sources=sources, normalized=normalized, device="cpu")
    assert np.allclose(bc.centrality, expect, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert bc.sources.tolist() == sorted(sources)
    if normalized:
        assert verify_betweenness(G, expect, sources) == []


def test_issue_17_verify_betweenness_counts_parallel_arcs_once():
    # 0 -> 1 twice: the two paths 0 -> 1 -> 2 and 0 -> 3 -> 2 weigh the same
    G = gravel.Graph.from_edges([0, 0, 1, 0, 3], [1, 1, 2, 3, 2])
    simple = [0.0, 0.5, 0.0, 0.5]
    assert verify_betweenness(G, simple, normalized=False) == []
    assert verify_betweenness(G, [0.0, 2 / 3, 0.0, 1 / 3], normalized=False) != []


def test_issue_17_betweenness_of_a_reordered_multigraph():
    G = gravel.Graph.from_edges([0, 0, 1, 0, 3, 3], [1, 1, 2, 3, 2, 2])
    R = gravel.transform.relabel(G, np.array([3, 1, 0, 2]), transparent=True)
    bc = gravel.betweenness_centrality(R, normalized=False, device="cpu").centrality
    assert bc.tolist() == [0.0, 0.5, 0.0, 0.5]


@pytest.mark.parametrize("sources", [[], np.array([], np.int64)], ids=["list", "array"])
def test_issue_17_betweenness_refuses_no_sources(sources):
    with pytest.raises(InvalidGraphError, match="empty"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=sources, device="cpu")


@pytest.mark.parametrize("sources", [[0.5], [1.0], [True], ["0"]], ids=str)
def test_issue_17_betweenness_refuses_sources_that_are_not_ids(sources):
    with pytest.raises(VertexNotFoundError, match="integer"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=sources, device="cpu")


@pytest.mark.parametrize("sources", [[4], [-1], [0, 2**40]], ids=str)
def test_betweenness_refuses_sources_outside_the_graph(sources):
    with pytest.raises(VertexNotFoundError, match="not in the graph"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=sources, device="cpu")


def test_betweenness_refuses_sources_that_are_not_a_list():
    with pytest.raises(InvalidGraphError, match="1-D"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=[[0, 1]], device="cpu")


def test_betweenness_counts_a_repeated_source_once():
    G = gravel.generate.grid(3, 3)
    twice = gravel.betweenness_centrality(G, sources=[4, 0, 4], device="cpu")
    once = gravel.betweenness_centrality(G, sources=[0, 4], device="cpu")
    assert twice.sources.tolist() == [0, 4]
    assert np.array_equal(twice.centrality, once.centrality)


@pytest.mark.parametrize("k", [0, -1, 5, 2.0, True, "2"], ids=repr)
def test_betweenness_refuses_a_bad_sample_size(k):
    with pytest.raises(InvalidGraphError, match="k"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), k, device="cpu")


def test_betweenness_sample_of_every_vertex_is_the_exact_answer():
    G = gravel.generate.grid(3, 4)
    exact = gravel.betweenness_centrality(G, device="cpu").centrality
    every = gravel.betweenness_centrality(G, G.n, seed=1, device="cpu").centrality
    assert np.allclose(every, exact)


# -- k-core --------------------------------------------------------------------------------------
def nx_cores(G, arcs):
    g = nx_simple(G, arcs)
    g.remove_edges_from(list(nx.selfloop_edges(g)))  # NetworkX refuses loops; gravel ignores them
    core = nx.core_number(g)
    return np.array([core[v] for v in range(G.n)])


@settings(max_examples=40, deadline=None)
@given(multigraphs(directed=True))
def test_issue_17_directed_core_number_uses_in_plus_out_degree(case):
    G, arcs = case
    expect = nx_cores(G, arcs)
    core = gravel.core_number(G, device="cpu").core
    assert core.dtype == np.int32
    assert np.array_equal(core, expect)
    assert verify_kcore(G, expect) == []


@settings(max_examples=20, deadline=None)
@given(multigraphs(directed=False))
def test_undirected_core_number_as_networkx_on_multigraphs(case):
    G, arcs = case
    assert np.array_equal(gravel.core_number(G, device="cpu").core, nx_cores(G, arcs))


def test_issue_17_reciprocal_arcs_each_count():
    # a directed triangle with every arc both ways: degree 4, as networkx.DiGraph.degree
    src, dst = [0, 1, 2, 1, 2, 0, 0, 0], [1, 2, 0, 0, 1, 2, 0, 1]  # a loop and a parallel arc
    G = gravel.Graph.from_edges(src, dst)
    assert gravel.core_number(G, device="cpu").core.tolist() == [4, 4, 4]
    assert verify_kcore(G, [4, 4, 4]) == []
    assert verify_kcore(G, [2, 2, 2]) != []
    S = gravel.transform.symmetrize(G)  # the undirected graph's cores, when those are wanted
    assert gravel.core_number(S, device="cpu").core.tolist() == [2, 2, 2]


def test_directed_core_number_of_a_reordered_graph():
    G = gravel.Graph.from_edges([0, 1, 1, 2, 3], [1, 0, 2, 3, 2])
    R = gravel.transform.relabel(G, np.array([2, 0, 3, 1]), transparent=True)
    expect = nx_cores(G, list(zip([0, 1, 1, 2, 3], [1, 0, 2, 3, 2])))
    assert np.array_equal(gravel.core_number(R, device="cpu").core, expect)
    assert verify_kcore(R, expect) == []
