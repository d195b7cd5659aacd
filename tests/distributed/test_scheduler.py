"""gravel on a Dask cluster started elsewhere, as across machines: a ``dask scheduler`` process and
two simulated hosts, each a ``dask worker`` process running two workers (its own name and local
directory); gravel connects by the scheduler's address, runs over 4 parts, and the cluster is
shut down with no process left."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest

import gravel
import gravel.distributed as gd

from .helpers import check_bfs, check_cc, check_pagerank

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

HOSTS = ("host-a", "host-b")
#: seconds for the scheduler to write its file, and for the workers to join it
START_S = 120.0


def _dask(*args, log):
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args], stdout=log, stderr=subprocess.STDOUT
    )


def _address(path, proc):
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists():
            try:
                return json.loads(path.read_text())["address"]
            except (ValueError, KeyError):  # being written
                pass
        time.sleep(0.1)
    raise AssertionError(f"the scheduler did not start (exit {proc.poll()})")


def _tree(procs):
    """The processes started, and their descendants (the workers under each nanny)."""
    out = []
    for p in procs:
        try:
            root = psutil.Process(p.pid)
            out += [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    return out


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """The scheduler's address, with 2 hosts x 2 workers joined; all shut down after."""
    tmp = tmp_path_factory.mktemp("dask")
    file, log = tmp / "scheduler.json", open(tmp / "log.txt", "w")
    procs = [_dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                   "--scheduler-file", str(file), log=log)]  # fmt: skip
    try:
        address = _address(file, procs[0])
        for host in HOSTS:
            (tmp / host).mkdir()
            args = ["worker", address, "--nworkers", "2", "--nthreads", "1", "--name", host]
            args += ["--local-directory", str(tmp / host), "--no-dashboard"]
            procs.append(_dask(*args, log=log))
        with distributed.Client(address) as client:
            client.wait_for_workers(4, timeout=START_S)
            seen = _tree(procs)
            yield address
            client.shutdown()  # the scheduler and every worker
        for p in procs:
            p.wait(timeout=START_S)
        _, running = psutil.wait_procs(seen, timeout=START_S)
        assert running == [], f"left running: {running}"
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        log.close()


def workers(client):
    """The scheduler's workers by address, asked of it (the client's cached copy may lack them)."""
    return client.sync(client.scheduler.identity, n_workers=-1)["workers"]


def test_four_parts_over_two_hosts_by_address(scheduler):
    G = gravel.generate.kronecker(8, 8, directed=True, seed=6)
    s = int(np.argmax(G.out_degree))
    with gd.Cluster(client=scheduler) as cluster:
        names = {a: w["name"] for a, w in workers(cluster.client).items()}
        assert sorted(names.values()) == [f"{h}-{i}" for h in HOSTS for i in range(2)]
        DG = cluster.load(G, 4)
        try:
            held = cluster.client.who_has(DG.futures)
            assert sorted(names[held[f.key][0]] for f in DG.futures) == sorted(names.values())
            check_bfs(G, s, gd.bfs(DG, s))
            check_pagerank(G, gd.pagerank(DG))
            check_cc(G, gd.connected_components(DG))
        finally:
            DG.free()
    with distributed.Client(scheduler) as client:  # the close left the workers running
        assert set(workers(client)) == set(names)


def test_a_call_given_the_address_leaves_the_workers(scheduler):
    G = gravel.generate.kronecker(7, 8, seed=2)
    res = gd.triangles(G, parts=4, cluster=scheduler)
    assert res.total == gravel.triangles(G, device="cpu").total and res.stats["parts"] == 4
    check_cc(G, gd.connected_components(G, parts=4, cluster=scheduler))
    with distributed.Client(scheduler) as client:
        assert len(workers(client)) == 4
        assert sum(len(keys) for keys in client.has_what().values()) == 0  # parts freed
