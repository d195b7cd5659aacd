"""gravel.distributed: partitions, the exchange, and BFS / SSSP / PageRank / CC over 1-3 parts
against the single-process CPU path, in this process and on Dask workers (skipped without
dask/distributed)."""

import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel import programs
from gravel.distributed import exchange, timing
from gravel.errors import GravelError, InvalidArgumentError, MissingDependencyError

from ..strategies import graphs
from .helpers import check_bfs, check_cc, check_pagerank, check_sssp

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ON_WORKERS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _arcs(src, dst, w):
    cols = [src.astype(np.float64), dst.astype(np.float64)]
    if w is not None:
        cols.append(w.astype(np.float64))
    a = np.stack(cols, axis=1) if cols[0].size else np.zeros((0, len(cols)))
    return a[np.lexsort(a.T[::-1])] if a.size else a


# -- partitioning ------------------------------------------------------------------------------


@FAST
@given(G=graphs(weighted=True), parts=st.integers(1, 5))
def test_every_arc_in_one_out_list_and_one_in_list(G, parts):
    pieces = gd.split(G, parts)
    bounds = pieces[0].bounds
    assert bounds[0] == 0 and bounds[-1] == G.n and np.all(np.diff(bounds) >= 0)
    outs, ins = [], []
    for p in pieces:
        rows = np.repeat(np.arange(p.lo, p.hi), np.diff(p.out_offsets))
        outs.append(_arcs(rows, p.out_targets, p.out_weights))
        cols = np.repeat(np.arange(p.lo, p.hi), np.diff(p.in_offsets))
        ins.append(_arcs(p.in_sources, cols, p.in_weights))
    src, dst = G.edges()
    want = _arcs(src, dst, G.weights)
    assert np.array_equal(np.concatenate(outs) if outs else want[:0], want)
    assert np.array_equal(_arcs(*[np.concatenate(c) for c in zip(*_split3(ins))]), want)


def _split3(blocks):
    for b in blocks:
        yield b[:, 0], b[:, 1], b[:, 2]


