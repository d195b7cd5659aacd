"""Maximal independent sets: independence and maximality checked on NetworkX graphs, the set equal
to the greedy one in the seed's priority order (hypothesis, generated and real graphs), on the CPU
path; bad input; the verifier; ``gravel run mis``."""

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.mis import verify_mis
from gravel.backends.cpu import serial
from gravel.cli import main, open_graph

from ..conftest import DATASETS
from ..strategies import graphs


def greedy(g, seed):
    """The greedy independent set in the order of a random permutation drawn from `seed`."""
    rank = np.random.default_rng(seed).permutation(g.number_of_nodes())
    chosen = set()
    for v in np.argsort(rank).tolist():
        if not any(u in chosen for u in g[v] if u != v):
            chosen.add(v)
    return chosen


def by_id(G):
    """G as a networkx.Graph on ids 0..n-1 (to_networkx names vertices by their labels)."""
    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    g.add_edges_from(zip(*(a.tolist() for a in G.edges())))
    return g


def check_mis(G, r, seed):
    g = by_id(G)
    assert r.in_set.dtype == bool and r.in_set.shape == (G.n,) and r.nodes.dtype == np.int32
    members = set(r.nodes.tolist())
    assert members == set(np.flatnonzero(r.in_set).tolist())
    assert not any(u in members and v in members and u != v for u, v in g.edges)
    assert all(v in members or any(u in members for u in g[v]) for v in g)
    assert members == greedy(g, seed)
    assert r.summary()["size"] == len(members)
    assert verify_mis(G, r.in_set) == []


@settings(max_examples=100, deadline=None)
@given(graphs(directed=False), st.integers(0, 2**32 - 1))
def test_random_graphs(G, seed):
    check_mis(G, gravel.maximal_independent_set(G, seed=seed, device="cpu"), seed)


@pytest.mark.parametrize(
    "G",
    [
        gravel.generate.kronecker(10, 8, seed=1),
        gravel.generate.grid(32, 33),
        gravel.transform.symmetrize(gravel.generate.uniform_random(9, 8, seed=4, directed=True)),
    ],
    ids=["kron", "grid", "urand-symmetrized"],
)
def test_generated_graphs(G):
    check_mis(G, gravel.maximal_independent_set(G, seed=7, device="cpu"), 7)


def test_real_graph():
    path = DATASETS / "CA-GrQc.txt.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared datasets sit beside the checkout in CI)")
    G = gravel.load(path, undirected=True, relabel=True)
    r = gravel.maximal_independent_set(G, seed=3, device="cpu")
    check_mis(G, r, 3)
    assert r.iterations < 50


def test_parallel_kernels(monkeypatch):
    monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    G = gravel.generate.kronecker(9, 8, seed=2)
    check_mis(G, gravel.maximal_independent_set(G, seed=5, device="cpu"), 5)


def test_seed_fixes_the_set_on_a_reordered_graph():
    G = gravel.generate.kronecker(8, 8, seed=3)
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    a, b = (gravel.maximal_independent_set(X, seed=11, device="cpu") for X in (G, R))
    assert np.array_equal(a.in_set, b.in_set)
    assert verify_mis(R, b.in_set) == []
    assert gravel.maximal_independent_set(G, device="cpu").in_set.shape == (G.n,)


def test_directed_graph_is_refused_and_empty_graph_has_an_empty_set():
    with pytest.raises(gravel.InvalidGraphError, match="maximal_independent_set"):
        gravel.maximal_independent_set(gravel.Graph.from_edges([0, 1], [1, 2]))
    r = gravel.maximal_independent_set(gravel.Graph.from_edges([], [], n=0, directed=False))
    assert r.nodes.size == r.in_set.size == 0
    r = gravel.maximal_independent_set(gravel.Graph.from_edges([0], [0], n=2, directed=False))
    assert r.nodes.tolist() == [0, 1]  # a self loop does not keep a vertex out


def test_verifier_rejects_adjacent_members_and_a_set_that_can_grow():
    G = gravel.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], directed=False)
    assert verify_mis(G, [0, 1, 0, 1, 0]) == []
    assert "adjacent" in verify_mis(G, [1, 1, 0, 1, 0])[0]
    assert "could join" in verify_mis(G, [1, 0, 0, 0, 1])[0]
    assert "booleans" in verify_mis(G, [0, 2, 0, 1, 0])[0]


def test_cli_on_the_bundled_graph(capsys, tmp_path):
    out = tmp_path / "in_set.npy"
    assert main(["run", "mis", "--device", "cpu", "--json", "--seed", "4", "-o", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "maximal_independent_set"
    G = open_graph(None)[0]
    in_set = np.load(out)
    assert summary["size"] == np.count_nonzero(in_set) > 1 and verify_mis(G, in_set) == []


@settings(max_examples=40, deadline=None)
@given(graphs(directed=False), st.integers(0, 99), st.data())
def test_required_nodes_are_members(G, seed, data):
    """`nodes` take the first priorities: the set holds them, is the greedy one in the order with
    them moved first, and its priorities say that order."""
    found = gravel.maximal_independent_set(G, seed=seed, device="cpu").nodes.tolist()
    nodes = sorted(data.draw(st.sets(st.sampled_from(found))) if found else [])
    r = gravel.maximal_independent_set(G, nodes=nodes, seed=seed, device="cpu")
    assert set(nodes) <= set(r.nodes.tolist())
    assert verify_mis(G, r.in_set) == []
    rank = np.random.default_rng(seed).permutation(G.n) + np.where(
        np.isin(np.arange(G.n), nodes), 0, G.n
    )
    assert np.array_equal(np.argsort(r.priority), np.argsort(rank, kind="stable"))


def test_required_nodes_must_be_independent_vertices():
    G = gravel.Graph.from_edges([0, 1], [1, 2], directed=False)
    with pytest.raises(gravel.InvalidArgumentError, match="nodes 0 and 1 are adjacent"):
        gravel.maximal_independent_set(G, nodes=[0, 1], device="cpu")
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.maximal_independent_set(G, nodes=[5], device="cpu")
    assert gravel.maximal_independent_set(G, nodes=[1], device="cpu").nodes.tolist() == [1]
