"""Link prediction scores on the CPU and the GPU against each method's definition written out
with NetworkX's sets, and the GPU's weighted search, run on the host with NumPy, against the
CPU's merge."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.link_prediction import (
    METHODS,
    neighbor_sums,
    verify_link_prediction,
    weighted_sums,
)
from gravel.algorithms.neighbors import arc_keys
from gravel.arrays import host

from ..strategies import graphs
from .helpers import both


@st.composite
def graphs_and_pairs(draw, max_n=30):
    G = draw(graphs(max_n=max_n, max_m=150))
    if not G.n:
        return G, np.zeros((0, 2), np.int64)
    ids = st.integers(0, G.n - 1)
    return G, np.array(draw(st.lists(st.tuples(ids, ids), max_size=40)), np.int64).reshape(-1, 2)


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=40, deadline=None)
@given(case=graphs_and_pairs())
def test_scores_match_their_definition(method, case):
    G, pairs = case
    r = gravel.link_prediction(G, pairs, method=method, device="cpu")
    assert r.score.dtype == np.float64 and r.common.dtype == np.int64
    assert np.array_equal(np.stack([r.us, r.vs], 1).reshape(-1, 2), pairs)
    assert verify_link_prediction(G, pairs, r.score, method) == []


@pytest.mark.parametrize("method", ["jaccard", "adamic_adar"])
def test_networkx_s_own_functions(method):
    g = nx.gnm_random_graph(150, 900, seed=3)
    G = gravel.Graph.from_networkx(g)
    pairs = list(nx.non_edges(g))[:2000]
    f = {"jaccard": nx.jaccard_coefficient, "adamic_adar": nx.adamic_adar_index}[method]
    expect = [s for _, _, s in f(g, pairs)]
    got = gravel.link_prediction(G, pairs, method=method, device="cpu").score
    np.testing.assert_allclose(got, expect, rtol=1e-12)


def test_default_pairs_are_the_edges():
    G = gravel.Graph.from_networkx(nx.karate_club_graph())
    r = gravel.link_prediction(G, device="cpu")
    assert len(r.us) == G.m and np.all(r.us < r.vs) and np.all(G.has_arcs(r.us, r.vs))
    assert verify_link_prediction(G, np.stack([r.us, r.vs], 1), r.score) == []


def test_reordered_graphs_take_caller_ids():
    G = gravel.Graph.from_networkx(nx.gnm_random_graph(50, 300, seed=2))
    R = gravel.reorder.reorder(G, "degree")
    pairs = np.random.default_rng(1).integers(0, 50, (200, 2))
    for method in METHODS:
        a = gravel.link_prediction(R, pairs, method=method, device="cpu").score
        b = gravel.link_prediction(G, pairs, method=method, device="cpu").score
        np.testing.assert_allclose(a, b, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(case=graphs_and_pairs())
def test_weighted_search_matches_the_merge(case):
    G, pairs = case
    S = G.simple_undirected()
    w = np.random.default_rng(0).random(S.n)
    counts, sums = neighbor_sums(S, pairs[:, 0], pairs[:, 1], w, device="cpu")
    keys = arc_keys(S.offsets, S.indices)
    got = weighted_sums(S.offsets, S.indices, keys, pairs[:, 0], pairs[:, 1], w)
    np.testing.assert_allclose(got, sums, rtol=1e-12)
    ones = weighted_sums(S.offsets, S.indices, keys, pairs[:, 0], pairs[:, 1], np.ones(S.n))
    assert np.array_equal(ones, counts)


@pytest.mark.parametrize(
    "pairs,error,match",
    [
        ([(0, 5)], gravel.VertexNotFoundError, "vertex 5"),
        ([(-1, 0)], gravel.VertexNotFoundError, "vertex -1"),
        ([0, 1], gravel.InvalidArgumentError, "pairs"),
        ([(0.5, 1)], gravel.InvalidArgumentError, "pairs"),
    ],
)
def test_bad_pairs(pairs, error, match):
    G = gravel.generate.grid(2, 2)
    with pytest.raises(error, match=match):
        gravel.link_prediction(G, pairs, device="cpu")


def test_unknown_method():
    with pytest.raises(gravel.UnknownNameError, match="cosine"):
        gravel.link_prediction(gravel.generate.grid(2, 2), method="cosine")


def test_no_pairs():
    r = gravel.link_prediction(gravel.generate.grid(2, 2), [], device="cpu")
    assert r.score.size == 0 and r.summary()["pairs"] == 0


@pytest.mark.gpu
@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=25, deadline=None)
@given(case=graphs_and_pairs(max_n=80))
def test_gpu_matches_cpu(method, case):
    G, pairs = case
    gpu, cpu = both(gravel.link_prediction, G, pairs=pairs, method=method)
    assert np.array_equal(host(gpu.common), cpu.common)
    np.testing.assert_allclose(host(gpu.score), cpu.score, rtol=1e-12)