@FAST
@given(G=graphs(max_n=60, max_m=300), parts=st.integers(1, 6))
def test_parts_balanced_within_one_list(G, parts):
    bounds = gd.edge_balanced_bounds(G.offsets, parts)
    arcs = np.diff(G.offsets[bounds])
    if G.nnz:
        assert np.all(np.abs(arcs - G.nnz / parts) < G.max_out_degree)
    else:
        assert np.all(np.diff(bounds) <= -(-G.n // parts))


@FAST
@given(G=graphs(), parts=st.integers(1, 5))
def test_owner_round_trips(G, parts):
    pieces = gd.split(G, parts)
    ids = np.arange(G.n)
    expect = np.concatenate([np.full(p.size, p.index) for p in pieces]) if pieces else ids
    assert np.array_equal(gd.owner(pieces[0].bounds, ids), expect)
    for p in pieces:
        assert np.all(p.owner(np.arange(p.lo, p.hi)) == p.index)


@pytest.mark.parametrize(("shape", "parts"), [((5, 7), 4), ((3, 3), 2), ((1, 3), 5)])
def test_issue_21_parts_that_do_not_divide(shape, parts):
    # 35 vertices in 4 parts, 9 in 2, and 3 in 5 (two parts own no vertex)
    G = gravel.transform.add_random_weights(gravel.generate.grid(*shape), seed=1)
    pieces = gd.split(G, parts)
    assert sum(p.size for p in pieces) == G.n and len(pieces) == parts
    for direction in ("top-down", "bottom-up"):
        check_bfs(G, 0, gd.bfs(G, 0, direction=direction, parts=parts, cluster="in-process"))
    check_sssp(G, 0, gd.sssp(G, 0, parts=parts, cluster="in-process"))
    check_pagerank(G, gd.pagerank(G, parts=parts, cluster="in-process"))
    check_cc(G, gd.connected_components(G, parts=parts, cluster="in-process"))


def test_bad_parts():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(InvalidArgumentError):
        gd.split(G, 0)
    with pytest.raises(InvalidArgumentError):
        gd.split(G, 2, bounds=[0, 3, 2])


# -- the exchange ------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: gd.Cluster(parts=1), lambda: gd.GPUCluster(1)])
def test_clusters_without_dask_name_the_install(make, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    with pytest.raises(MissingDependencyError, match=r"pip install 'gravel\[distributed\]'"):
        make()


def test_route_collectives():
    a = np.arange
    sends = [exchange.alltoall([a(1), a(2)]), exchange.alltoall([a(3), a(4)])]
    got = exchange.route(sends)
    assert [x.tolist() for x in got[1]] == [[0, 1], [0, 1, 2, 3]]
    gathered = exchange.route([exchange.allgather((a(2), a(1))), exchange.allgather((a(1), a(2)))])
    assert [x.tolist() for x in gathered[0]] == [[0, 1, 0], [0, 0, 1]]
    assert exchange.route([exchange.allreduce(3, "min"), exchange.allreduce(2, "min")]) == [2, 2]
    with pytest.raises(RuntimeError, match="out of step"):
        exchange.route([exchange.allreduce(1), exchange.allgather(a(1))])


def test_drive_with_a_communicator():
    class Alone(exchange.Communicator):  # one part: each collective gives back its input
        rank, size = 0, 1

        def alltoall(self, sends):
            return list(sends)

        def allgather(self, data):
            return data

        def allreduce(self, data, op):
            return data

    G = gravel.generate.grid(3, 3)
    (part,) = gd.split(G, 1)
    depth, *_ = exchange.drive(gd.algorithms.bfs_program(part, 0), Alone())
    assert np.array_equal(depth, gravel.bfs(G, 0, device="cpu").depth)


# -- the algorithms, checked against the single-process CPU path --------------------------------


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


ARRAYS = {
    "bfs": ("depth", "parent"),
    "sssp": ("distance", "predecessor"),
    "pagerank": ("rank",),
    "cc": ("labels",),
}


def _call(algo, G, **kw):
    if algo == "bfs":
        return gd.bfs(G, 1, **kw)
    if algo == "sssp":
        return gd.sssp(G, 1, delta=2.0, **kw)
    if algo == "pagerank":
        return gd.pagerank(G, **kw)
    return gd.connected_components(G, **kw)


def check_left_distributed(algo, G, kept, whole, bounds, *, local):
    for name in ARRAYS[algo]:
        arrays = getattr(kept, name)
        assert isinstance(arrays, gd.PartArrays) and len(arrays) == G.n
        assert [int(o) for o, _ in arrays] == bounds[:-1].tolist()
        assert all(isinstance(p, np.ndarray) == local for _, p in arrays)
        want = getattr(whole, name)
        np.testing.assert_array_equal(arrays.gather(), want)
        np.testing.assert_array_equal(np.asarray(arrays), want)
        # slices in this process compute on Dask's threads, whatever scheduler an earlier test's
        # client left as Dask's default
        scheduler = "threads" if local else None
        np.testing.assert_array_equal(arrays.to_dask().compute(scheduler=scheduler), want)
    assert kept.iterations == whole.iterations


@pytest.mark.parametrize("algo", list(ARRAYS))
@pytest.mark.parametrize("parts", [1, 3, 4])
def test_results_left_in_process(algo, parts):
    pytest.importorskip("dask")
    G = gravel.generate.kronecker(7, 8, directed=True, seed=1)
    kept = _call(algo, G, parts=parts, cluster="in-process", gather=False)
    whole = _call(algo, G, parts=parts, cluster="in-process")
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


# -- on Dask workers ---------------------------------------------------------------------------


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
        kept = _call(algo, DG, gather=False)
        check_left_distributed(algo, kron, kept, _call(algo, DG), DG.bounds, local=False)
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


def test_issue_21_more_gpus_than_there_are_fails_before_any_work():
    pytest.importorskip("distributed")
    from gravel.distributed import gpu

    count = gpu.device_count()
    with pytest.raises(InvalidArgumentError, match=f"asked for {count + 1} GPUs"):
        gd.bfs(gravel.generate.grid(2, 2), 0, gpus=count + 1)


class _Client:
    """A stand-in distributed.Client: its `run` answers as one worker on GPU 0 (or fails, with
    `fail="run"`), `wait_for_workers` fails with `fail="wait"`; closes and restarts are recorded."""

    events = []
    fail = None
    pid = 2**22 + 4321  # past Linux's largest process id: no such process

    def __init__(self, target=None):
        pass

    def wait_for_workers(self, count):
        if self.fail == "wait":
            raise TimeoutError(f"{count} workers did not come")

    def run(self, fn, *args):
        if self.fail == "run":
            raise RuntimeError("a worker failed its setup")
        return {"tcp://127.0.0.1:1": self.pid if fn is os.getpid else "0"}

    class scheduler:  # the scheduler's RPC, as Client.scheduler
        @staticmethod
        def identity(n_workers=-1):
            return {"workers": {"tcp://127.0.0.1:1": {}}}

    def sync(self, fn, **kwargs):
        return fn(**kwargs)

    def submit(self, *args, **kwargs):
        return object()

    def cancel(self, futures):
        pass

    def restart(self):
        self.events.append("restart")

    def close(self):
        self.events.append("client")


class _Local:
    """A stand-in local cluster (SpecCluster, LocalCluster); with `slow`, its close runs out of
    time waiting for a killed worker to end, as Dask's does."""

    slow = False

    def __init__(self, *args, **kwargs):
        pass

    def close(self):
        _Client.events.append("cluster")
        if self.slow:
            raise TimeoutError


@pytest.fixture
def stand_ins(monkeypatch):
    """distributed's Client and local clusters replaced, GPUs faked; yields the events list."""
    distributed = pytest.importorskip("distributed")
    from gravel.distributed import gpu

    monkeypatch.setattr(gpu, "check_gpus", lambda count: count)
    monkeypatch.setattr(gpu, "worker_gpus", lambda count: [str(g) for g in range(count)])
    for name in ("SpecCluster", "LocalCluster"):
        monkeypatch.setattr(distributed, name, _Local)
    monkeypatch.setattr(distributed, "Client", _Client)
    monkeypatch.setattr(_Client, "events", [])
    return _Client.events


def _nccl_fails(*args, **kwargs):
    raise RuntimeError("NCCL init failed")


#: how each cluster kind is started: (keyword arguments, what its close must close)
STARTS = {
    "local": ({}, ["client", "cluster"]),
    "address": ({"client": "tcp://127.0.0.1:8786"}, ["client"]),
    "given": ({"client": _Client()}, []),  # a given client is left running
}
#: the failures each start can meet: only a cluster it starts is waited for, only GPUs use NCCL
FAILURES = [
    (cls, start, fail)
    for cls in ("Cluster", "GPUCluster")
    for start in STARTS
    for fail in ("wait", "run", "nccl")
    if (fail != "wait" or start == "local") and (fail != "nccl" or cls == "GPUCluster")
]


def _make(cls, start):
    """A cluster of kind `cls` (stand-ins beneath), started the `start` way."""
    from gravel.distributed import gpu

    how = STARTS[start][0] or ({"gpus": 2} if cls == "GPUCluster" else {"parts": 2})
    return gpu.GPUCluster(**how) if cls == "GPUCluster" else gd.Cluster(**how)


@pytest.mark.parametrize(("cls", "start", "fail"), FAILURES)
def test_issue_21_cluster_that_fails_to_start_closes_what_it_started(
    stand_ins, monkeypatch, cls, start, fail
):
    from gravel.distributed import gpu

    if fail == "nccl":
        monkeypatch.setattr(gpu, "gather", _nccl_fails)
    else:
        monkeypatch.setattr(_Client, "fail", fail)
    with pytest.raises((TimeoutError, RuntimeError)):
        _make(cls, start)
    # workers that may sit in a failed NCCL init are restarted, once, and not joined again
    restarts = ["restart"] if fail == "nccl" and start != "local" else []
    assert stand_ins == restarts + STARTS[start][1]


@pytest.mark.parametrize("cls", ["Cluster", "GPUCluster"])
@pytest.mark.parametrize("start", list(STARTS))
def test_issue_21_cluster_close_closes_what_it_started_once(stand_ins, monkeypatch, cls, start):
    from gravel.distributed import gpu

    monkeypatch.setattr(gpu, "gather", lambda client, futures, *args, **kw: [None] * len(futures))
    cluster = _make(cls, start)
    cluster.close()
    cluster.close()
    assert stand_ins == STARTS[start][1]


@pytest.mark.parametrize("cls", ["Cluster", "GPUCluster"])
def test_issue_21_a_worker_slow_to_end_is_waited_for(stand_ins, monkeypatch, cls):
    """Dask's close gives up on a killed worker after 5 s (kron:30:13's parts took longer to
    free): the close waits for the workers' processes itself, and names any left running."""
    from gravel.distributed import cluster, gpu

    monkeypatch.setattr(gpu, "gather", lambda client, futures, *args, **kw: [None] * len(futures))
    monkeypatch.setattr(_Local, "slow", True)
    _make(cls, "local").close()  # its worker has ended: no error
    assert stand_ins == ["client", "cluster"]
    monkeypatch.setattr(_Client, "pid", os.getpid())  # a worker that never ends
    monkeypatch.setattr(cluster, "WORKER_EXIT_S", 0.2)
    with pytest.raises(GravelError, match=f"worker processes \\[{os.getpid()}\\] were still"):
        _make(cls, "local").close()


def test_issue_21_dask_giving_up_on_a_killed_worker_is_no_error(monkeypatch):
    """Real workers whose nanny waits almost no time for them to end (as a worker freeing a big
    part outlasts Dask's 5 s): Dask's close raises TimeoutError, the cluster's close waits for
    the processes instead, and none is left running."""
    distributed = pytest.importorskip("distributed")
    from gravel.distributed.cluster import wait_ended

    close = distributed.Nanny.close

    async def impatient(self, timeout=5, reason="nanny-close"):
        return await close(self, timeout=0.001, reason=reason)

    cluster = gd.Cluster(parts=2)
    pids = cluster._pids
    assert len(pids) == 2 and os.getpid() not in pids
    monkeypatch.setattr(distributed.Nanny, "close", impatient)
    cluster.close()
    assert wait_ended(pids, 5.0) == []


def test_a_zombie_has_ended():
    from gravel.distributed.cluster import _running, wait_ended

    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        assert wait_ended([pid], 10.0) == []  # ended, not yet reaped
    finally:
        os.waitpid(pid, 0)
    assert not _running(pid) and _running(os.getpid())
    assert wait_ended([os.getpid()], 0.1) == [os.getpid()]


# -- the command line --------------------------------------------------------------------------


def test_gravel_run_with_parts(tmp_path, capsys):
    pytest.importorskip("distributed")
    import json

    from gravel.cli import main

    out = tmp_path / "depth.npy"
    argv = ["run", "bfs", "grid:6x5", "--source", "7", "--parts", "2", "--json", "-o", str(out)]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["parts"] == 2 and "distributed" in summary["strategy"]
    assert np.array_equal(
        np.load(out), gravel.bfs(gravel.generate.grid(6, 5), 7, device="cpu").depth
    )


@pytest.mark.parametrize(
    ("algo", "reference", "field"),
    [
        ("tc", lambda G: gravel.triangles(G, device="cpu").triangles, "triangles"),
        ("kcore", lambda G: gravel.core_number(G, device="cpu").core, "core"),
        ("bc", lambda G: gravel.betweenness_centrality(G, device="cpu").centrality, "centrality"),
    ],
)
def test_gravel_run_counts_and_centrality_on_parts(algo, reference, field, tmp_path, capsys):
    pytest.importorskip("distributed")
    from gravel.cli import main

    out = tmp_path / f"{field}.npy"
    assert main(["run", algo, "kron:7", "--parts", "2", "--json", "-o", str(out)]) == 0
    assert "distributed" in capsys.readouterr().out
    np.testing.assert_allclose(np.load(out), reference(gravel.generate.from_spec("kron:7")))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "hits", "grid:3x3", "--parts", "2"], "--parts runs bfs, sssp, pagerank, cc, bc"),
        (["run", "bfs", "grid:3x3", "--parts", "0"], "--parts must be at least 1"),
        (["run", "bfs", "grid:3x3", "--parts", "2", "--device", "cuda"], "CPU workers"),
    ],
)
def test_gravel_run_parts_errors(argv, says, capsys):
    from gravel.cli import main

    assert main(argv) == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("algo", timing.ALGOS)
