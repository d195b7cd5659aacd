"""A Dask worker killed (SIGKILL) at each stage of a run on real CPU workers (the cluster's start,
the load, a step, the gather, the close; and while its process starts or joins): one
WorkerLostError naming the worker and its part, within the documented time, and no worker process
left behind. And distributed SSSP and BFS from a source named by its label."""

import os
import re
import signal
import threading
import time

import networkx as nx
import numpy as np
import pytest

import gravel
import gravel.distributed as gd
from gravel.distributed import exchange

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

#: seconds from the kill to the error, the cluster closed: POLL_S (twice where the scheduler is
#: waited on) to notice the loss, and the close (1 to 6 s in all on a loaded 2-core machine),
#: with room for a CI machine running other tests beside
BOUND_S = 15.0
#: seconds a test may take in all before it counts as hung
HUNG_S = 60.0
#: "stalled gather": the gather waits on after the kill, as one whose data went with the worker
#: does while Dask reschedules the task that made it (a wait that never ends on its own)
STAGES = ("start", "load", "compute", "gather", "stalled gather", "close")


def _kill_part_one(client, killed):
    """SIGKILL the worker that holds (or is to hold) part 1 and wait for its process to end;
    note its address and the time of the kill."""
    pids = client.run(os.getpid)
    address = sorted(pids)[1]  # parts go round the workers in the order of their addresses
    worker = psutil.Process(pids[address])  # before the kill: its nanny may reap it at once
    os.kill(pids[address], signal.SIGKILL)
    killed.update(address=address, at=time.monotonic())
    while time.monotonic() - killed["at"] < HUNG_S:
        try:
            if worker.status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.01)


def _once(fn):
    """`fn` on the first call only."""
    done = []

    def first(*args):
        if not done:
            done.append(fn(*args))

    return first


def _arm(stage, monkeypatch, killed, release):
    """Patch the run so that the worker of part 1 is killed at `stage` (a stalled gather waits
    for `release` after it)."""
    kill = _once(lambda client: _kill_part_one(client, killed))

    def before(cls, name, client_of):
        real = getattr(cls, name)

        def wrapped(self, *args, **kwargs):
            kill(client_of(self))
            if stage == "stalled gather":
                release.wait(HUNG_S)
            return real(self, *args, **kwargs)

        monkeypatch.setattr(cls, name, wrapped)

    if stage == "start":  # the workers have started; the cluster has not yet taken them
        before(gd.Cluster, "_join", lambda c: c.client)
    elif stage == "load":
        before(gd.Cluster, "load", lambda c: c.client)
    elif "gather" in stage:  # the step's tasks are done; their results are on their way here
        before(distributed.Client, "gather", lambda client: client)
    elif stage == "close":
        before(gd.Cluster, "close", lambda c: c.client)


def _dies_mid_step():
    """A program whose part 1 is killed while it computes its second step (nested: pickled by
    value for the workers)."""

    def program(part):
        yield exchange.allreduce(1)
        if part.index == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        yield exchange.allreduce(1)
        return part.index

    return program


def _workers_left(before):
    """This process's children started since `before` that still run (zombies have ended),
    leaving out multiprocessing's resource tracker, which lives as long as this process."""
    left = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.pid in before or p.status() == psutil.STATUS_ZOMBIE:
                continue
            if "resource_tracker" not in " ".join(p.cmdline()):
                left.append(p)
        except psutil.NoSuchProcess:
            continue
    return left


