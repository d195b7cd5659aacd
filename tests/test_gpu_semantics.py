"""The semantics of tests/test_semantics.py on the GPU: betweenness on multigraphs, k-cores of
directed graphs, SSSP predecessors and weights."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.arrays import host

from .test_semantics import multigraphs, nx_cores, nx_simple

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