def test_every_timed_algorithm_runs_on_parts_and_matches(algo):
    """Each name `gravel bench --gpus` and benchmarks/multigpu.py time gives a row, and the run
    it times the single process's answer."""
    G = gravel.generate.kronecker(8, 8, seed=2)
    PG = gd.partition(G, 3)
    hub, delta = int(np.argmax(G.out_degree)), timing.delta_for(PG)
    row = timing.measure(PG, algo, name="kron:8", repeat=1, source=hub, delta=delta)
    assert row["parts"] == 3 and row["time_s"] > 0 and row["device"] == "cpu x3"
    got = timing.runner(PG, algo, hub, delta)()
    depth = gravel.bfs(G, hub, device="cpu").depth
    if algo in ("bfs", "bfs-program", "sssp"):  # unweighted: the distances are the depths
        named = {"bfs": "depth", "bfs-program": "state", "sssp": "distance"}[algo]
        dist, reached = np.asarray(getattr(got, named), float), depth >= 0
        np.testing.assert_array_equal(dist[reached], depth[reached])
        assert not np.any((dist[~reached] >= 0) & np.isfinite(dist[~reached]))
    elif algo == "cc":
        ref = gravel.connected_components(G, device="cpu").labels
        assert len(set(zip(got.labels.tolist(), ref.tolist()))) == len(set(ref.tolist()))
    elif algo == "tc":
        assert got.total == gravel.triangles(G, device="cpu").total
    elif algo == "kcore":
        np.testing.assert_array_equal(got.core, gravel.core_number(G, device="cpu").core)
    elif algo == "pagerank":
        ref = gravel.pagerank(G, max_iter=20, tol=0.0, weight=None, device="cpu").rank
        np.testing.assert_allclose(got.rank, ref, rtol=1e-9)
        assert row["algo"] == "pagerank/iteration" and row["iterations"] == 20
    elif algo == "pagerank-program":
        prog = programs.pagerank(tol=0.0)
        ref = programs.run(G, prog, max_iter=20, device="cpu", direction="pull").state
        np.testing.assert_allclose(got.state, ref, rtol=1e-12)
        assert row["algo"] == "pagerank-program/iteration" and row["iterations"] == 20
    else:
        pytest.fail(f"no check for {algo}")
