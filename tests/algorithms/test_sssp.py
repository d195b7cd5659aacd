"""SSSP's results and its arguments: published distances on the shared datasets, NetworkX on
random graphs, unweighted SSSP against BFS depths; SciPy's semantics on awkward weights (issue 17:
zero-weight cycles, predecessors and paths in the caller's ids, bucket widths too narrow or not a
width, a wide weight range); and the errors for missing sources and negative, NaN or infinite
weights."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.sssp import MAX_BUCKETS, verify_sssp
from gravel.errors import InvalidWeightError, VertexNotFoundError

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs
from .helpers import scipy_dijkstra, weighted_multigraphs

REF = reference()


@pytest.mark.parametrize(
    "entry",
    [e for e in REF if "sssp_source_label" in e["checks"]],
    ids=dataset_ids([e for e in REF if "sssp_source_label" in e["checks"]]),
)
def test_sssp_matches_published_distances(entry):
    G, internal = load_dataset(entry)
    c = entry["checks"]
    s = internal(c["sssp_source_label"])
    d = gravel.sssp(G, s, device="cpu").distance
    finite = np.isfinite(d)
    assert finite.sum() == c["sssp_reached"]
    assert d[finite].max() == c["sssp_max_dist"] and d[finite].sum() == c["sssp_sum_dist"]
    assert verify_sssp(G, s, d) == []


@settings(max_examples=60, deadline=None)
@given(graphs(weighted=True))
def test_random_sssp_against_networkx(G):
    if G.n == 0:
        return
    g = nx.MultiDiGraph() if G.directed else nx.MultiGraph()
    g.add_nodes_from(range(G.n))
    src, dst = G.edges()
    g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), G.weights.tolist()))
    for s in {0, G.n - 1}:
        ref = nx.single_source_dijkstra_path_length(g, s)
        expect = np.array([ref.get(v, np.inf) for v in range(G.n)])
        for delta in (None, 1.0, 100.0):
            assert np.array_equal(gravel.sssp(G, s, delta=delta, device="cpu").distance, expect)


def test_sssp_source_that_does_not_exist():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.sssp(G, 10)


def test_unweighted_sssp_equals_bfs_depth():
    G = gravel.generate.kronecker(10)
    d = gravel.sssp(G, 5, device="cpu").distance
    depth = gravel.bfs(G, 5, device="cpu").depth
    assert np.array_equal(np.where(np.isfinite(d), d, -1), depth)


def test_kron_sssp_against_scipy():
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(12), 1, 255, seed=2)
    s = int(np.argmax(G.out_degree))
    assert verify_sssp(G, s, gravel.sssp(G, s, device="cpu").distance) == []


@pytest.mark.parametrize("w", [-1.0, np.nan])
def test_sssp_rejects_negative_and_nan_weights(w):
    G = gravel.Graph.from_edges([0, 1, 1], [1, 2, 0], [1.0, w, 2.0])
    with pytest.raises(gravel.InvalidWeightError, match=r"arc 1 -> 2"):
        gravel.sssp(G, 0)


@settings(max_examples=40, deadline=None)
@given(weighted_multigraphs(), st.data())
def test_issue_17_sssp_on_awkward_weights_equals_scipy(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    expect, scipy_pred = scipy_dijkstra(G, arcs, w, s)
    narrow = max(1.0, 2 * max(w, default=0) / MAX_BUCKETS)  # the narrowest allowed, nearly
    for delta in (None, narrow, 1e38):
        r = gravel.sssp(G, s, delta=delta, device="cpu")
        assert r.distance.dtype == np.float64 and r.predecessor.dtype == np.int32
        assert np.allclose(r.distance, expect, rtol=1e-12, atol=0)
        assert np.array_equal(r.predecessor < 0, scipy_pred < 0)
        assert verify_sssp(G, s, r.distance, r.predecessor) == []
    for t in range(G.n):
        path = r.path_to(t)
        if np.isinf(expect[t]):
            assert path == []
            continue
        assert path[0] == s and path[-1] == t and len(set(path)) == len(path)
        assert np.array_equal(r.predecessor[path[1:]], path[:-1])


@settings(max_examples=25, deadline=None)
@given(weighted_multigraphs(), st.data())
def test_sssp_without_predecessors_gives_the_same_distances(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    r = gravel.sssp(G, s, predecessors=False, device="cpu")
    assert r.predecessor is None
    assert np.allclose(r.distance, scipy_dijkstra(G, arcs, w, s)[0], rtol=1e-12, atol=0)
    assert list(r.columns()) == ["vertex", "distance"]
    with pytest.raises(ValueError, match="predecessors=True"):
        r.path_to(s)


def test_issue_17_sssp_tree_has_no_cycle_on_zero_weight_cycles():
    # 1 <-> 2 <-> 3 at distance 1, every arc between them of weight 0
    src, dst = [0, 1, 2, 2, 3, 3, 1], [1, 2, 1, 3, 2, 1, 3]
    G = gravel.Graph.from_edges(src, dst, [1, 0, 0, 0, 0, 0, 0])
    r = gravel.sssp(G, 0, device="cpu")
    assert r.distance.tolist() == [0, 1, 1, 1]
    assert r.predecessor[0] == -1 and r.predecessor[1] == 0
    assert verify_sssp(G, 0, r.distance, r.predecessor) == []
    assert r.path_to(3)[0] == 0


def test_issue_17_sssp_predecessors_in_caller_ids():
    G = gravel.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0, 1.0, 1.0, 5.0])
    R = gravel.transform.relabel(G, np.array([2, 3, 0, 1]), transparent=True)
    r = gravel.sssp(R, 0, device="cpu")
    assert r.predecessor.tolist() == [-1, 0, 1, 2]
    assert r.path_to(3) == [0, 1, 2, 3]
    assert verify_sssp(R, 0, r.distance, r.predecessor) == []


def test_sssp_path_to_the_source_unreachable_and_missing_vertices():
    G = gravel.Graph.from_edges([0, 1], [1, 2], n=4)
    r = gravel.sssp(G, 1, device="cpu")
    assert r.source == 1 and r.path_to(1) == [1] and r.path_to(2) == [1, 2]
    assert r.path_to(0) == [] and r.path_to(3) == []
    for bad in (4, -1, 1.0, True):
        with pytest.raises(VertexNotFoundError):
            r.path_to(bad)


def test_verify_sssp_finds_bad_predecessors():
    G = gravel.Graph.from_edges([0, 1, 0, 2, 3], [1, 2, 2, 3, 2], [1.0, 1.0, 5.0, 0.0, 0.0])
    r = gravel.sssp(G, 0, device="cpu")
    d, pred = r.distance, r.predecessor
    assert d.tolist() == [0, 1, 2, 2] and verify_sssp(G, 0, d, pred) == []
    for wrong in ([-1, 0, 0, 2], [0, 0, 1, 2], [-1, -1, 1, 2], [-1, 0, 3, 2], [-1, 0, 1, 0]):
        assert verify_sssp(G, 0, d, np.array(wrong)) != [], wrong


@pytest.mark.parametrize("delta", [1e-30, 2.0**-30])
def test_issue_17_sssp_refuses_a_delta_too_narrow_for_its_buckets(delta):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, 1e30])
    with pytest.raises(InvalidWeightError, match="too narrow"):
        gravel.sssp(G, 0, delta=delta, device="cpu")


@pytest.mark.parametrize("delta", [0, -1.0, np.nan, np.inf, "1", True], ids=repr)
def test_sssp_refuses_a_delta_that_is_not_a_width(delta):
    with pytest.raises(InvalidWeightError, match="delta"):
        gravel.sssp(gravel.generate.grid(2, 2), 0, delta=delta, device="cpu")


def test_issue_17_sssp_default_delta_on_a_wide_weight_range():
    # the mean weight is tiny beside the largest: the default width is raised, not the ring
    src = np.arange(2000)
    w = np.full(2000, 1e-30, np.float32)
    w[-1] = 3e38
    G = gravel.Graph.from_edges(src, src + 1, w)
    r = gravel.sssp(G, 0, device="cpu")
    assert r.stats["delta"] >= 3e38 / MAX_BUCKETS
    assert verify_sssp(G, 0, r.distance, r.predecessor) == []


@pytest.mark.parametrize("w", [np.inf, 1e39], ids=["inf", "beyond-float32"])
def test_sssp_refuses_infinite_weights(w):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, w])
    with pytest.raises(InvalidWeightError, match="finite"):
        gravel.sssp(G, 0, device="cpu")
