"""Eigenvector, Katz and closeness centrality, and betweenness's edge scores, against NetworkX on
hypothesis graphs; their verifiers; bad input; the GPU against the CPU."""

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.closeness import verify_closeness
from gravel.algorithms.eigenvector import verify_eigenvector
from gravel.algorithms.katz import verify_katz
from gravel.errors import (
    InvalidArgumentError,
    InvalidGraphError,
    InvalidWeightError,
    PowerIterationFailedConvergence,
    VertexNotFoundError,
)
from gravel.transform import deduplicate

from ..strategies import graphs
from .helpers import as_array, both


def reordered(G):
    """G with its vertices stored in degree order (results stay in the caller's ids)."""
    return gravel.reorder.reorder(G, "degree") if G.n else G


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True), st.booleans(), st.booleans())
def test_eigenvector_matches_networkx(G, weight, reorder):
    G = deduplicate(G)  # NetworkX's simple graph keeps one of parallel arcs
    if G.n == 0:
        with pytest.raises(InvalidArgumentError, match="without vertices"):
            gravel.eigenvector_centrality(G, device="cpu")
        return
    g, H = G.to_networkx(), reordered(G) if reorder else G
    kw = {"max_iter": 300, "weight": "weight" if weight else None}
    try:
        want = as_array(nx.eigenvector_centrality(g, **kw), G)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(PowerIterationFailedConvergence, match="300 iterations"):
            gravel.eigenvector_centrality(H, max_iter=300, weight=weight, device="cpu")
        return
    got = gravel.eigenvector_centrality(H, max_iter=300, weight=weight, device="cpu")
    assert got.centrality.dtype == np.float64
    assert np.allclose(got.centrality, want, rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True), st.booleans(), st.booleans(), st.floats(0.01, 0.2))
def test_katz_matches_networkx(G, weight, normalized, alpha):
    G = deduplicate(G)
    g = G.to_networkx()
    beta = {v: 1 + v % 3 for v in range(G.n)}
    kw = {"alpha": alpha, "beta": beta, "normalized": normalized}
    try:
        want = as_array(nx.katz_centrality(g, weight="weight" if weight else None, **kw), G)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(PowerIterationFailedConvergence):
            gravel.katz_centrality(G, weight=weight, device="cpu", **kw)
        return
    got = gravel.katz_centrality(G, weight=weight, device="cpu", **kw)
    assert np.allclose(got.centrality, want, rtol=1e-9, atol=1e-12)
    assert got.alpha == alpha


def test_katz_of_a_graph_without_vertices():
    r = gravel.katz_centrality(gravel.Graph.from_edges([], [], n=0), device="cpu")
    assert r.centrality.shape == (0,) and r.iterations == 0


def test_katz_default_alpha_converges_and_verifies():
    G = gravel.generate.kronecker(8, 8, seed=1)
    r = gravel.katz_centrality(G, device="cpu")
    assert r.alpha == 1 / (1 + G.in_degree.max())
    assert verify_katz(G, r.centrality, alpha=r.alpha) == []
    assert verify_katz(G, r.centrality, alpha=r.alpha * 2) != []


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True), st.booleans(), st.booleans(), st.booleans())
def test_closeness_matches_networkx(G, weight, wf_improved, reorder):
    G = deduplicate(G)
    if G.n == 0:
        return
    g, H = G.to_networkx(), reordered(G) if reorder else G
    want = as_array(
        nx.closeness_centrality(g, distance="weight" if weight else None, wf_improved=wf_improved),
        G,
    )
    got = gravel.closeness_centrality(H, weight=weight, wf_improved=wf_improved, device="cpu")
    assert np.allclose(got.closeness, want, rtol=1e-12, atol=0)
    assert got.sources.tolist() == list(range(G.n))
    assert verify_closeness(H, got.closeness, weight=weight, wf_improved=wf_improved) == []


def test_closeness_of_some_sources():
    G = gravel.generate.uniform_random(7, 4, seed=3, directed=True)
    got = gravel.closeness_centrality(G, [5, 2, 5], device="cpu")
    want = nx.closeness_centrality(G.to_networkx())
    assert got.sources.tolist() == [2, 5]
    assert np.isnan(got.closeness[[0, 1, 3]]).all()
    assert np.allclose(got.closeness[[2, 5]], [want[2], want[5]], rtol=1e-12)
    assert verify_closeness(G, got.closeness) == []
    wrong = got.closeness.copy()
    wrong[5] *= 1.01
    assert "vertex 5" in verify_closeness(G, wrong)[0]