def _within(seconds, fn):
    """`fn()`'s outcome, failing the test where it takes more than `seconds` (a hang)."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # handed to the test's thread
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s: a hang"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _run_stage(stage, G, killed):
    if stage != "compute":  # a call that starts its own cluster (CC: no JIT in the workers)
        return gd.connected_components(G, parts=2)
    with gd.Cluster(parts=2) as c:
        DG = c.load(G)
        killed.update(address=c.worker_of(1), at=time.monotonic())  # it is killed in its step
        return DG.run(_dies_mid_step())


@pytest.mark.slow
@pytest.mark.parametrize("stage", STAGES)
def test_a_worker_killed_at_each_stage(stage, monkeypatch, request):
    G = gravel.generate.kronecker(8, 8, directed=True)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    killed, release = {}, threading.Event()
    request.addfinalizer(release.set)
    _arm(stage, monkeypatch, killed, release)
    with pytest.raises(gd.WorkerLostError) as error:
        _within(HUNG_S, lambda: _run_stage(stage, G, killed))
    assert "at" in killed, f"the run failed before the kill: {error.value!r}"
    took = time.monotonic() - killed["at"]
    assert re.search(f"worker {re.escape(killed['address'])}\\b.*part 1\\b", str(error.value))
    assert took < BOUND_S, f"{took:.1f} s from the kill to the error"
    assert _workers_left(before) == []


def _kill_first_spawned(before, killed):
    """SIGKILL the first worker process started after `before` as soon as it appears (while it
    still imports Dask: before it joins the cluster); note the time."""
    deadline = time.monotonic() + HUNG_S
    while time.monotonic() < deadline and not killed:
        for p in psutil.Process().children(recursive=True):
            try:
                if p.pid not in before and "spawn_main" in " ".join(p.cmdline()):
                    p.kill()
                    killed.update(pid=p.pid, at=time.monotonic())
                    return
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.005)


@pytest.mark.slow
def test_a_worker_killed_while_it_starts():
    """Killed before its worker joins the cluster: Dask's nanny fails to start it, and the call
    ends with a WorkerLostError that says so (no worker address or part exists yet)."""
    G = gravel.generate.kronecker(8, 8, directed=True)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    killed = {}
    killer = threading.Thread(target=_kill_first_spawned, args=(before, killed), daemon=True)
    killer.start()
    with pytest.raises(gd.WorkerLostError, match="ended while the cluster started, before it"):
        _within(HUNG_S, lambda: gd.connected_components(G, parts=2))
    killer.join()
    assert time.monotonic() - killed["at"] < BOUND_S
    assert _workers_left(before) == []


@pytest.mark.slow
def test_a_worker_killed_once_it_joined(monkeypatch):
    """Killed once the cluster has its workers, before gravel asks for their process ids: the
    same error where the question meets the closed connection; else the scheduler had dropped
    the worker, Dask's nanny starts another, and the call goes on to the right result."""
    from .helpers import check_cc

    G = gravel.generate.kronecker(8, 8, directed=True)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    killed, real = {}, distributed.Client.wait_for_workers

    def wait_then_kill(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        if not killed:
            _kill_part_one(self, killed)
        return out

    monkeypatch.setattr(distributed.Client, "wait_for_workers", wait_then_kill)
    try:
        check_cc(G, _within(HUNG_S, lambda: gd.connected_components(G, parts=2)))
    except gd.WorkerLostError as e:
        assert "ended while the cluster started, before it held a part" in str(e)
    assert time.monotonic() - killed["at"] < BOUND_S
    assert _workers_left(before) == []


@pytest.mark.slow
def test_a_graph_whose_worker_left_fails_at_once_on_a_given_cluster():
    """A worker lost between two runs: the next run names it at once; the cluster, given to the
    calls, is left to its owner, whose close has nothing more to report."""
    G = gravel.generate.kronecker(8, 8, directed=True)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    killed = {}
    with gd.Cluster(parts=2) as c:
        DG = c.load(G)
        first = gd.connected_components(DG, cluster=c).labels
        assert np.array_equal(first, gravel.connected_components(G, device="cpu").labels)
        _kill_part_one(c.client, killed)
        with pytest.raises(gd.WorkerLostError, match="the worker of part 1, left the cluster"):
            _within(HUNG_S, lambda: gd.connected_components(DG, cluster=c))
        took = time.monotonic() - killed["at"]
        assert killed["address"] in c.workers and took < BOUND_S
    assert _workers_left(before) == []


# -- a source named by its label -----------------------------------------------------------------


def _labelled():
    """A weighted directed graph whose vertices are named by strings, and its NetworkX twin."""
    rng = np.random.default_rng(51)
    nxg = nx.gnm_random_graph(30, 90, seed=51, directed=True)
    names = {v: f"v{v}" for v in nxg}
    for u, v in nxg.edges:
        nxg.edges[u, v]["weight"] = float(rng.integers(1, 9))
    nxg = nx.relabel_nodes(nxg, names)
    return gravel.Graph.from_networkx(nxg), nxg


def _check_sssp_from(G, nxg, label, res):
    s = int(np.flatnonzero(G.labels == label)[0])
    ref = nx.single_source_dijkstra_path_length(nxg, label)
    want = np.array([ref.get(name, np.inf) for name in G.labels])
    np.testing.assert_allclose(res.distance, want)
    assert res.source == s == gravel.sssp(G, label, device="cpu").source


@pytest.mark.parametrize("label", ["v0", "v7", "v29"])
def test_sssp_from_a_label_in_process(label):
    G, nxg = _labelled()
    _check_sssp_from(G, nxg, label, gd.sssp(G, label, parts=3, cluster="in-process"))
    _check_sssp_from(G, nxg, label, gd.sssp(gd.partition(G, 2), label, delta=4.0))
    s = int(np.flatnonzero(G.labels == label)[0])
    depth = gd.bfs(gd.partition(G, 2), label).depth
    assert np.array_equal(depth, gravel.bfs(G, s, device="cpu").depth)


@pytest.mark.parametrize("source", ["nobody", 30, -1, 2.5])
def test_sssp_from_no_vertex_fails_before_any_work(source):
    G, _ = _labelled()
    for graph in (G, gd.partition(G, 2)):
        with pytest.raises(gravel.VertexNotFoundError, match=re.escape(repr(source))):
            gd.sssp(graph, source, parts=2, cluster="in-process", delta=4.0)
    with pytest.raises(gravel.VertexNotFoundError, match="nobody"):
        gd.sssp(G, "nobody")  # no cluster is started: the source is checked first


@pytest.mark.slow
def test_sssp_from_a_label_on_workers():
    G, nxg = _labelled()
    with gd.Cluster(parts=2) as c:
        DG = c.load(G)
        _check_sssp_from(G, nxg, "v3", gd.sssp(DG, "v3", delta=4.0))
