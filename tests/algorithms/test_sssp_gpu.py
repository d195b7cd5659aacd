"""SSSP on the GPU. Without a GPU: the default bucket width narrows only on dense random graphs. On
a GPU (``-m gpu``): the near/far split in float32 is inf past its range without a warning; SciPy's
semantics on awkward weights (issue 17) and paths beyond float32 refused, predecessors by a pull or
a BFS over tight arcs, and pull sweeps that file past the split as relaxations do, taken on a hub's
wide frontiers and never on a mesh's, each against the CPU path."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.sssp import verify_sssp
from gravel.arrays import host
from gravel.errors import InvalidWeightError

from ..conftest import small_pieces
from .helpers import scipy_dijkstra, weighted_multigraphs

# the package's modules: gravel.algorithms.sssp is the function
sssp_cuda = importlib.import_module("gravel.algorithms.sssp.cuda")
sssp_delta = importlib.import_module("gravel.algorithms.sssp.delta")


@pytest.mark.gpu
@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("split", "expect"), [(2.5, 2.5), (3.4e38, 3.4e38), (4e38, np.inf)])
def test_the_gpu_split_in_float32_is_inf_past_its_range_without_warning(split, expect):
    cupy = pytest.importorskip("cupy")
    from gravel.operators import Buckets

    buckets = Buckets(cupy.zeros(1, cupy.float32), split)
    assert buckets.split.get()[0] == np.float32(expect) and buckets.at.get()[0] == split


@pytest.mark.parametrize(
    "spec, narrow",
    [
        ("urand:12", True),
        ("urand:12:8", False),
        ("kron:12", False),
        ("grid:64x64", False),
        ("rgg:12:32", False),
    ],
)
def test_gpu_default_delta_narrows_only_on_dense_random_graphs(spec, narrow):
    # urand (average degree 32, no hubs, no triangles to speak of) gets 24 / degree mean weights;
    # sparser graphs, graphs with hubs (kron) and geometric ones as dense (rgg:12:32, whose
    # degrees pass 24 with no hubs) keep the wide rule, at least 8 mean weights
    G = gravel.generate.from_spec(spec)
    G = gravel.transform.add_random_weights(G, low=1, high=255, seed=0)
    mean, degree = G.weight_stats[2], G.nnz / G.n
    width = sssp_delta.default_delta(G, "cuda")
    if narrow:
        assert width == pytest.approx(mean * 24 / degree)
    else:
        assert width >= 8 * mean


#: huge weights, but no path of a tiny graph longer than float32's range
GPU_WEIGHTS = [0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 1e30, 1e36]


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(weighted_multigraphs(weights=GPU_WEIGHTS), st.data())
def test_issue_17_sssp_on_awkward_weights_equals_scipy_on_the_gpu(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    expect, scipy_pred = scipy_dijkstra(G, arcs, w, s)
    r = gravel.sssp(G, s, device="cuda")
    assert r.distance.dtype == np.float32 and r.predecessor.dtype == np.int32
    d, pred = host(r.distance).astype(np.float64), host(r.predecessor)
    assert np.allclose(d, expect, rtol=1e-5, atol=0)
    assert np.array_equal(pred < 0, scipy_pred < 0)
    assert verify_sssp(G, s, d, pred, rtol=1e-5) == []
    bare = gravel.sssp(G, s, predecessors=False, device="cuda")  # distances only
    assert bare.predecessor is None
    assert np.allclose(host(bare.distance).astype(np.float64), expect, rtol=1e-5, atol=0)


@pytest.mark.gpu
def test_issue_17_sssp_tree_has_no_cycle_on_zero_weight_cycles_on_the_gpu():
    src, dst = [0, 1, 2, 2, 3, 3, 1], [1, 2, 1, 3, 2, 1, 3]
    G = gravel.Graph.from_edges(src, dst, [1, 0, 0, 0, 0, 0, 0])
    r = gravel.sssp(G, 0, device="cuda")
    d, pred = host(r.distance).astype(np.float64), host(r.predecessor)
    assert verify_sssp(G, 0, d, pred) == [] and r.path_to(3)[0] == 0


@pytest.mark.gpu
def test_issue_17_sssp_refuses_paths_beyond_float32_on_the_gpu():
    G = gravel.Graph.from_edges([0, 1], [1, 2], [3e38, 3e38])
    assert gravel.sssp(G, 0, device="cpu").distance[2] == np.float64(np.float32(3e38)) * 2
    for predecessors in (True, False):  # without them, a bound sends it to their check
        with pytest.raises(InvalidWeightError, match="float32"):
            gravel.sssp(G, 0, predecessors=predecessors, device="cuda")


@pytest.mark.gpu
@pytest.mark.filterwarnings("error")  # the split's float32 cast once warned of an overflow
@pytest.mark.parametrize("delta", [2e38, 1e300])
def test_issue_17_sssp_split_past_float32_casts_without_warning(delta):
    # 0 -> 1 (3e38) lands past the first split; the next split (4e38 or more) is past float32
    G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [3e38, 0.0, 3.4e38])
    r = gravel.sssp(G, 0, delta=delta, device="cuda")
    d = host(r.distance)
    assert d.tolist() == [0.0, np.float32(3e38), np.float32(3e38)]
    assert verify_sssp(G, 0, d, host(r.predecessor), rtol=1e-6) == []


@pytest.mark.gpu
def test_sssp_predecessors_by_a_pull_where_weights_are_positive_else_by_a_bfs():
    """Positive weights: each reached vertex has a strictly closer tight in-arc, and one pull finds
    the tree; a zero-weight arc between vertices at one distance leaves a vertex without one, and
    the BFS over tight arcs finds the tree instead."""
    from gravel import generate, transform

    G = transform.add_random_weights(generate.kronecker(10, 8, seed=3), 1, 255, seed=2)
    s = int(np.argmax(G.out_degree))
    r = gravel.sssp(G, s, device="cuda")
    assert r.stats["predecessors"] == "pull"
    d = host(r.distance).astype(np.float64)
    assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []
    Z = gravel.Graph.from_edges([0, 1, 2, 0], [1, 2, 1, 3], [1.0, 0.0, 0.0, 2.0])
    r = gravel.sssp(Z, 0, device="cuda")
    assert r.stats["predecessors"] == "bfs"
    d = host(r.distance).astype(np.float64)
    assert verify_sssp(Z, 0, d, host(r.predecessor)) == []


# unweighted, two buckets: a bucket of four (one hop) would file every improvement past the split
@pytest.mark.gpu
@pytest.mark.parametrize("weighted,buckets", [(True, 1), (True, 4), (False, 1), (False, 2)])
@pytest.mark.parametrize("path", ["plain", "staged"])
def test_sssp_pull_sweeps_file_past_the_split_as_relaxations_do(
    monkeypatch, buckets, weighted, path
):
    """With shares that send every step of more than one output to pull sweeps, and a split inside
    the distances (several buckets), the sweeps file what they improve past it to the far pile: the
    distances match the CPU path's and the tree checks, on a directed graph with weights and without
    (weight 1) and with unreachable vertices, swept plainly or staged in shared memory (blocks of
    700 vertices, the weights in the layout's order, merge tiles cut into pieces)."""
    import cupy

    from gravel import generate, transform
    from gravel import operators as ops
    from gravel.operators import sweep_plan

    monkeypatch.setattr(sssp_cuda, "PULL_SHARE", 0.0)
    monkeypatch.setattr(sssp_cuda, "PULL_ARCS", 0.0)
    staged = []
    if path == "staged":
        monkeypatch.setattr(sweep_plan, "AUTO_L2_SHARE", 0.0)
        monkeypatch.setattr(sweep_plan, "shared_width", lambda bytes_per_vertex: 700)
    nr = importlib.import_module("gravel.operators.neighbor_reduce")
    real = nr.staged_sweep
    monkeypatch.setattr(nr, "staged_sweep", lambda *args: (staged.append(args[1]), real(*args))[1])
    G = generate.uniform_random(12, 16, seed=6, directed=True)
    if weighted:
        G = transform.add_random_weights(G, 1, 255, seed=7)
    # and 100 vertices no arc reaches, first: in the tile that the staged merge cuts into pieces
    src = np.repeat(np.arange(G.n), G.out_degree) + 100
    G = gravel.Graph.from_edges(src, G.indices + 100, G.weights, n=G.n + 100, directed=True)
    if path == "staged":
        # whose kept sums a default min sweep (identity FLT_MAX, not inf) has used first
        dg = G.to("cuda")
        assert small_pieces(dg, 700).pieces > 2
        ops.neighbor_reduce(dg, None, cupy.zeros(G.n, cupy.float32), "min", blocking=700)
    primed = len(staged)
    s = int(np.argmax(G.out_degree))
    want = gravel.sssp(G, s, device="cpu").distance
    delta = None if buckets == 1 else float(want[np.isfinite(want)].max()) / buckets
    r = gravel.sssp(G, s, delta=delta, device="cuda")
    assert r.stats["pull_sweeps"] > 0
    assert staged[primed:] == ([700] * r.stats["pull_sweeps"] if path == "staged" else [])
    d = host(r.distance).astype(np.float64)
    np.testing.assert_allclose(d, want, rtol=1e-5)
    assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []


@pytest.mark.gpu
def test_sssp_pulls_a_hubs_wide_frontier_and_pushes_a_meshs():
    """From kron's hub, a step's output holds most of the arcs: pull sweeps take over. A grid's
    frontiers hold few arcs: it never sweeps. Both check against the CPU path and the tree."""
    from gravel import generate, transform

    K = transform.add_random_weights(generate.kronecker(13, 16, seed=3), 1, 255, seed=2)
    grid = generate.grid(200, 200)
    for G, s, sweeps in ((K, int(np.argmax(K.out_degree)), True), (grid, 0, False)):
        r = gravel.sssp(G, s, device="cuda")
        assert (r.stats["pull_sweeps"] > 0) == sweeps
        d = host(r.distance).astype(np.float64)
        np.testing.assert_allclose(d, gravel.sssp(G, s, device="cpu").distance, rtol=1e-5)
        assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []


@pytest.mark.gpu
def test_sssp_keeps_pushing_wide_frontiers_of_short_lists(monkeypatch):
    """Where every step's output passes PULL_SHARE but a grid's lists hold few arcs, the push goes
    on (the width to test doubles) and never sweeps; the distances stay right."""
    from gravel import generate

    monkeypatch.setattr(sssp_cuda, "PULL_SHARE", 0.0)
    grid = generate.grid(60, 60)
    r = gravel.sssp(grid, 0, device="cuda")
    assert r.stats["pull_sweeps"] == 0
    d = host(r.distance).astype(np.float64)
    np.testing.assert_allclose(d, gravel.sssp(grid, 0, device="cpu").distance)
    assert verify_sssp(grid, 0, d, host(r.predecessor)) == []
