"""DeviceGraph views and the device transpose, run here over NumPy arrays standing in for CuPy's
(a DeviceGraph computes with the module of its arrays); tests/graph/test_gpu_graph.py runs them on
the GPU."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import transform
from gravel.backends.cuda.graph import DeviceGraph

from ..strategies import graphs


def stand_in(G):
    """G's arrays as a DeviceGraph over NumPy arrays, and the Graph that lives on it only."""
    dg = DeviceGraph.from_arrays(G.offsets, G.indices, G.weights, directed=G.directed)
    return dg, gravel.Graph.from_device(dg)


def same(a, b):
    return (a is None and b is None) or np.array_equal(a, b)


@given(graphs(weighted=True, directed=True))
@settings(max_examples=60, deadline=None)
def test_device_csc_is_the_host_csc(G):
    dg, D = stand_in(G)
    for got, expect in zip(dg.csc(), G.csc()):
        assert same(got, expect)
    assert dg.csc() is dg.csc()
    assert D._arrays is None  # the transpose never asked for host arrays


@given(graphs(weighted=True))
@settings(max_examples=60, deadline=None)
def test_reverse_is_the_transpose_sharing_arrays(G):
    dg, _ = stand_in(G)
    r = dg.reverse()
    if not G.directed:
        assert r is dg
        return
    assert r.offsets is dg.csc()[0] and r.indices is dg.csc()[1] and r.weights is dg.csc()[2]
    assert r.csc() == (dg.offsets, dg.indices, dg.weights)
    assert r.reverse() is dg and dg.reverse() is r
    assert (r.n, r.nnz, r.directed) == (G.n, G.nnz, True)
    assert np.array_equal(r.out_degree, G.in_degree)
    expect = G.to_scipy().T.tocsr()
    expect.sort_indices()
    got = gravel.Graph(r.offsets, r.indices, r.weights).to_scipy()
    assert (abs(got - expect) > 0).nnz == 0


@given(graphs(weighted=True), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_with_weights_shares_structure_and_permutes_weights(G, seed):
    dg, _ = stand_in(G)
    w = np.random.default_rng(seed).random(G.nnz).astype(np.float32)
    if not G.directed:  # an undirected graph's weights agree on both directions
        w = transform.add_random_weights(G, seed=seed).weights
    v = dg.with_weights(w)
    assert v.offsets is dg.offsets and v.indices is dg.indices and np.array_equal(v.weights, w)
    assert v.directed == dg.directed and v.host is None
    expect = gravel.Graph(G.offsets, G.indices, w, directed=G.directed).csc()
    for got, e in zip(v.csc(), expect):
        assert np.array_equal(got, e)
    if G.directed:
        assert v.csc()[0] is dg.csc()[0] and v.csc()[1] is dg.csc()[1]
        assert dg.csc_order() is dg.csc_order()  # computed once, kept with the graph


def test_with_weights_checks_the_length():
    dg, _ = stand_in(gravel.generate.grid(3, 3))
    with pytest.raises(gravel.InvalidGraphError, match="weights"):
        dg.with_weights(np.ones(3, np.float32))


def test_cached_builds_once_until_the_cache_is_cleared():
    dg, _ = stand_in(gravel.generate.grid(4, 4))
    calls = []
    assert dg.cached("k", lambda: calls.append(1) or "v") == "v"
    assert dg.cached("k", lambda: calls.append(1) or "w") == "v"
    assert calls == [1]
    dg.clear_cache()
    assert dg.cached("k", lambda: calls.append(2) or "w") == "w" and calls == [1, 2]


def test_device_graph_is_none_on_the_host_and_never_copies():
    G = gravel.generate.grid(3, 3)
    assert G.device_graph is None
    dg, D = stand_in(G)
    assert D.device_graph is dg and D._arrays is None
    with pytest.raises(AttributeError):
        D.device_graph = None


@given(graphs(weighted=True, directed=True), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_issue_16_relabelled_on_the_device_transposes_there(G, rnd):
    """A directed graph reordered where it lives builds its CSC there, never from host arrays."""
    perm = np.array(rnd.sample(range(G.n), G.n), dtype=np.int32)
    expect = transform.relabel(G, perm, transparent=True)
    _, D = stand_in(G)
    H = transform.relabel(D, perm, transparent=True)

    def host_asked(*args):
        raise AssertionError("the CSC was built from host arrays")

    H._host_csr = H.csc = host_asked
    for got, e in zip(H.device_graph.csc(), expect.csc()):
        assert same(got, e)


@given(graphs())
@settings(max_examples=60, deadline=None)
def test_orient_by_degree_where_the_graph_lives(G):
    S = G.simple_undirected()
    O = transform.orient_by_degree(S)
    assert O.directed and O.nnz == S.nnz // 2 and not O.weighted
    _, D = stand_in(S)
    on_device = transform.orient_by_degree(D)
    assert on_device.device_graph is not None and on_device == O
    src, dst = O.edges()
    rank = S.out_degree.astype(np.int64) * max(S.n, 1) + np.arange(S.n)
    assert np.all(rank[src] < rank[dst])


def test_orient_by_degree_takes_undirected_graphs():
    with pytest.raises(gravel.InvalidGraphError, match="undirected"):
        transform.orient_by_degree(gravel.Graph.from_edges([0], [1]))
