"""Label propagation communities against NetworkX's semi-synchronous label propagation and
modularity (hypothesis graphs, generated graphs), on the CPU path; the verifier; ``gravel run lpa``
on the bundled graph."""

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.lpa import verify_lpa
from gravel.backends.cpu import serial
from gravel.cli import main

from ..strategies import graphs


def partition(labels):
    """The communities of a label array, as a set of frozensets of vertex ids."""
    labels = np.asarray(labels)
    return {frozenset(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)}


def nx_modularity(g, communities):
    return nx.community.modularity(g, communities, weight=None) if g.number_of_edges() else 0.0


@settings(max_examples=100, deadline=None)
@given(graphs(directed=False))
def test_random_graphs_match_networkx(G):
    check_networkx_partition(G)


@settings(max_examples=30, deadline=None)
@given(graphs(directed=False))
def test_parallel_rounds_match_networkx(G):
    """The parallel kernel (graphs over SMALL_ARCS arcs): each class in parallel pieces."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        check_networkx_partition(G)


def check_networkx_partition(G):
    r = gravel.label_propagation_communities(G, device="cpu")
    assert r.labels.dtype == np.int32 and r.labels.shape == (G.n,)
    g = G.to_networkx()
    expect = {frozenset(c) for c in nx.community.label_propagation_communities(g)}
    assert partition(r.labels) == expect
    assert r.modularity == pytest.approx(nx_modularity(g, expect), abs=1e-12)
    assert verify_lpa(G, r.labels, modularity=r.modularity) == []


@pytest.mark.parametrize(
    "G",
    [
        gravel.generate.uniform_random(10, 4, seed=3),
        gravel.generate.kronecker(9, 8, seed=5),
        gravel.generate.grid(32, 33),
        gravel.transform.symmetrize(gravel.generate.uniform_random(9, 8, seed=4, directed=True)),
    ],
    ids=["urand", "kron", "grid", "urand-symmetrized"],
)
def test_generated_graphs_modularity_within_5_percent_of_networkx(G):
    r = gravel.label_propagation_communities(G, device="cpu")
    g = G.to_networkx()
    theirs = nx_modularity(g, nx.community.label_propagation_communities(g))
    assert r.modularity >= theirs - 0.05 * abs(theirs) - 1e-9
    assert r.modularity == pytest.approx(nx_modularity(g, partition(r.labels)), abs=1e-12)
    assert r.summary()["communities"] == np.unique(r.labels).size
    assert verify_lpa(G, r.labels, modularity=r.modularity) == []


def test_reordered_graph_gives_the_same_labels():
    G = gravel.generate.kronecker(7, 4, seed=2)
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    a = gravel.label_propagation_communities(G, device="cpu")
    b = gravel.label_propagation_communities(R, device="cpu")
    assert np.array_equal(a.labels, b.labels) and a.modularity == pytest.approx(b.modularity)


def test_verifier_rejects_an_unsettled_labelling_and_a_wrong_modularity():
    G = gravel.Graph.from_edges([0, 0, 1, 3, 3, 4], [1, 2, 2, 4, 5, 5], directed=False)
    assert "not among" in verify_lpa(G, np.array([0, 1, 2, 3, 4, 5], np.int32))[0]
    assert "modularity" in verify_lpa(G, np.array([2, 2, 2, 5, 5, 5]), modularity=0.4)[0]


def test_directed_graph_is_refused_and_empty_graph_has_no_communities():
    D = gravel.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(gravel.InvalidGraphError, match="label_propagation_communities"):
        gravel.label_propagation_communities(D, device="cpu")
    r = gravel.label_propagation_communities(gravel.Graph.from_edges([], [], n=0, directed=False))
    assert r.labels.size == 0 and r.modularity == 0.0


def test_cli_on_the_bundled_graph_writes_the_labels(capsys, tmp_path):
    out = tmp_path / "labels.npy"
    assert main(["run", "lpa", "--device", "cpu", "--json", "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "label_propagation_communities"
    assert summary["communities"] == np.unique(np.load(out)).size > 1
    assert summary["modularity"] > 0.5


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=50, max_m=250, directed=False, weighted=True), data=st.data())
def test_modularity_kernels_match_networkx(G, data):
    """The parallel sums of backends/cpu/modularity.py (SMALL_ARCS forced down), weighted and not,
    on a random partition, against networkx.community.modularity."""
    from gravel.algorithms.lpa import modularity

    # a simple graph (one edge per pair, each with its first weight), as networkx.Graph holds it
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    lo, hi = np.minimum(src, G.indices), np.maximum(src, G.indices)
    _, first = np.unique(lo * max(G.n, 1) + hi, return_index=True)
    G = gravel.Graph.from_edges(lo[first], hi[first], G.weights[first], n=G.n, directed=False)
    labels = np.array(data.draw(st.lists(st.integers(0, 4), min_size=G.n, max_size=G.n)), np.int64)
    g = G.to_networkx()
    parts = [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        for key, w in (("weight", G.weights), (None, None)):
            got = modularity(G.offsets, G.indices, labels, w, resolution=0.7)
            want = nx.community.modularity(g, parts, weight=key, resolution=0.7) if G.nnz else 0.0
            assert got == pytest.approx(want, abs=1e-9)
