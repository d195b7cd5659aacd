"""Strongly connected components against NetworkX (hypothesis graphs, generated graphs) and SciPy
(the verifier), on the CPU path; ``gravel run scc`` on the bundled graph."""

import json
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.algorithms.scc import verify_scc
from gravel.backends import cuda
from gravel.backends.cpu import serial
from gravel.cli import main

from ..strategies import graphs


def nx_labels(G):
    """Each vertex's smallest fellow in NetworkX's strongly connected components of G."""
    g = G.to_networkx()
    labels = np.empty(G.n, np.int32)
    for members in nx.strongly_connected_components(g if G.directed else g.to_directed()):
        labels[list(members)] = min(members)
    return labels


@settings(max_examples=100, deadline=None)
@given(graphs())
def test_random_graphs_match_networkx(G):
    r = gravel.strongly_connected_components(G, device="cpu")
    assert r.labels.dtype == np.int32 and r.labels.shape == (G.n,)
    assert np.array_equal(r.labels, nx_labels(G))
    assert verify_scc(G, r.labels) == []


@pytest.mark.parametrize(
    "G",
    [
        gravel.generate.uniform_random(10, 2, seed=3, directed=True),
        gravel.generate.uniform_random(9, 8, seed=4, directed=True),
        gravel.generate.kronecker(9, 8, seed=5),
        gravel.generate.grid(32, 33),
    ],
    ids=["urand-sparse", "urand", "kron", "grid"],
)
def test_generated_graphs_match_networkx(G):
    r = gravel.strongly_connected_components(G, device="cpu")
    assert np.array_equal(r.labels, nx_labels(G))
    assert r.summary()["components"] == np.unique(r.labels).size


@settings(max_examples=60, deadline=None)
@given(graphs(max_n=60, max_m=200))
def test_parallel_steps_match_networkx(G):
    """Trimming and the forward-backward search (graphs over SMALL_ARCS arcs) before Tarjan."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        r = gravel.strongly_connected_components(G, device="cpu")
    assert r.strategy == "trim, forward-backward, tarjan"
    assert np.array_equal(r.labels, nx_labels(G))


@pytest.mark.parametrize("spec", ["kron:14", "urand:14", "grid:60x60"])
def test_parallel_steps_on_generated_digraphs_match_scipy(spec, monkeypatch):
    from scipy.sparse.csgraph import connected_components

    G = gravel.generate.from_spec(spec)
    if not G.directed:  # a directed twin: each edge kept one way, at random
        src = np.repeat(np.arange(G.n), np.diff(G.offsets))
        keep = np.random.default_rng(7).random(G.nnz) < 0.5
        G = gravel.Graph.from_edges(src[keep], G.indices[keep], n=G.n)
    monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    r = gravel.strongly_connected_components(G, device="cpu")
    _, comp = connected_components(G.to_scipy(), directed=True, connection="strong")
    first = np.full(comp.max() + 1, G.n)
    np.minimum.at(first, comp, np.arange(G.n))
    assert np.array_equal(r.labels, first[comp])


def test_a_path_deeper_than_python_recursion():
    n = 4 * sys.getrecursionlimit()
    src = np.arange(n)
    G = gravel.Graph.from_edges(src, (src + 1) % n)  # one cycle through every vertex
    assert gravel.strongly_connected_components(G, device="cpu").labels.tolist() == [0] * n
    D = gravel.Graph.from_edges(src[:-1], src[1:], n=n)  # a path: every vertex alone
    assert np.array_equal(gravel.strongly_connected_components(D, device="cpu").labels, src)


def test_reordered_graph_labels_by_the_callers_smallest_id():
    G = gravel.Graph.from_edges([5, 4, 3, 0, 1], [4, 3, 5, 1, 0], n=6)
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    for H in (G, R):
        labels = gravel.strongly_connected_components(H, device="cpu").labels
        assert labels.tolist() == [0, 0, 2, 3, 3, 3]


def test_empty_graph_and_cuda_without_a_gpu():
    G = gravel.Graph.from_edges([], [], n=0)
    assert gravel.strongly_connected_components(G).labels.size == 0
    if not cuda.available():
        with pytest.raises(gravel.DeviceUnavailableError, match="device='cuda'"):
            gravel.strongly_connected_components(gravel.generate.grid(2, 2), device="cuda")


def test_cli_on_the_bundled_graph(capsys):
    assert main(["run", "scc", "--device", "cpu", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "strongly_connected_components"
    assert summary["components"] == 1  # ego-Facebook is connected, and undirected
