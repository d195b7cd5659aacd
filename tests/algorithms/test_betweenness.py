"""NetworkX's and SciPy's semantics on the awkward inputs (issue 17): betweenness on multigraphs,
k-cores of directed graphs, SSSP predecessors and weights, and the edge cases of their arguments.

Graphs are tiny and examples few, so that NetworkX's pure-Python references stay cheap."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.algorithms.centrality.betweenness import (
    _accumulate_basic,
    _rescale,
    _single_source_shortest_path_basic,
)
from scipy.sparse.csgraph import dijkstra

import gravel
from gravel.algorithms.betweenness import verify_betweenness
from gravel.algorithms.kcore import verify_kcore
from gravel.algorithms.sssp import MAX_BUCKETS, verify_sssp
from gravel.errors import InvalidGraphError, InvalidWeightError, VertexNotFoundError


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


# -- SSSP ----------------------------------------------------------------------------------------
#: weights that stress the arithmetic: zero (ties, zero cycles), tiny, huge but finite in float32
AWKWARD_WEIGHTS = [0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 1e30, 3e38]


@st.composite
def weighted_multigraphs(draw, weights=AWKWARD_WEIGHTS, directed=None):
    G, arcs = draw(multigraphs(directed=directed))
    w = draw(st.lists(st.sampled_from(weights), min_size=len(arcs), max_size=len(arcs)))
    W = gravel.Graph.from_edges(
        np.array([a for a, _ in arcs], np.int64),
        np.array([b for _, b in arcs], np.int64),
        np.array(w, np.float32),
        n=G.n,
        directed=G.directed,
    )
    return W, arcs, w


def scipy_dijkstra(G, arcs, w, source):
    """SciPy's distances and predecessors on the lightest arc of each pair (explicit zeros are
    arcs to SciPy)."""
    lightest = {}
    for (a, b), x in zip(arcs, w):
        pairs = [(a, b)] if G.directed else [(a, b), (b, a)]
        for key in pairs:
            lightest[key] = min(lightest.get(key, np.inf), float(np.float32(x)))
    rows = np.array([k[0] for k in lightest], np.int64)
    cols = np.array([k[1] for k in lightest], np.int64)
    A = sp.csr_array((np.array(list(lightest.values())), (rows, cols)), shape=(G.n, G.n))
    return dijkstra(A, directed=True, indices=source, return_predecessors=True)


@settings(max_examples=40, deadline=None)
@given(weighted_multigraphs(), st.data())
def test_issue_17_sssp_on_awkward_weights_equals_scipy(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    expect, scipy_pred = scipy_dijkstra(G, arcs, w, s)
    narrow = max(1.0, 2 * max(w, default=0) / MAX_BUCKETS)  # the narrowest allowed, nearly
    for delta in (None, narrow, 1e38):
        r = gravel.sssp(G, s, delta=delta, device="cpu")
        assert r.distance.dtype == np.float64 and r.predecessor.dtype == np.int32
        assert np.allclose(r.distance, expect, rtol=1e-12, atol=0)
        assert np.array_equal(r.predecessor < 0, scipy_pred < 0)
        assert verify_sssp(G, s, r.distance, r.predecessor) == []
    for t in range(G.n):
        path = r.path_to(t)
        if np.isinf(expect[t]):
            assert path == []
            continue
        assert path[0] == s and path[-1] == t and len(set(path)) == len(path)
        assert np.array_equal(r.predecessor[path[1:]], path[:-1])


def test_issue_17_sssp_tree_has_no_cycle_on_zero_weight_cycles():
    # 1 <-> 2 <-> 3 at distance 1, every arc between them of weight 0
    src, dst = [0, 1, 2, 2, 3, 3, 1], [1, 2, 1, 3, 2, 1, 3]
    G = gravel.Graph.from_edges(src, dst, [1, 0, 0, 0, 0, 0, 0])
    r = gravel.sssp(G, 0, device="cpu")
    assert r.distance.tolist() == [0, 1, 1, 1]
    assert r.predecessor[0] == -1 and r.predecessor[1] == 0
    assert verify_sssp(G, 0, r.distance, r.predecessor) == []
    assert r.path_to(3)[0] == 0


def test_issue_17_sssp_predecessors_in_caller_ids():
    G = gravel.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0, 1.0, 1.0, 5.0])
    R = gravel.transform.relabel(G, np.array([2, 3, 0, 1]), transparent=True)
    r = gravel.sssp(R, 0, device="cpu")
    assert r.predecessor.tolist() == [-1, 0, 1, 2]
    assert r.path_to(3) == [0, 1, 2, 3]
    assert verify_sssp(R, 0, r.distance, r.predecessor) == []


def test_sssp_path_to_the_source_unreachable_and_missing_vertices():
    G = gravel.Graph.from_edges([0, 1], [1, 2], n=4)
    r = gravel.sssp(G, 1, device="cpu")
    assert r.source == 1 and r.path_to(1) == [1] and r.path_to(2) == [1, 2]
    assert r.path_to(0) == [] and r.path_to(3) == []
    for bad in (4, -1, 1.0, True):
        with pytest.raises(VertexNotFoundError):
            r.path_to(bad)


def test_verify_sssp_finds_bad_predecessors():
    G = gravel.Graph.from_edges([0, 1, 0, 2, 3], [1, 2, 2, 3, 2], [1.0, 1.0, 5.0, 0.0, 0.0])
    r = gravel.sssp(G, 0, device="cpu")
    d, pred = r.distance, r.predecessor
    assert d.tolist() == [0, 1, 2, 2] and verify_sssp(G, 0, d, pred) == []
    for wrong in ([-1, 0, 0, 2], [0, 0, 1, 2], [-1, -1, 1, 2], [-1, 0, 3, 2], [-1, 0, 1, 0]):
        assert verify_sssp(G, 0, d, np.array(wrong)) != [], wrong


@pytest.mark.parametrize("delta", [1e-30, 2.0**-30])
def test_issue_17_sssp_refuses_a_delta_too_narrow_for_its_buckets(delta):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, 1e30])
    with pytest.raises(InvalidWeightError, match="too narrow"):
        gravel.sssp(G, 0, delta=delta, device="cpu")


@pytest.mark.parametrize("delta", [0, -1.0, np.nan, np.inf, "1", True], ids=repr)
def test_sssp_refuses_a_delta_that_is_not_a_width(delta):
    with pytest.raises(InvalidWeightError, match="delta"):
        gravel.sssp(gravel.generate.grid(2, 2), 0, delta=delta, device="cpu")


def test_issue_17_sssp_default_delta_on_a_wide_weight_range():
    # the mean weight is tiny beside the largest: the default width is raised, not the ring
    src = np.arange(2000)
    w = np.full(2000, 1e-30, np.float32)
    w[-1] = 3e38
    G = gravel.Graph.from_edges(src, src + 1, w)
    r = gravel.sssp(G, 0, device="cpu")
    assert r.stats["delta"] >= 3e38 / MAX_BUCKETS
    assert verify_sssp(G, 0, r.distance, r.predecessor) == []


@pytest.mark.parametrize("w", [np.inf, 1e39], ids=["inf", "beyond-float32"])
def test_sssp_refuses_infinite_weights(w):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, w])
    with pytest.raises(InvalidWeightError, match="finite"):
        gravel.sssp(G, 0, device="cpu")
