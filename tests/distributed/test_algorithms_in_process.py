"""gravel.distributed's BFS, SSSP, PageRank and connected components over 1-4 parts in this
process (cluster="in-process") against the single-process CPU path: on random graphs, BFS in each
direction and its direction-optimizing pulls, the frontier sent as ids or a bitmap, results left
distributed (gather=False), reordered graphs in the caller's ids, SSSP's bucket widths and
PageRank's stopping rules, and the errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel.distributed import exchange
from gravel.errors import InvalidArgumentError

from ..strategies import graphs
from .helpers import (
    ARRAYS,
    FAST,
    check_bfs,
    check_cc,
    check_left_distributed,
    check_pagerank,
    check_sssp,
    run_from_1,
)


@FAST
@given(G=graphs(weighted=True), parts=st.integers(1, 3), data=st.data())
def test_in_process_against_cpu(G, parts, data):
    if G.n:
        s = data.draw(st.integers(0, G.n - 1))
        check_bfs(G, s, gd.bfs(G, s, parts=parts, cluster="in-process"))
        check_sssp(G, s, gd.sssp(G, s, parts=parts, cluster="in-process"))
    check_pagerank(G, gd.pagerank(G, parts=parts, cluster="in-process"))
    check_cc(G, gd.connected_components(G, parts=parts, cluster="in-process"))


@pytest.mark.parametrize("direction", ["auto", "top-down", "bottom-up"])
@FAST
@given(G=graphs(), parts=st.integers(1, 4), data=st.data())
def test_bfs_each_direction_in_process(direction, G, parts, data):
    if G.n:
        s = data.draw(st.integers(0, G.n - 1))
        res = gd.bfs(G, s, direction=direction, parts=parts, cluster="in-process")
        check_bfs(G, s, res)
        pulls = res.stats["bottom_up_levels"]  # the last level, which finds nothing, included
        assert pulls == (res.iterations + 1 if direction == "bottom-up" else pulls)
        assert pulls == 0 or direction != "top-down"


@pytest.mark.parametrize("parts", [1, 2, 3, 4])
@pytest.mark.parametrize("directed", [False, True])
def test_direction_optimizing_bfs_pulls_where_it_pays(parts, directed):
    G = gravel.generate.kronecker(10, 16, directed=directed, seed=4)
    s = int(np.argmax(G.out_degree))
    auto = gd.bfs(G, s, parts=parts, cluster="in-process")
    check_bfs(G, s, auto)
    assert 0 < auto.stats["bottom_up_levels"] < auto.iterations
    assert "direction-optimizing" in auto.strategy
    push = gd.bfs(G, s, direction="top-down", parts=parts, cluster="in-process")
    assert push.stats["bottom_up_levels"] == 0
    if parts == 1:
        assert auto.stats["exchange_bytes"] == push.stats["exchange_bytes"] == 0
    else:  # the pulls' allgathers carry less than the top-down levels' targets they replace
        assert 0 < auto.stats["exchange_bytes"] < push.stats["exchange_bytes"]


def test_bfs_frontier_as_ids_or_bitmap():
    from gravel.distributed.programs import _frontier_everywhere

    G = gravel.generate.kronecker(8, 8)
    pieces = gd.split(G, 3)
    for size in (3, G.n // 2):  # 12 bytes of ids; a bitmap of n / 8 bytes
        chosen = np.sort(np.random.default_rng(size).choice(G.n, size, replace=False))
        owned = [chosen[(chosen >= p.lo) & (chosen < p.hi)] - p.lo for p in pieces]
        programs = [_frontier_everywhere(p, f, size) for p, f in zip(pieces, owned)]
        got = exchange.run_in_process(range(3), lambda k: programs[k])
        want = np.zeros(G.n, bool)
        want[chosen] = True
        assert all(np.array_equal(g, want) for g in got)


def test_bfs_bad_direction():
    with pytest.raises(gravel.UnknownNameError, match="direction"):
        gd.bfs(gravel.generate.grid(2, 2), 0, direction="sideways", cluster="in-process")


@pytest.mark.parametrize("algo", list(ARRAYS))
@pytest.mark.parametrize("parts", [1, 3, 4])
def test_results_left_in_process(algo, parts):
    pytest.importorskip("dask")
    G = gravel.generate.kronecker(7, 8, directed=True, seed=1)
    kept = run_from_1(algo, G, parts=parts, cluster="in-process", gather=False)
    whole = run_from_1(algo, G, parts=parts, cluster="in-process")
    bounds = gd.edge_balanced_bounds(G.offsets, parts)
    check_left_distributed(algo, G, kept, whole, bounds, local=True)


def test_results_left_distributed_errors():
    G = gravel.generate.grid(3, 3)
    with pytest.raises(InvalidArgumentError, match="pass a cluster"):
        gd.bfs(G, 0, parts=2, gather=False)
    R = gravel.reorder.reorder(gravel.generate.kronecker(8, 8), "degree")
    with pytest.raises(InvalidArgumentError, match="reordered"):
        gd.connected_components(R, parts=2, cluster="in-process", gather=False)


def test_reordered_graph_in_callers_ids():
    G = gravel.generate.kronecker(8, 8)
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    check_bfs(G, 3, gd.bfs(R, 3, parts=3, cluster="in-process"))
    check_sssp(G, 3, gd.sssp(R, 3, parts=3, cluster="in-process"))
    check_cc(G, gd.connected_components(R, parts=3, cluster="in-process"))


@pytest.mark.parametrize("delta", [0.5, 3.0, 1000.0])
def test_sssp_any_bucket_width_and_bad_weights(delta):
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(8, 8, seed=3), seed=2)
    check_sssp(G, 5, gd.sssp(G, 5, delta=delta, parts=3, cluster="in-process"))
    bad = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -2.0])
    with pytest.raises(gravel.InvalidWeightError):
        gd.sssp(bad, 0, parts=2, cluster="in-process")
    with pytest.raises(gravel.VertexNotFoundError):
        gd.sssp(G, G.n, parts=2, cluster="in-process")


def test_pagerank_stopping_and_failure():
    G = gravel.generate.kronecker(8, 8, directed=True)
    res = gd.pagerank(G, parts=2, stopping="networkx", cluster="in-process")
    ref = gravel.pagerank(G, stopping="networkx", device="cpu")
    assert res.iterations == ref.iterations
    np.testing.assert_allclose(res.rank, ref.rank, rtol=1e-9)
    with pytest.raises(gravel.PowerIterationFailedConvergence):
        gd.pagerank(G, parts=2, max_iter=2, cluster="in-process")
