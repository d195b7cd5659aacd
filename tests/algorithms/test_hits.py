"""HITS against NetworkX: its power iteration (``_hits_python``) on hypothesis graphs, its SVD
(``nx.hits``) on generated ones; bad input; ``gravel run hits`` on the bundled graph."""

import json
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from networkx.algorithms.link_analysis.hits_alg import _hits_python

import gravel
from gravel import generate
from gravel.algorithms.hits import verify_hits
from gravel.algorithms.pagerank import PowerIterationFailedConvergence
from gravel.backends import cuda
from gravel.backends.cpu import serial
from gravel.cli import main
from gravel.transform import deduplicate

from ..strategies import graphs
from .helpers import both


def in_order(d, n):
    return np.array([d[v] for v in range(n)])


@settings(max_examples=100, deadline=None)
@given(graphs(weighted=True))
def test_random_graphs_match_networkx_power_iteration(G):
    G = deduplicate(G)  # NetworkX's simple graph keeps one of parallel arcs
    g = G.to_networkx()
    if G.nnz == 0:
        r = gravel.hits(G, device="cpu")
        assert np.allclose(r.hubs, 1 / max(G.n, 1)) and np.array_equal(r.hubs, r.authorities)
        return
    try:
        h, a = _hits_python(g)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(PowerIterationFailedConvergence):
            gravel.hits(G, device="cpu")
        return
    r = gravel.hits(G, device="cpu")
    assert r.hubs.dtype == np.float64 and r.authorities.shape == (G.n,)
    assert np.allclose(r.hubs, in_order(h, G.n), atol=1e-12)
    assert np.allclose(r.authorities, in_order(a, G.n), atol=1e-12)
    assert verify_hits(G, r.hubs, r.authorities, rtol=1e-3) == []


@pytest.mark.parametrize(
    "G",
    [
        gravel.generate.kronecker(10, 8, seed=1),
        gravel.generate.uniform_random(10, 8, seed=2, directed=True),
        gravel.transform.add_random_weights(gravel.generate.kronecker(9, 8, seed=3), 1, 9, seed=4),
    ],
    ids=["kron", "urand-directed", "kron-weighted"],
)
@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_generated_graphs_match_networkx_svd(G, parallel, monkeypatch):
    """Both kernel sets: the serial twins (these graphs' size) and the parallel ones."""
    if parallel:
        monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    h, a = nx.hits(G.to_networkx(), tol=1e-12)
    r = gravel.hits(G, tol=1e-12, max_iter=1000, device="cpu")
    assert np.allclose(r.hubs, in_order(h, G.n), atol=1e-9)
    assert np.allclose(r.authorities, in_order(a, G.n), atol=1e-9)
    assert verify_hits(G, r.hubs, r.authorities) == []


def test_nstart_and_unnormalized_scores():
    G = gravel.generate.uniform_random(8, 8, seed=5, directed=True)
    g = G.to_networkx()
    start = np.arange(1, G.n + 1, dtype=float)
    h, a = _hits_python(g, nstart=dict(enumerate(start)), normalized=False)
    r = gravel.hits(G, nstart=start, normalized=False, device="cpu")
    assert np.allclose(r.hubs, in_order(h, G.n)) and np.allclose(r.authorities, in_order(a, G.n))
    assert r.hubs.max() == 1 and r.authorities.max() == 1


def test_reordered_graph_gives_the_callers_order():
    G = gravel.generate.kronecker(8, 8, seed=6)
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    a, b = gravel.hits(G, device="cpu"), gravel.hits(R, device="cpu")
    assert np.allclose(a.hubs, b.hubs) and np.allclose(a.authorities, b.authorities)


@pytest.mark.parametrize(
    "kwargs",
    [{"max_iter": 0}, {"max_iter": 2.5}, {"tol": -1.0}, {"tol": float("nan")}],
    ids=["max_iter-0", "max_iter-float", "tol-negative", "tol-nan"],
)
def test_bad_numbers(kwargs):
    with pytest.raises(gravel.InvalidArgumentError):
        gravel.hits(gravel.generate.grid(3, 3), **kwargs)