def edge_dict(G, scores):
    """gravel's per-arc scores keyed as NetworkX keys edges (an undirected edge once)."""
    src, dst = G.edges()
    return {
        (u, v): x
        for u, v, x in zip(src.tolist(), dst.tolist(), scores.tolist())
        if G.directed or u <= v
    }


@settings(max_examples=40, deadline=None)
@given(graphs(), st.booleans(), st.integers(0, 6))
def test_edge_betweenness_matches_networkx(G, normalized, k):
    G = deduplicate(G)
    if G.n == 0:
        return
    g = G.to_networkx()
    sources = np.arange(G.n) if k == 0 else np.arange(0, G.n, 2)[:k]
    r = gravel.betweenness_centrality(
        G, sources=sources, normalized=normalized, edges=True, device="cpu"
    )
    want = _edge_betweenness_from(g, sources.tolist(), normalized)
    got = edge_dict(G, r.edge_centrality)
    assert got.keys() == want.keys()
    assert all(got[e] == pytest.approx(want[e], rel=1e-9, abs=1e-12) for e in want)
    alone = gravel.betweenness_centrality(G, sources=sources, normalized=normalized, device="cpu")
    assert alone.centrality == pytest.approx(r.centrality, nan_ok=True)


def _edge_betweenness_from(g, sources, normalized):
    """NetworkX's edge betweenness from exactly `sources` (its sample, made deterministic)."""

    class Picked(random.Random):
        def sample(self, population, k):
            return sources

    k = None if len(sources) == len(g) else len(sources)
    return nx.edge_betweenness_centrality(g, k=k, normalized=normalized, seed=Picked())


def test_edge_betweenness_level_parallel_path(monkeypatch):
    """With fewer sources than threads on a large graph, every thread works on one source: the
    arcs' scores there equal the per-source kernel's."""
    from gravel.backends.cpu import serial

    G = gravel.generate.kronecker(7, 8, seed=2)
    whole = gravel.betweenness_centrality(G, sources=[3], edges=True, device="cpu")
    monkeypatch.setattr(serial, "is_small", lambda arcs: False)
    monkeypatch.setattr("numba.get_num_threads", lambda: 4)
    levels = gravel.betweenness_centrality(G, sources=[3], edges=True, device="cpu")
    assert levels.strategy == "brandes, level-parallel"
    assert np.allclose(levels.edge_centrality, whole.edge_centrality, rtol=1e-12)
    assert np.allclose(levels.centrality, whole.centrality, rtol=1e-12, equal_nan=True)


def test_edge_scores_are_absent_unless_asked():
    G = gravel.generate.grid(1, 3)
    assert gravel.betweenness_centrality(G, device="cpu").edge_centrality is None
    r = gravel.betweenness_centrality(G, normalized=False, edges=True, device="cpu")
    assert r.edge_centrality.tolist() == [2.0, 2.0, 2.0, 2.0]  # both arcs of both edges


