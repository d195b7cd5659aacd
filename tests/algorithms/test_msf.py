"""Minimum spanning forests against NetworkX's minimum spanning tree weight (hypothesis graphs,
generated and real graphs), on the CPU path; bad input; the verifier; ``gravel run msf``."""

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.algorithms.msf import verify_msf
from gravel.backends import cuda
from gravel.backends.cpu import serial
from gravel.cli import main

from ..conftest import DATASETS
from ..strategies import graphs


def lightest_nx(G):
    """G as a networkx.Graph whose parallel edges keep the lightest weight."""
    src, dst = G.edges()
    w = G.weights if G.weighted else np.ones(G.nnz)
    order = np.argsort(-w, kind="stable")  # the lightest is added last and wins
    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    g.add_weighted_edges_from(zip(src[order].tolist(), dst[order].tolist(), w[order].tolist()))
    g.remove_edges_from(nx.selfloop_edges(g))
    return g


def check_forest(G, r, g):
    """r's edges are a forest of g, one tree per component, as heavy as NetworkX's."""
    components = nx.number_connected_components(g)
    assert r.src.dtype == r.dst.dtype == np.int32 and r.parent.shape == (G.n,)
    assert r.src.size == G.n - components
    assert np.all(r.src < r.dst)
    assert np.all(np.diff(r.weight) >= 0)
    for u, v, w in zip(r.src.tolist(), r.dst.tolist(), r.weight.tolist()):
        assert g[u][v]["weight"] == pytest.approx(w)
    f = nx.Graph(zip(r.src.tolist(), r.dst.tolist()))
    assert nx.is_forest(f) if f.number_of_nodes() else True
    theirs = nx.minimum_spanning_tree(g).size(weight="weight")
    assert r.total_weight == pytest.approx(theirs, rel=1e-6, abs=1e-6)
    child = np.flatnonzero(r.parent >= 0)
    pairs = np.sort(np.stack([child, r.parent[child]]), axis=0)
    assert set(zip(*pairs.tolist())) == set(zip(r.src.tolist(), r.dst.tolist()))
    assert verify_msf(G, r.parent, total_weight=r.total_weight) == []


@settings(max_examples=100, deadline=None)
@given(graphs(directed=False, weighted=True))
def test_random_graphs_match_networkx_weight(G):
    r = gravel.minimum_spanning_forest(G, device="cpu")
    check_forest(G, r, lightest_nx(G))


@settings(max_examples=30, deadline=None)
@given(graphs(directed=False, weighted=True))
def test_negative_weights_match_networkx_weight(G):
    if G.weighted:
        G = gravel.Graph(G.offsets, G.indices, 10.5 - G.weights, directed=False)
    r = gravel.minimum_spanning_forest(G, device="cpu")
    check_forest(G, r, lightest_nx(G))


@pytest.mark.parametrize(
    "G",
    [
        gravel.transform.add_random_weights(gravel.generate.kronecker(10, 8, seed=1), 1, 9, seed=2),
        gravel.transform.add_random_weights(gravel.generate.grid(32, 33), 1, 1000, seed=3),
        gravel.generate.uniform_random(10, 4, seed=3),
    ],
    ids=["kron-weighted", "grid-weighted", "urand-unweighted"],
)
def test_generated_graphs(G):
    check_forest(G, gravel.minimum_spanning_forest(G, device="cpu"), lightest_nx(G))


def dataset(name):
    path = DATASETS / name
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared datasets sit beside the checkout in CI)")
    return path


def test_real_graph_with_many_components():
    G = gravel.load(dataset("CA-GrQc.txt.gz"), undirected=True, relabel=True)
    r = gravel.minimum_spanning_forest(G, device="cpu")
    assert r.src.size == r.total_weight == 5242 - 355  # README: 5,242 vertices, 355 components
    assert verify_msf(G, r.parent, total_weight=r.total_weight) == []


def test_real_weighted_road_graph():
    G = gravel.transform.symmetrize(gravel.load(dataset("rome99.gr.gz")))
    check_forest(G, gravel.minimum_spanning_forest(G, device="cpu"), lightest_nx(G))


def test_parallel_kernels(monkeypatch):
    monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(9, 8, seed=6), 1, 5, seed=7)
    check_forest(G, gravel.minimum_spanning_forest(G, device="cpu"), lightest_nx(G))


def test_unweighted_call_and_reordered_graph():
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(8, 8, seed=4), 1, 50, seed=5)
    r = gravel.minimum_spanning_forest(G, weight=None, device="cpu")
    assert r.total_weight == r.src.size and verify_msf(G, r.parent, weight=None) == []
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    a, b = (gravel.minimum_spanning_forest(X, device="cpu") for X in (G, R))
    assert a.total_weight == pytest.approx(b.total_weight) and a.src.size == b.src.size
    assert verify_msf(G, b.parent, total_weight=b.total_weight) == []


def test_bad_input():
    with pytest.raises(gravel.InvalidGraphError, match="directed"):
        gravel.minimum_spanning_forest(gravel.Graph.from_edges([0, 1], [1, 2]))
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, float("nan")], directed=False)
    with pytest.raises(gravel.InvalidWeightError, match="nan"):
        gravel.minimum_spanning_forest(G)
    assert gravel.minimum_spanning_forest(G, weight=None).total_weight == 2
    with pytest.raises(gravel.InvalidArgumentError, match="weight"):
        gravel.minimum_spanning_forest(G, weight=1)
    if not cuda.available():
        with pytest.raises(gravel.DeviceUnavailableError, match="device='cuda'"):
            gravel.minimum_spanning_forest(G, weight=None, device="cuda")


def test_empty_graphs():
    r = gravel.minimum_spanning_forest(gravel.Graph.from_edges([], [], n=0, directed=False))
    assert r.src.size == r.parent.size == 0 and r.total_weight == 0
    r = gravel.minimum_spanning_forest(gravel.Graph.from_edges([], [], n=3, directed=False))
    assert r.src.size == 0 and r.parent.tolist() == [-1, -1, -1]


def test_verifier_rejects_bad_forests():
    G = gravel.Graph.from_edges([0, 1, 0, 3], [1, 2, 2, 4], [1.0, 2.0, 5.0, 1.0], directed=False)
    assert verify_msf(G, [-1, 0, 1, -1, 3], total_weight=4.0) == []
    assert "no edge" in verify_msf(G, [-1, 0, 1, -1, 0])[0]
    assert "cycle" in verify_msf(G, [1, 2, 0, -1, 3])[0]
    assert "components" in verify_msf(G, [-1, 0, -1, -1, 3])[0]
    assert "weighs" in verify_msf(G, [-1, 0, 0, -1, 3])[0]
    assert "total_weight" in verify_msf(G, [-1, 0, 1, -1, 3], total_weight=5.0)[0]


def test_cli_on_the_bundled_graph(capsys, tmp_path):
    out = tmp_path / "parent.npy"
    assert main(["run", "msf", "--device", "cpu", "--json", "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "minimum_spanning_forest"
    assert summary["edges"] == summary["total_weight"] == 4039 - 1  # connected, unweighted
    assert np.count_nonzero(np.load(out) < 0) == summary["trees"] == 1
