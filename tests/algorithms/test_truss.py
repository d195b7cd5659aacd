"""Truss decomposition on the CPU and the GPU against NetworkX's k_truss, and the GPU's level
peeling, run on the host with NumPy, against the CPU's peeling."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.algorithms.truss import edge_index, peel_levels, verify_truss
from gravel.arrays import host
from gravel.backends.cpu import truss as _k

from ..strategies import graphs
from .helpers import both, nx_simple_undirected


def nx_truss(G):
    """{(u, v): truss number} with u < v, from NetworkX's k_truss for every k."""
    g = nx_simple_undirected(G)
    out, k = {tuple(sorted(e)): 2 for e in g.edges}, 3
    while g.number_of_edges():
        g = nx.k_truss(g, k)
        out.update({tuple(sorted(e)): k for e in g.edges})
        k += 1
    return out


def edge_truss(result):
    src, dst, t = (host(a).tolist() for a in (result.src, result.dst, result.edge_truss))
    return {(min(u, v), max(u, v)): k for u, v, k in zip(src, dst, t)}


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_truss_as_networkx(G):
    r = gravel.truss_number(G, device="cpu")
    assert r.edge_truss.dtype == np.int32 and r.truss.shape == (G.n,)
    assert edge_truss(r) == nx_truss(G)
    assert verify_truss(G, r.truss) == []


@settings(max_examples=60, deadline=None)
@given(graphs(max_n=30, max_m=200))
def test_level_peeling_matches_the_cpu_peeling(G):
    S = G.simple_undirected()
    src, dst, edge_of, keys = edge_index(S.offsets, S.indices)
    sup = _k.support(S.offsets, S.indices, src, dst)
    expect = _k.peel(S.offsets, S.indices, edge_of, src, dst, sup.copy())
    got, _ = peel_levels(S.offsets, S.indices, keys, edge_of, src, dst, sup.copy())
    assert np.array_equal(got, expect)


@pytest.mark.parametrize("seed", range(3))
def test_dense_graphs(seed):
    G = gravel.Graph.from_networkx(nx.gnm_random_graph(120, 2500, seed=seed))
    assert edge_truss(gravel.truss_number(G, device="cpu")) == nx_truss(G)


def test_a_clique_is_its_own_truss():
    G = gravel.Graph.from_networkx(nx.complete_graph(7))
    r = gravel.truss_number(G, device="cpu")
    assert set(r.edge_truss.tolist()) == {7} and r.summary()["max_truss"] == 7


def test_reordered_graphs_answer_in_caller_ids():
    G = gravel.Graph.from_networkx(nx.gnm_random_graph(40, 200, seed=1))
    R = gravel.reorder.reorder(G, "degree")
    assert edge_truss(gravel.truss_number(R, device="cpu")) == nx_truss(G)
    assert np.array_equal(gravel.truss_number(R, device="cpu").truss, gravel.truss_number(G).truss)


def test_verifier_finds_a_wrong_number():
    G = gravel.Graph.from_networkx(nx.complete_graph(4))
    truss = gravel.truss_number(G, device="cpu").truss.copy()
    truss[2] = 3
    assert verify_truss(G, truss) == ["vertex 2: truss 3, expected 4"]


def test_empty_graph():
    r = gravel.truss_number(gravel.Graph.from_edges([], [], n=0), device="cpu")
    assert r.truss.size == 0 and r.edge_truss.size == 0 and r.summary()["max_truss"] == 0


@pytest.mark.gpu
@settings(max_examples=30, deadline=None)
@given(graphs(max_n=60, max_m=400))
def test_gpu_matches_cpu(G):
    gpu, cpu = both(gravel.truss_number, G)
    assert edge_truss(gpu) == edge_truss(cpu)
    assert np.array_equal(host(gpu.truss), cpu.truss)
