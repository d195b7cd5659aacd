"""SALSA against its definition (the walk's fixed point and component shares, checked with SciPy by
verify_salsa), against a power iteration of the walk, and by hand; errors."""

import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.algorithms.salsa import salsa, verify_salsa
from gravel.backends.cpu import serial

from ..strategies import graphs


@settings(max_examples=80, deadline=None)
@given(G=graphs(max_n=40, max_m=150, weighted=True))
def test_random_graphs_meet_the_definition(G):
    for weight in (True, False):
        r = salsa(G, weight=weight, device="cpu")
        assert verify_salsa(G, r.hubs, r.authorities, weight=weight) == []
        if G.nnz:
            assert r.hubs.sum() == pytest.approx(1) and r.authorities.sum() == pytest.approx(1)


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=60, max_m=300, weighted=True))
def test_parallel_kernels_meet_the_definition(G):
    """The parallel union and compress (graphs over SMALL_ARCS arcs) on small random graphs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        r = salsa(G, device="cpu")
    assert verify_salsa(G, r.hubs, r.authorities) == []


def test_a_power_iteration_of_the_walk_reaches_the_same_scores():
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(9, 8, seed=4, directed=True))
    A = G.to_scipy().astype(np.float64).tocsr()
    out_deg, in_deg = np.asarray(A.sum(1)).ravel(), np.asarray(A.sum(0)).ravel()
    a = (in_deg > 0) / (in_deg > 0).sum()  # each walk starts uniformly over its own side
    h = (out_deg > 0) / (out_deg > 0).sum()
    for _ in range(3000):
        a = A.T @ np.divide(
            A @ np.divide(a, in_deg, out=np.zeros(G.n), where=in_deg > 0),
            out_deg,
            out=np.zeros(G.n),
            where=out_deg > 0,
        )
        h = A @ np.divide(
            A.T @ np.divide(h, out_deg, out=np.zeros(G.n), where=out_deg > 0),
            in_deg,
            out=np.zeros(G.n),
            where=in_deg > 0,
        )
    r = salsa(G, device="cpu")
    np.testing.assert_allclose(r.authorities, a, atol=1e-9)
    np.testing.assert_allclose(r.hubs, h, atol=1e-9)


def test_each_side_keeps_its_own_share_by_hand():
    """0 -> 1, 0 -> 2, 3 -> 4: two components, each with one of the two hubs (half the hub walk's
    start each) and with two and one of the three authorities."""
    r = salsa(gravel.Graph.from_edges([0, 0, 3], [1, 2, 4]), device="cpu")
    np.testing.assert_allclose(r.hubs, [0.5, 0, 0, 0.5, 0])
    np.testing.assert_allclose(r.authorities, [0, 1 / 3, 1 / 3, 0, 1 / 3])
    wrong = np.array([2 / 3, 0, 0, 1 / 3, 0])  # the hubs split by the authorities' shares
    G = gravel.Graph.from_edges([0, 0, 3], [1, 2, 4])
    assert verify_salsa(G, wrong, r.authorities) == [
        "a component holds another share of the hubs than it started with"
    ]


def test_reordered_graph_in_callers_ids():
    G = gravel.generate.kronecker(8, 8, seed=2, directed=True)
    R = gravel.reorder.reorder(G, "degree")
    r, s = salsa(G, device="cpu"), salsa(R, device="cpu")
    np.testing.assert_allclose(s.authorities, r.authorities)
    assert verify_salsa(R, s.hubs, s.authorities) == []


def test_bad_weights_and_no_arcs():
    bad = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -1.0])
    with pytest.raises(gravel.InvalidWeightError, match="salsa needs non-negative"):
        salsa(bad, device="cpu")
    assert salsa(bad, weight=False, device="cpu").authorities.tolist() == [0, 0.5, 0.5]
    empty = salsa(gravel.Graph.from_edges([], [], n=3), device="cpu")
    assert empty.hubs.tolist() == [0, 0, 0] and empty.authorities.tolist() == [0, 0, 0]


@pytest.mark.gpu
@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=40, max_m=150, weighted=True))
def test_gpu_closed_form_equals_the_cpu_one(G):
    for weight in (True, False):
        gpu, cpu = salsa(G, weight=weight, device="cuda"), salsa(G, weight=weight, device="cpu")
        assert gpu.device == "cuda"
        np.testing.assert_allclose(gravel.arrays.host(gpu.hubs), cpu.hubs, rtol=1e-12, atol=1e-15)
        a = gravel.arrays.host(gpu.authorities)
        np.testing.assert_allclose(a, cpu.authorities, rtol=1e-12, atol=1e-15)


@pytest.mark.gpu
@pytest.mark.parametrize("placement", ["device", "host"])
def test_gpu_on_a_larger_reordered_graph(placement):
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(12, 8, seed=6, directed=True))
    R = gravel.reorder.reorder(G, "degree")
    R.to("cuda", placement=placement)
    r = salsa(R, device="cuda")
    h, a = gravel.arrays.host(r.hubs), gravel.arrays.host(r.authorities)
    assert verify_salsa(R, h, a) == []
    np.testing.assert_allclose(a, salsa(G, device="cpu").authorities, rtol=1e-9, atol=1e-15)
