"""gravel.distributed on a Dask cluster of 3 CPU workers (skipped without dask/distributed): the
workers' environment and the parts pinned to them, BFS / SSSP / PageRank / CC over 1-4 parts
against the single-process CPU path on kron and random graphs, results left on the workers, a call
that starts its own cluster, and a failing part or a dying worker (issue 21) leaving no state
behind."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel.distributed import exchange

from ..strategies import graphs
from .helpers import (
    ARRAYS,
    check_bfs,
    check_cc,
    check_left_distributed,
    check_pagerank,
    check_sssp,
    run_from_1,
)

ON_WORKERS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("dask")
    pytest.importorskip("distributed")
    with gd.Cluster(parts=3) as c:
        yield c


@pytest.fixture(scope="module")
def kron():
    return gravel.generate.kronecker(10, 8, directed=True)


def test_workers_environment_and_pinning(cluster, kron):
    env = cluster.client.run(lambda: os.environ.get("NCCL_NVLS_ENABLE"))
    assert set(env.values()) == {"0"} and len(env) == 3
    DG = cluster.load(kron, 3)
    try:
        held = cluster.client.who_has(DG.futures)
        assert [held[f.key] for f in DG.futures] == [(w,) for w in cluster.workers]
    finally:
        DG.free()


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_kron_on_workers(cluster, kron, parts):
    DG = cluster.load(kron, parts)
    try:
        s = int(np.argmax(kron.out_degree))
        check_bfs(kron, s, gd.bfs(DG, s))
        check_sssp(kron, s, gd.sssp(DG, s, delta=1.0))
        check_pagerank(kron, gd.pagerank(DG))
        check_cc(kron, gd.connected_components(DG))
    finally:
        DG.free()


@ON_WORKERS
@given(G=graphs(max_n=30, max_m=80), parts=st.integers(1, 3), data=st.data())
def test_hypothesis_graphs_on_workers(cluster, G, parts, data):
    if G.n:
        s = data.draw(st.integers(0, G.n - 1))
        check_bfs(G, s, gd.bfs(G, s, parts=parts, cluster=cluster))
    check_cc(G, gd.connected_components(G, parts=parts, cluster=cluster))


@pytest.mark.parametrize("algo", list(ARRAYS))
def test_results_left_on_workers(cluster, kron, algo):
    from gravel.distributed import cluster as mod

    DG = cluster.load(kron, 3)
    try:
        kept = run_from_1(algo, DG, gather=False)
        check_left_distributed(algo, kron, kept, run_from_1(algo, DG), DG.bounds, local=False)
        pieces = getattr(kept, ARRAYS[algo][0]).pieces
        held = cluster.client.who_has(pieces)
        assert [held[f.key] for f in pieces] == [(w,) for w in cluster.workers]
        assert set(cluster.client.run(lambda: len(mod._KEPT)).values()) == {0}
    finally:
        DG.free()


def test_given_client_and_four_parts_on_three_workers(cluster, kron):
    # more parts than workers: parts go round the workers
    res = gd.connected_components(kron, parts=4, cluster=cluster.client)
    check_cc(kron, res)
    assert res.stats["parts"] == 4


def test_one_call_starts_and_stops_its_cluster():
    pytest.importorskip("distributed")
    G = gravel.generate.grid(4, 5)
    check_bfs(G, 0, gd.bfs(G, 0, parts=2))


def test_a_failing_part_leaves_no_state(cluster, kron):
    from gravel.distributed import cluster as mod

    def fails_on_part_one(part):  # nested: pickled by value for the workers
        yield exchange.allreduce(1)
        if part.index == 1:
            raise IndexError("part one fails")
        yield exchange.allreduce(1)

    DG = cluster.load(kron, 2)
    try:
        with pytest.raises(IndexError):
            DG.run(fails_on_part_one)
        left = cluster.client.run(lambda: len(mod._RUNNING))
        assert set(left.values()) == {0}
    finally:
        DG.free()


def test_issue_21_a_worker_that_dies_is_one_error_and_rerunnable(kron):
    pytest.importorskip("distributed")

    def dies_on_part_one(part):  # nested: pickled by value for the workers
        yield exchange.allreduce(1)
        if part.index == 1:
            os._exit(1)
        yield exchange.allreduce(1)

    with gd.Cluster(parts=2) as c:
        DG = c.load(kron, 2)
        lost = c.workers[1]
        with pytest.raises(gd.WorkerLostError, match=f"worker {lost}.*part 1"):
            DG.run(dies_on_part_one)
        c.client.wait_for_workers(2)  # the nanny restarts it
        again = gd.Cluster(client=c.client)
        s = int(np.argmax(kron.out_degree))
        check_bfs(kron, s, gd.bfs(kron, s, parts=2, cluster=again))