@pytest.mark.parametrize("nstart", [np.ones(3), np.zeros(9), -np.ones(9)], ids=str)
def test_bad_nstart(nstart):
    with pytest.raises(gravel.InvalidArgumentError, match="nstart"):
        gravel.hits(gravel.generate.grid(3, 3), nstart=nstart)


#: weights and starts whose scores all vanish at the first iteration
VANISHING = pytest.mark.parametrize(
    ("weights", "nstart"),
    [([0.0, 0.0, 0.0], None), ([1.0, 1.0, 1.0], {2: 1.0})],
    ids=["zero-weights", "nstart-on-a-sink"],
)


@pytest.mark.parametrize(
    "device", ["serial", "parallel", pytest.param("cuda", marks=pytest.mark.gpu)]
)
@VANISHING
def test_scores_that_vanish_are_an_error(weights, nstart, device, monkeypatch):
    """An error at once on every path (the GPU's ran its 2,000 iterations on NaNs, then said it
    did not converge)."""
    if device == "parallel":
        monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    G = gravel.Graph.from_edges([0, 0, 1], [1, 2, 2], weights, directed=True)
    with pytest.raises(gravel.InvalidArgumentError, match="0 or NaN after iteration 1 "):
        gravel.hits(G, nstart=nstart, tol=0.0, device="cuda" if device == "cuda" else "cpu")


@pytest.mark.parametrize(
    ("weight", "says"),
    [
        (-1.0, "hits needs non-negative weights: arc 0 -> 2 has weight -1.0"),
        (np.nan, "hits needs weights that are numbers: arc 0 -> 2 has weight nan"),
        (np.inf, "arc 0 -> 2 has weight inf"),
    ],
)
def test_bad_weights_name_their_arc(weight, says):
    G = gravel.Graph.from_edges([0, 0, 1], [1, 2, 2], [1.0, weight, 1.0], directed=True)
    with pytest.raises(gravel.InvalidWeightError, match=re.escape(says)):
        gravel.hits(G, device="cpu")


def test_not_converging_raises_and_tol_0_runs_max_iter():
    G = gravel.generate.kronecker(9, 8, seed=7)
    with pytest.raises(PowerIterationFailedConvergence, match="2 iterations"):
        gravel.hits(G, max_iter=2, device="cpu")
    assert gravel.hits(G, max_iter=2, tol=0, device="cpu").iterations == 2


def test_empty_graph_and_cuda_without_a_gpu():
    assert gravel.hits(gravel.Graph.from_edges([], [], n=0)).hubs.size == 0
    if not cuda.available():
        with pytest.raises(gravel.DeviceUnavailableError, match="device='cuda'"):
            gravel.hits(gravel.generate.grid(2, 2), device="cuda")


def test_cli_on_the_bundled_graph(capsys):
    assert main(["run", "hits", "--device", "cpu", "--json", "--max-iter", "200"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "hits" and summary["error"] < 1e-8


def test_numpy_scalars_are_numbers():
    G = gravel.generate.grid(3, 3)
    ref = gravel.hits(G, tol=1e-6, device="cpu")
    r = gravel.hits(G, tol=np.float32(1e-6), max_iter=np.int64(100), device="cpu")
    np.testing.assert_array_equal(r.hubs, ref.hubs)


@pytest.mark.gpu
def test_hits_converges_on_the_gpu():
    G = generate.kronecker(10, 8, seed=6)
    gpu, cpu = both(gravel.hits, G)
    assert abs(gpu.iterations - cpu.iterations) <= 1 and gpu.stats["error"] < 1e-8
    assert np.allclose(gpu.hubs.get(), cpu.hubs, rtol=1e-6, atol=1e-12)
