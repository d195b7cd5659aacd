"""The semantics of tests/test_semantics.py on the GPU: betweenness on multigraphs, k-cores of
directed graphs, SSSP predecessors and weights."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.sssp import verify_sssp
from gravel.arrays import host
from gravel.errors import InvalidWeightError

from .algorithms.test_betweenness import (
    multigraphs,
    nx_cores,
    nx_simple,
    scipy_dijkstra,
    weighted_multigraphs,
)

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")


@settings(max_examples=25, deadline=None)
@given(multigraphs())
def test_issue_17_betweenness_counts_parallel_arcs_once(case):
    G, arcs = case
    g = nx_simple(G, arcs)
    expect = np.array([nx.betweenness_centrality(g)[v] for v in range(G.n)])
    bc = gravel.betweenness_centrality(G, device="cuda")
    assert bc.device == "cuda" and bc.centrality.dtype == np.float64
    assert np.allclose(host(bc.centrality), expect, rtol=1e-9, atol=1e-12)


def test_issue_17_betweenness_of_a_multigraph_on_the_device():
    # a graph whose only copy is on the GPU: its parallel arcs are found there
    G = gravel.Graph.from_edges([0, 0, 1, 0, 3, 3], [1, 1, 2, 3, 2, 2])
    G.to("cuda")
    D = gravel.transform.relabel(G, np.arange(4))
    assert D.device_graph is not None
    bc = gravel.betweenness_centrality(D, normalized=False, device="cuda").centrality
    assert host(bc).tolist() == [0.0, 0.5, 0.0, 0.5]


@settings(max_examples=25, deadline=None)
@given(multigraphs(directed=True))
def test_issue_17_directed_core_number_uses_in_plus_out_degree(case):
    G, arcs = case
    core = gravel.core_number(G, device="cuda").core
    assert core.dtype == np.int32
    assert np.array_equal(host(core), nx_cores(G, arcs))


def test_issue_17_reciprocal_arcs_each_count():
    G = gravel.Graph.from_edges([0, 1, 2, 1, 2, 0, 0, 0], [1, 2, 0, 0, 1, 2, 0, 1])
    assert host(gravel.core_number(G, device="cuda").core).tolist() == [4, 4, 4]


#: huge weights, but no path of a tiny graph longer than float32's range
GPU_WEIGHTS = [0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 1e30, 1e36]


@settings(max_examples=25, deadline=None)
@given(weighted_multigraphs(weights=GPU_WEIGHTS), st.data())
def test_issue_17_sssp_on_awkward_weights_equals_scipy(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    expect, scipy_pred = scipy_dijkstra(G, arcs, w, s)
    r = gravel.sssp(G, s, device="cuda")
    assert r.distance.dtype == np.float32 and r.predecessor.dtype == np.int32
    d, pred = host(r.distance).astype(np.float64), host(r.predecessor)
    assert np.allclose(d, expect, rtol=1e-5, atol=0)
    assert np.array_equal(pred < 0, scipy_pred < 0)
    assert verify_sssp(G, s, d, pred, rtol=1e-5) == []


def test_issue_17_sssp_tree_has_no_cycle_on_zero_weight_cycles():
    src, dst = [0, 1, 2, 2, 3, 3, 1], [1, 2, 1, 3, 2, 1, 3]
    G = gravel.Graph.from_edges(src, dst, [1, 0, 0, 0, 0, 0, 0])
    r = gravel.sssp(G, 0, device="cuda")
    d, pred = host(r.distance).astype(np.float64), host(r.predecessor)
    assert verify_sssp(G, 0, d, pred) == [] and r.path_to(3)[0] == 0


def test_issue_17_sssp_refuses_paths_beyond_float32_on_the_gpu():
    G = gravel.Graph.from_edges([0, 1], [1, 2], [3e38, 3e38])
    assert gravel.sssp(G, 0, device="cpu").distance[2] == np.float64(np.float32(3e38)) * 2
    with pytest.raises(InvalidWeightError, match="float32"):
        gravel.sssp(G, 0, device="cuda")
