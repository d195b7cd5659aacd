"""Starting and closing gravel.distributed's clusters (Cluster, GPUCluster): without Dask they name
the install, asking for more GPUs than there are fails before any work, and, over stand-ins for
Dask's client and local clusters, a cluster that fails to start (the wait for its workers, their
setup, NCCL's init) closes what it started, a close closes it once, and a worker slow to end is
waited for (issue 21); on real workers, Dask giving up on a killed worker is no error, and a
zombie process counts as ended."""

import os
import sys

import pytest

import gravel
import gravel.distributed as gd
from gravel.errors import GravelError, InvalidArgumentError, MissingDependencyError


@pytest.mark.parametrize("make", [lambda: gd.Cluster(parts=1), lambda: gd.GPUCluster(1)])
def test_clusters_without_dask_name_the_install(make, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    with pytest.raises(MissingDependencyError, match=r"pip install 'gravel\[distributed\]'"):
        make()


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