def test_verifiers_catch_wrong_scores():
    G = gravel.generate.kronecker(6, 8, seed=5)
    x = gravel.eigenvector_centrality(G, device="cpu").centrality
    assert verify_eigenvector(G, x) == []
    assert verify_eigenvector(G, np.roll(x, 1)) != []
    assert "norm" in verify_eigenvector(G, 2 * x)[0]


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda G: gravel.eigenvector_centrality(G, max_iter=0), InvalidArgumentError, "max_iter"),
        (lambda G: gravel.eigenvector_centrality(G, tol=-1), InvalidArgumentError, "tol"),
        (
            lambda G: gravel.eigenvector_centrality(G, nstart=[1, 2]),
            InvalidArgumentError,
            "one value per vertex",
        ),
        (
            lambda G: gravel.eigenvector_centrality(G, nstart={9: 1}),
            VertexNotFoundError,
            "nstart: 9",
        ),
        (
            lambda G: gravel.eigenvector_centrality(G, max_iter=1),
            PowerIterationFailedConvergence,
            "1 iterations",
        ),
        (lambda G: gravel.katz_centrality(G, alpha=float("nan")), InvalidArgumentError, "alpha"),
        (lambda G: gravel.katz_centrality(G, beta=float("inf")), InvalidArgumentError, "beta"),
        (lambda G: gravel.katz_centrality(G, beta=[1, 2]), InvalidArgumentError, "beta"),
        (lambda G: gravel.katz_centrality(G, alpha=2.0), PowerIterationFailedConvergence, "katz"),
        (
            lambda G: gravel.katz_centrality(G, weight=True),
            InvalidWeightError,
            "katz_centrality",
        ),
        (lambda G: gravel.closeness_centrality(G, []), InvalidGraphError, "empty"),
        (lambda G: gravel.closeness_centrality(G, [[0]]), InvalidGraphError, "1-D"),
        (lambda G: gravel.closeness_centrality(G, [7]), VertexNotFoundError, "vertex 7"),
        (
            lambda G: gravel.closeness_centrality(G, weight=True),
            InvalidWeightError,
            "closeness_centrality",
        ),
        (
            lambda G: gravel.betweenness_centrality(deduplicate(G), edges=True, device="x"),
            gravel.UnknownNameError,
            "device",
        ),
    ],
)
def test_bad_input_is_named(call, error, match):
    G = gravel.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], [1.0, -1.0, 2.0, 1.0], directed=False)
    with pytest.raises(error, match=match):
        call(G)


def test_edges_on_parallel_arcs_are_refused():
    G = gravel.Graph.from_edges([0, 0, 1], [1, 1, 2])
    with pytest.raises(InvalidGraphError, match="parallel arcs"):
        gravel.betweenness_centrality(G, edges=True, device="cpu")


# -- the GPU against the CPU ------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("weight", [False, True])
def test_gpu_eigenvector_and_katz_match_cpu(gpu_graph_kron, weight):
    G = gpu_graph_kron
    gpu, cpu = both(gravel.eigenvector_centrality, G, weight=weight, max_iter=500)
    assert np.allclose(gpu.centrality.get(), cpu.centrality, rtol=1e-9, atol=1e-14)
    gpu, cpu = both(gravel.katz_centrality, G, weight=weight)
    assert np.allclose(gpu.centrality.get(), cpu.centrality, rtol=1e-9, atol=1e-14)


@pytest.mark.gpu
@pytest.mark.parametrize("weight", [False, True])
def test_gpu_closeness_matches_cpu(gpu_graph_kron, weight):
    G = gpu_graph_kron
    sources = np.arange(0, G.n, max(1, G.n // 1500))  # more than one batch of the GPU
    gpu, cpu = both(gravel.closeness_centrality, G, sources=sources, weight=weight)
    assert gpu.strategy == ("sssp per source" if weight else "bfs, batched")
    assert np.allclose(gpu.closeness.get(), cpu.closeness, rtol=1e-6, equal_nan=True)


@pytest.mark.gpu
def test_gpu_closeness_beyond_int32_offsets_searches_each_source(monkeypatch):
    """A graph of more arcs than cuSPARSE's int32 offsets hold takes an SSSP per source (made so
    here by lowering the bound: such a graph does not fit a test)."""
    from gravel.algorithms import closeness

    monkeypatch.setattr(closeness, "INT32_ARCS", 0)
    G = deduplicate(gravel.generate.kronecker(9, 8, seed=4))
    gpu, cpu = both(gravel.closeness_centrality, G, sources=np.arange(0, G.n, 16))
    assert gpu.strategy == "sssp per source"
    assert np.allclose(gpu.closeness.get(), cpu.closeness, rtol=1e-6, equal_nan=True)


@pytest.mark.gpu
@pytest.mark.parametrize("sources", [8, 200], ids=["per-source", "batched"])
def test_gpu_edge_betweenness_matches_cpu(sources):
    G = deduplicate(gravel.generate.kronecker(11, 8, seed=6))
    picked = np.arange(sources) * (G.n // sources)
    gpu, cpu = both(gravel.betweenness_centrality, G, sources=picked, edges=True)
    assert np.allclose(gpu.edge_centrality.get(), cpu.edge_centrality, rtol=1e-9)
    assert np.allclose(gpu.centrality.get(), cpu.centrality, rtol=1e-9, equal_nan=True)


@pytest.fixture
def gpu_graph_kron():
    from ..conftest import gpu_graph

    return deduplicate(gpu_graph("kron"))
