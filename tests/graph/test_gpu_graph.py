"""A Graph's device copy and its views on the GPU, against the host's arrays, NumPy and SciPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import generate, transform
from gravel.arrays import host

from ..conftest import fresh
from ..strategies import graphs

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")


def assert_same(got, expect):
    if expect is None:
        assert got is None
    else:
        assert isinstance(got, cupy.ndarray) and got.dtype == expect.dtype
        assert np.array_equal(got.get(), expect)


@given(graphs(weighted=True, directed=True, max_n=300, max_m=2000))
@settings(max_examples=40, deadline=None)
def test_device_csc_equals_the_host_csc(G):
    G = fresh(G)
    dg = G.to("cuda")
    assert G.device_graph is dg
    for got, expect in zip(dg.csc(), G.csc()):
        assert_same(got, expect)


@given(graphs(max_n=60, max_m=400))
@settings(max_examples=30, deadline=None)
def test_has_parallel_arcs_on_the_gpu_equals_the_host(G):
    D = fresh(G)
    D.to("cuda")
    assert D.has_parallel_arcs == fresh(G).has_parallel_arcs


def test_device_csc_of_a_larger_graph():
    G = transform.add_random_weights(generate.uniform_random(14, 8, seed=5, directed=True), seed=1)
    for got, expect in zip(G.to("cuda").csc(), G.csc()):
        assert_same(got, expect)


@given(graphs(weighted=True, max_n=200, max_m=1500))
@settings(max_examples=40, deadline=None)
def test_reverse_against_scipy(G):
    G = fresh(G)
    dg = G.to("cuda")
    r = dg.reverse()
    if not G.directed:
        assert r is dg
        return
    assert r.reverse() is dg and dg.reverse() is r
    assert r.csc()[0] is dg.offsets and r.csc()[1] is dg.indices
    expect = G.to_scipy().T.tocsr()
    expect.sort_indices()
    got = gravel.Graph(r.offsets.get(), r.indices.get(), r.weights.get()).to_scipy()
    assert (abs(got - expect) > 0).nnz == 0
    assert np.array_equal(r.out_degree.get(), G.in_degree)


@given(graphs(weighted=True, directed=True, max_n=200, max_m=1500), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_with_weights_against_numpy(G, seed):
    G = fresh(G)
    dg = G.to("cuda")
    w = np.random.default_rng(seed).random(G.nnz).astype(np.float32)
    v = dg.with_weights(cupy.asarray(w))
    assert v.offsets is dg.offsets and v.indices is dg.indices
    assert v.csc()[0] is dg.csc()[0] and v.csc()[1] is dg.csc()[1]
    expect = gravel.Graph.from_csr(G.offsets, G.indices, w, directed=True, sorted_rows=True).csc()
    for got, e in zip(v.csc(), expect):
        assert_same(got, e)
    assert dg.csc_order() is dg.csc_order()


@pytest.mark.parametrize("directed", [True, False])
def test_issue_16_graph_reordered_on_the_gpu_builds_its_csc_there(directed):
    """A graph relabelled on the GPU transposes there: its host arrays are never made or read."""
    G = generate.uniform_random(12, 8, seed=2, directed=directed)
    G = transform.add_random_weights(G, seed=3)
    perm = np.random.default_rng(4).permutation(G.n).astype(np.int32)
    expect = transform.relabel(G, perm, transparent=True)
    on_gpu = fresh(G)
    on_gpu.to("cuda")
    H = transform.relabel(on_gpu, perm, transparent=True)

    def host_asked(*args):
        raise AssertionError("the device graph asked for host arrays")

    H._host_csr = H.csc = host_asked
    for got, e in zip(H.device_graph.csc(), expect.csc()):
        assert_same(got, e)
    labels = host(gravel.connected_components(H, device="cuda").labels)
    assert np.array_equal(labels, gravel.connected_components(G, device="cpu").labels)
    # a reordering on the GPU, and the first pull over its in-edges (PageRank's sweep)
    R = gravel.reorder.reorder(on_gpu, "degree")
    R._host_csr = R.csc = host_asked
    rank = host(gravel.pagerank(R, device="cuda", blocking=None).rank)
    assert np.allclose(rank, gravel.pagerank(G, device="cpu").rank, rtol=1e-4, atol=1e-7)


def test_orient_by_degree_on_the_gpu_equals_the_host():
    S = generate.kronecker(10, 8, seed=1).simple_undirected()
    host = transform.orient_by_degree(S)
    D = fresh(S)
    D.to("cuda")
    on_gpu = transform.orient_by_degree(D)
    assert on_gpu.device_graph is not None and on_gpu == host


@given(graphs(directed=False, max_n=120, max_m=2500), st.integers(0, 200))
@settings(max_examples=40, deadline=None)
def test_orient_kernels_equal_the_host_orientation(G, hub):
    """The warp-per-row count and write passes (backends/cuda/orient.py) against the host's
    orientation, on random graphs and on a hub whose list spans several 32-arc rounds."""
    star = gravel.Graph.from_edges(np.zeros(hub, int), np.arange(1, hub + 1), directed=False)
    for S in (G.simple_undirected(), star.simple_undirected()):
        expect = transform.orient_by_degree(S)
        D = fresh(S)
        D.to("cuda")
        got = transform.orient_by_degree(D)
        assert got.device_graph is not None and got == expect


@pytest.mark.parametrize("w", [np.inf, -1.0, np.nan])
def test_check_weights_on_the_device(w):
    G = gravel.Graph.from_edges([0, 1, 1], [1, 2, 0], [1.0, w, 2.0])
    G.to("cuda")
    with pytest.raises(gravel.InvalidWeightError, match=r"arc 1 -> 2"):
        gravel.sssp(G, 0, device="cuda")


def test_unweighted_sssp_on_the_gpu_uses_a_unit_weight_view():
    G = generate.grid(20, 30)
    d = gravel.sssp(G, 0, device="cuda").distance.get()
    assert np.array_equal(d, gravel.bfs(G, 0, device="cpu").depth.astype(np.float32))
    assert G.to("cuda").weights is None
