"""gravel.bellman_ford against SciPy's and NetworkX's Bellman-Ford: distances, the tree, negative
cycles; the GPU path against the CPU's."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.bellman_ford import verify_bellman_ford
from gravel.arrays import host


@st.composite
def signed_graphs(draw, max_n=25, directed=None):
    """Small graphs with weights of both signs (most positive: some have no negative cycle),
    parallel arcs, self loops and isolated vertices, and a source."""
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans()) if directed is None else directed
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    w = draw(st.lists(st.integers(-2, 12), min_size=len(arcs), max_size=len(arcs)))
    src, dst = (np.array([a[i] for a in arcs], np.int64) for i in (0, 1))
    G = gravel.Graph.from_edges(src, dst, np.array(w, np.float64), n=n, directed=directed)
    return G, draw(st.integers(0, n - 1))


def networkx_of(G):
    """G as a NetworkX graph, parallel arcs kept as their lightest (as paths take them)."""
    g = nx.DiGraph() if G.directed else nx.Graph()
    g.add_nodes_from(range(G.n))
    src, dst = G.edges()
    for u, v, w in zip(src.tolist(), dst.tolist(), G.weights.tolist()):
        if not g.has_edge(u, v) or g[u][v]["weight"] > w:
            g.add_edge(u, v, weight=w)
    return g


@settings(max_examples=60, deadline=None)
@given(case=signed_graphs())
def test_bellman_ford_is_networkx_s_or_finds_its_negative_cycle(case):
    G, s = case
    try:
        want = nx.single_source_bellman_ford_path_length(networkx_of(G), s)
    except nx.NetworkXUnbounded:
        with pytest.raises(gravel.NegativeCycleError) as caught:
            gravel.bellman_ford(G, s, device="cpu")
        assert 0 <= caught.value.vertex < G.n
        return
    r = gravel.bellman_ford(G, s, device="cpu")
    got = {v: d for v, d in enumerate(r.distance.tolist()) if np.isfinite(d)}
    assert got == want
    assert verify_bellman_ford(G, s, r.distance, r.predecessor) == []
    assert r.path_to(s) == [s]


def test_a_negative_edge_of_an_undirected_graph_is_a_negative_cycle():
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -1.0], directed=False)
    with pytest.raises(gravel.NegativeCycleError, match="source 0"):
        gravel.bellman_ford(G, 0, device="cpu")
    D = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -1.0])  # directed: no cycle
    assert gravel.bellman_ford(D, 0, device="cpu").distance.tolist() == [0.0, 1.0, 0.0]


def test_an_unreachable_negative_cycle_is_no_error():
    G = gravel.Graph.from_edges([0, 2, 3], [1, 3, 2], [2.0, -5.0, 1.0])
    r = gravel.bellman_ford(G, 0, device="cpu")
    assert r.distance.tolist() == [0.0, 2.0, np.inf, np.inf]
    assert r.predecessor.tolist() == [-1, 0, -1, -1]
    with pytest.raises(gravel.NegativeCycleError):
        gravel.bellman_ford(G, 2, device="cpu")


def potential_weighted(G, seed):
    """G's arcs, directed, with weights w(u, v) + p[u] - p[v] for random w >= 1 and potentials p:
    many negative, yet every cycle keeps its positive weight, and the distances from s are those
    of w shifted by p[s] - p[v] (Johnson's reweighting backwards)."""
    rng = np.random.default_rng(seed)
    src, dst = G.edges()
    w, p = rng.integers(1, 9, src.size), rng.integers(0, 20, G.n)
    plain = gravel.Graph.from_edges(src, dst, w.astype(np.float64), n=G.n)
    return (
        plain,
        gravel.Graph.from_edges(src, dst, (w + p[src] - p[dst]).astype(np.float64), n=G.n),
        p,
    )


def test_negative_weights_without_negative_cycles_shift_the_distances():
    from gravel import generate, reorder

    plain, shifted, p = potential_weighted(generate.kronecker(7, 4, seed=2), seed=3)
    s = int(np.argmax(plain.out_degree))
    want = gravel.sssp(plain, s, device="cpu").distance + p[s] - p
    for G in (shifted, reorder.reorder(shifted, "degree")):  # caller's ids on a reordered graph
        r = gravel.bellman_ford(G, s, device="cpu")
        assert (shifted.weights < 0).any() and np.array_equal(r.distance, want)
        assert verify_bellman_ford(G, s, r.distance, r.predecessor) == []


@pytest.mark.parametrize("w", [np.nan, np.inf])
def test_weights_that_are_no_numbers_are_refused(w):
    G = gravel.Graph.from_edges([0], [1], [w])
    with pytest.raises(gravel.InvalidWeightError, match="bellman_ford"):
        gravel.bellman_ford(G, 0, device="cpu")


def test_bad_source_and_unweighted_graphs():
    G = gravel.generate.grid(2, 3)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.bellman_ford(G, 6, device="cpu")
    r = gravel.bellman_ford(G, 0, device="cpu")
    assert r.distance.tolist() == gravel.bfs(G, 0, device="cpu").depth.astype(float).tolist()


@pytest.mark.gpu
@settings(max_examples=40, deadline=None)
@given(case=signed_graphs())
def test_bellman_ford_on_the_gpu_equals_the_cpu(case):
    G, s = case
    try:
        want = gravel.bellman_ford(G, s, device="cpu")
    except gravel.NegativeCycleError:
        with pytest.raises(gravel.NegativeCycleError):
            gravel.bellman_ford(G, s, device="cuda")
        return
    got = gravel.bellman_ford(G, s, device="cuda")
    assert got.device == "cuda"
    assert np.array_equal(host(got.distance), want.distance)
    assert verify_bellman_ford(G, s, host(got.distance), host(got.predecessor)) == []


@pytest.mark.gpu
def test_bellman_ford_on_the_gpu_on_a_larger_graph():
    from gravel import generate

    _, G, _ = potential_weighted(generate.kronecker(10, 8, seed=3), seed=2)
    s = int(np.argmax(G.out_degree))
    want, got = (gravel.bellman_ford(G, s, device=d) for d in ("cpu", "cuda"))
    assert np.array_equal(host(got.distance), want.distance)
    assert verify_bellman_ford(G, s, host(got.distance), host(got.predecessor)) == []
