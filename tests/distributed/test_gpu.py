"""gravel.distributed on GPUs: parts built on the workers, the NCCL communicator, --gpus.

On the CPU: build_program against gravel.generate's graphs, the NCCL communicator's bookkeeping
over a fake ``cupy.cuda.nccl`` (threads standing in for GPUs, NumPy for device memory), the
part -> GPU assignment and the command line's errors. On a machine with 2 GPUs (``-m gpu``): every
algorithm on 2 GPUs against the single-process CPU path, and a worker lost mid-run.
"""

import ctypes
import queue
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel import programs as library
from gravel.arrays import host
from gravel.distributed import exchange, gpu, host_steps, programs, timing
from gravel.distributed.build import Source, build_program
from gravel.errors import InvalidArgumentError

from ..strategies import graphs
from .helpers import check_bfs, check_cc, check_pagerank, check_sssp

# -- parts built on the workers ----------------------------------------------------------------


@pytest.mark.parametrize("spec", ["kron:9", "urand:8:4", "grid:5x7"])
@pytest.mark.parametrize("parts", [1, 3])
def test_built_parts_are_the_generated_graphs(spec, parts):
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec, seed=2), 1, 9)
    source = Source(spec, seed=2, weights=9)
    built = exchange.run_in_process(range(parts), build_program, source, parts)
    bounds = built[0].bounds
    assert all(np.array_equal(p.bounds, bounds) for p in built)
    for p, want in zip(built, gd.split(G, parts, bounds), strict=True):
        for name in ("out_offsets", "out_targets", "out_weights", "in_offsets", "in_sources"):
            assert np.array_equal(getattr(p, name), getattr(want, name)), name


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["kron:11", "urand:10:4"])
@pytest.mark.parametrize("parts", [1, 3])
def test_parts_built_on_the_gpu_are_those_built_on_the_cpu(spec, parts):
    source = Source(spec, seed=2, weights=9)
    cpu = exchange.run_in_process(range(parts), build_program, source, parts)
    gpu = exchange.run_in_process(range(parts), build_program, source, parts, "cuda")
    for p, want in zip(gpu, cpu, strict=True):
        for name in ("bounds", "out_offsets", "out_targets", "out_weights"):
            assert np.array_equal(getattr(p, name), getattr(want, name)), name


def test_built_parts_balance_the_arcs():
    built = exchange.run_in_process(range(4), build_program, Source("kron:10"), 4)
    arcs = np.array([p.out_arcs for p in built])
    # cut by the degrees before duplicate edges are dropped: kron:10's duplicates skew it a little
    assert abs(arcs - arcs.mean()).max() < 0.25 * arcs.mean()


# -- the NCCL communicator over a fake cupy.cuda.nccl --------------------------------------------


class FakeArray(np.ndarray):
    """Host memory posing as device memory: ``.data.ptr`` and ``.get()`` as CuPy has them."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)

    def get(self):
        return np.array(self)


def _fake_cupy(world):
    sizes = {1: np.int8, 2: np.uint8, 3: np.int32, 4: np.uint32, 5: np.int64, 6: np.uint64}
    sizes |= {7: np.float32, 8: np.float64}
    local = threading.local()

    def dev(a, dtype=None):
        return np.asarray(a, dtype=dtype).view(FakeArray)

    def contiguous(a):
        return np.ascontiguousarray(a).view(FakeArray)

    def read(ptr, count, dtype):
        return np.frombuffer(ctypes.string_at(ptr, count * np.dtype(dtype).itemsize), dtype)

    def write(ptr, array):
        ctypes.memmove(ptr, np.ascontiguousarray(array).ctypes.data, array.nbytes)

    class Comm:
        def __init__(self, size, uid, rank):
            assert size == world["size"] and len(uid) == 128
            self.rank = rank

        def send(self, ptr, count, kind, peer, stream):
            post = world["mail"][self.rank, peer].put
            local.group.append((0, lambda: post(read(ptr, count, np.uint8))))

        def recv(self, ptr, count, kind, peer, stream):
            def take():
                got = world["mail"][peer, self.rank].get(timeout=20)
                assert got.size == count
                write(ptr, got)

            local.group.append((1, take))

        def _everyone(self, mine):
            world["slots"][self.rank] = mine
            world["barrier"].wait()
            out = list(world["slots"])
            world["barrier"].wait()
            return out

        def allGather(self, send, recv, count, kind, stream):
            write(recv, np.concatenate(self._everyone(read(send, count, sizes[kind]))))

        def allReduce(self, send, recv, count, kind, op, stream):
            ufunc = {0: np.add, 1: np.minimum, 2: np.maximum}[op]
            parts = self._everyone(read(send, count, sizes[kind]).copy())
            write(recv, ufunc.reduce(np.stack(parts)).astype(sizes[kind]))

        def abort(self):
            pass

    def group_start():
        local.group = []

    def group_end():
        ops, local.group = local.group, None
        for _, op in sorted(ops, key=lambda o: o[0]):  # a group's sends never wait on its recvs
            op()

    nccl = types.ModuleType("cupy.cuda.nccl")
    nccl.NcclCommunicator, nccl.groupStart, nccl.groupEnd = Comm, group_start, group_end
    nccl.get_unique_id = lambda: bytes(range(128))  # as CuPy 14 gives it
    names = ["INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64", "FLOAT32", "FLOAT64"]
    for k, name in enumerate(names, 1):
        setattr(nccl, f"NCCL_{name}", k)
    nccl.NCCL_SUM, nccl.NCCL_MIN, nccl.NCCL_MAX = 0, 1, 2
    stream = types.SimpleNamespace(ptr=0, synchronize=lambda: None)
    cuda = types.ModuleType("cupy.cuda")
    cuda.nccl, cuda.get_current_stream = nccl, lambda: stream
    cupy = types.ModuleType("cupy")
    cupy.cuda, cupy.ndarray, cupy.int64 = cuda, FakeArray, np.int64
    cupy.asarray = dev
    cupy.ascontiguousarray = contiguous
    cupy.empty = lambda n, dtype=np.float64: np.empty(n, dtype).view(FakeArray)
    cupy.empty_like = lambda a: np.empty_like(np.asarray(a)).view(FakeArray)
    return {"cupy": cupy, "cupy.cuda": cuda, "cupy.cuda.nccl": nccl}


def _plain(x):
    """The communicator's FakeArrays as NumPy arrays, for the CPU kernels (Numba)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x.view(np.ndarray) if isinstance(x, FakeArray) else x


@pytest.fixture
def fake_nccl(monkeypatch):
    """Run ``program(inputs[k], *args)`` for each rank k in a thread, over NcclCommunicator on a
    fake cupy.cuda.nccl; returns each rank's result (and keeps each rank's communicator as
    ``run.comms``)."""
    from gravel.distributed.nccl import NcclCommunicator, unique_id

    def run(inputs, program, *args):
        size = len(inputs)
        world = {
            "size": size,
            "slots": [None] * size,
            "barrier": threading.Barrier(size, timeout=20),
            "mail": {(a, b): queue.Queue() for a in range(size) for b in range(size)},
        }
        for name, module in _fake_cupy(world).items():
            monkeypatch.setitem(sys.modules, name, module)
        uid = unique_id()

        class Plain(NcclCommunicator):
            def perform(self, collective):
                return _plain(super().perform(collective))

        computing = threading.Lock()  # Numba's workqueue layer aborts on concurrent kernels

        run.comms = [None] * size

        def one(rank):  # exchange.drive, each step's compute one thread at a time
            comm, g, reply = Plain(uid, rank, size), program(inputs[rank], *args), None
            run.comms[rank] = comm
            while True:
                with computing:
                    out = exchange.step(g, reply)
                if isinstance(out, exchange.Finished):
                    return out.value
                reply = comm.perform(out)

        with ThreadPoolExecutor(size) as pool:
            return list(pool.map(one, range(size)))

    return run


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_nccl_communicator_runs_every_algorithm(fake_nccl, parts):
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(8, 8, directed=True), 1, 9)
    pieces = gd.split(G, parts)
    s = int(np.argmax(G.out_degree))

    def joined(out, k=0):
        return np.concatenate([o[k] for o in out])

    out = fake_nccl(pieces, programs.bfs_program, s)
    check_bfs(G, s, types.SimpleNamespace(depth=joined(out), parent=joined(out, 1)))
    dist = joined(fake_nccl(pieces, programs.sssp_program, s, 3.0))
    np.testing.assert_allclose(dist, gravel.sssp(G, s, device="cpu").distance)
    out = fake_nccl(pieces, programs.pagerank_program, 0.85, 100, 1e-6, False)
    ref = gravel.pagerank(G, weight=None, device="cpu")
    np.testing.assert_allclose(joined(out), ref.rank, rtol=1e-9)  # host parts: float64
    assert out[0][1] == ref.iterations
    labels = joined(fake_nccl(pieces, programs.cc_program))
    assert np.array_equal(labels, gravel.connected_components(G, device="cpu").labels)


def _bfs_over_nccl(fake_nccl, G, s, parts, direction):
    out = fake_nccl(gd.split(G, parts), programs.bfs_program, s, direction)
    depth, parent = (np.concatenate([o[k] for o in out]) for k in (0, 1))
    check_bfs(G, s, types.SimpleNamespace(depth=depth, parent=parent))
    return out


@pytest.mark.parametrize("direction", ["auto", "top-down", "bottom-up"])
@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_nccl_bfs_each_direction_and_its_bytes(fake_nccl, parts, direction):
    G = gravel.generate.kronecker(9, 16, directed=True, seed=5)
    s = int(np.argmax(G.out_degree))
    out = _bfs_over_nccl(fake_nccl, G, s, parts, direction)
    assert len({o[2] for o in out}) == 1  # every part took the same directions
    assert (out[0][2] > 0) == (direction != "top-down")
    ref = gd.bfs(G, s, direction=direction, parts=parts, cluster="in-process").stats
    comms = fake_nccl.comms
    assert sum(c.exchange_bytes for c in comms) == ref["exchange_bytes"]
    assert comms[0].supersteps == ref["supersteps"]


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    G=graphs(max_n=40, max_m=120),
    parts=st.integers(1, 4),
    direction=st.sampled_from(programs.DIRECTIONS),
    data=st.data(),
)
def test_nccl_bfs_hypothesis_graphs(fake_nccl, G, parts, direction, data):
    if G.n:
        _bfs_over_nccl(fake_nccl, G, data.draw(st.integers(0, G.n - 1)), parts, direction)


def test_bfs_chunks_and_sparse_levels(monkeypatch):
    G = gravel.generate.kronecker(9, 8)
    monkeypatch.setattr(host_steps, "CHUNK_ARCS", 64)
    check_bfs(G, 3, gd.bfs(G, 3, parts=3, cluster="in-process"))
    monkeypatch.setattr(host_steps, "DENSE_LEVEL", 0)  # never dense: every level sorts
    check_bfs(G, 3, gd.bfs(G, 3, parts=3, cluster="in-process"))


@pytest.mark.parametrize("chunk", [1, 64, 1 << 27])
def test_sssp_relaxes_its_near_arcs_in_chunks(monkeypatch, chunk):
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(9, 8), 1, 9)
    monkeypatch.setattr(host_steps, "CHUNK_ARCS", chunk)
    for delta in (1.0, 40.0):
        check_sssp(G, 3, gd.sssp(G, 3, delta=delta, parts=3, cluster="in-process"))


@pytest.mark.parametrize("algo", timing.ALGOS)
def test_timing_rows(algo):
    G = gravel.generate.kronecker(8, 8)
    row = timing.measure(gd.partition(G, 2), algo, name="kron", repeat=2, source=3, delta=2.0)
    assert row["parts"] == 2 and row["min_s"] <= row["time_s"] <= row["max_s"]
    assert row["exchange_s"] >= 0 and row["gteps"] > 0 and row["exchange_bytes"] > 0


# -- GPUs: assignment and errors before any work -----------------------------------------------


def test_worker_k_takes_the_kth_visible_gpu():
    assert gpu.worker_gpus(2, visible="") == ["0", "1"]
    assert gpu.worker_gpus(2, visible="3, 1,0") == ["3", "1"]
    with pytest.raises(InvalidArgumentError, match="CUDA_VISIBLE_DEVICES=5"):
        gpu.worker_gpus(2, visible="5")


@pytest.mark.parametrize(
    ("gpus", "says"),
    [
        (3, "asked for 3 GPUs, but this machine has 2"),
        (0, "gpus must be at least 1, not 0"),
        ("2", "gpus must be an integer"),
    ],
)
def test_check_gpus(gpus, says):
    with pytest.raises(InvalidArgumentError, match=says):
        gpu.check_gpus(gpus, count=2)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "bfs", "kron:6", "--gpus", "64"], "asked for 64 GPUs"),
        (["run", "bfs", "kron:6", "--gpus", "0"], "at least 1"),
        (["run", "hits", "kron:6", "--gpus", "1"], "--gpus runs bfs, sssp, pagerank, cc, bc"),
        (["run", "bfs", "kron:6", "--gpus", "1", "--parts", "2"], "not both"),
        (["run", "bfs", "kron:6", "--gpus", "1", "--device", "cpu"], "leave out --device cpu"),
        (["bench", "kron:6", "--gpus", "64"], "asked for 64 GPUs"),
        (["bench", "kron:6", "--gpus", "1", "--algo", "hits"], "--gpus times"),
        (["bench", "kron:6", "--gpus", "1", "--algo", "bc"], "--gpus times bfs, sssp"),
    ],
)
def test_gpus_errors_before_any_work(argv, says, capsys):
    from gravel.cli import main

    assert main(argv) == 2
    assert says in capsys.readouterr().err


# -- on 2 GPUs -----------------------------------------------------------------------------------


def _two_gpus():
    if gpu.device_count() < 2:
        pytest.skip(f"needs 2 GPUs, this machine has {gpu.device_count()}")
    pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def two():
    _two_gpus()
    with gd.GPUCluster(2) as cluster:
        yield cluster


@pytest.mark.gpu
@pytest.mark.parametrize("algo", ["bfs", "sssp", "pagerank", "cc"])
def test_two_gpus_built_on_workers(two, algo):
    G = gravel.generate.from_spec("kron:12")
    DG = two.load("kron:12")
    try:
        assert DG.nnz == G.nnz and DG.n == G.n
        s = int(np.argmax(G.out_degree))
        if algo == "bfs":
            check_bfs(G, s, gd.bfs(DG, s))
        elif algo == "sssp":
            check_sssp(G, s, gd.sssp(DG, s, delta=2.0))
        elif algo == "pagerank":
            check_pagerank(G, gd.pagerank(DG), gpu=True)
        else:
            check_cc(G, gd.connected_components(DG))
    finally:
        DG.free()


@pytest.mark.gpu
@pytest.mark.parametrize("algo", ["bfs", "sssp", "pagerank", "cc"])
def test_two_gpus_weighted_directed_graph_sent(two, algo):
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(11, 8, directed=True), 1, 9)
    s = int(np.argmax(G.out_degree))
    if algo == "bfs":
        res = gd.bfs(G, s, cluster=two)
        assert res.device == "cuda"
        check_bfs(G, s, res)
    elif algo == "sssp":
        check_sssp(G, s, gd.sssp(G, s, cluster=two))
    elif algo == "pagerank":
        check_pagerank(G, gd.pagerank(G, cluster=two), gpu=True)
    else:
        check_cc(G, gd.connected_components(G, cluster=two))


@pytest.mark.gpu
def test_two_gpus_betweenness_triangles_and_core_numbers(two):
    G = gravel.generate.kronecker(10, 8, directed=True)
    got = gd.betweenness_centrality(G, k=40, seed=1, cluster=two)
    ref = gravel.betweenness_centrality(G, k=40, seed=1, device="cpu")
    assert got.device == "cuda" and got.stats["parts"] == 2
    np.testing.assert_allclose(got.centrality, ref.centrality, rtol=1e-9, atol=1e-12)
    got, ref = gd.triangles(G, cluster=two), gravel.triangles(G, device="cpu")
    assert got.total == ref.total and np.array_equal(got.triangles, ref.triangles)
    core = gd.core_number(G, cluster=two).core
    np.testing.assert_array_equal(core, gravel.core_number(G, device="cpu").core)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "connected_components"])
def test_two_gpus_vertex_programs(two, name):
    """The library's programs over NCCL, against the single machine's pull run on the CPU."""
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(10, 8, directed=True), 1, 9)
    prog = getattr(library, name)()
    params = {"source": int(np.argmax(G.out_degree))} if name in ("bfs", "sssp") else None
    got = gd.run_program(G, prog, params=params, cluster=two)
    ref = library.run(G, prog, params=params, device="cpu", direction="pull")
    assert got.device == "cuda" and got.stats["parts"] == 2
    assert (got.iterations, got.converged) == (ref.iterations, ref.converged)
    np.testing.assert_allclose(got.state, ref.state, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
def test_two_gpus_results_left_on_the_gpus(two):
    G = gravel.generate.kronecker(11, 8, directed=True)
    DG = two.load(G)
    try:
        s = int(np.argmax(G.out_degree))
        kept = gd.bfs(DG, s, gather=False)
        (a, da), (b, db) = kept.depth
        assert (a, b) == (0, DG.bounds[1]) and kept.device == "cuda"
        assert two.client.submit(lambda x: type(x).__module__, da).result().startswith("cupy")
        check_bfs(
            G, s, types.SimpleNamespace(depth=kept.depth.gather(), parent=kept.parent.gather())
        )
        labels = gd.connected_components(DG, gather=False).labels
        on_gpus = labels.to_dask().compute()  # the parts' CuPy chunks, joined on a GPU
        np.testing.assert_array_equal(host(on_gpus), gd.connected_components(DG).labels)
    finally:
        DG.free()


@pytest.mark.gpu
def test_gravel_run_with_gpus(tmp_path, capsys):
    _two_gpus()
    import json

    from gravel.cli import main

    out = tmp_path / "depth.npy"
    argv = ["run", "bfs", "kron:10", "--source", "5", "--gpus", "2", "--json", "-o", str(out)]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["parts"] == 2 and summary["device"] == "cuda"
    expect = gravel.bfs(gravel.generate.from_spec("kron:10"), 5, device="cpu").depth
    assert np.array_equal(np.load(out), expect)


@pytest.mark.gpu
def test_a_lost_gpu_worker_is_one_error_and_rerunnable():
    _two_gpus()

    def dies_on_part_one(part):  # nested: pickled by value for the workers
        yield exchange.allreduce(1)
        if part.index == 1:
            import os

            os._exit(1)
        yield exchange.allreduce(1)

    G = gravel.generate.kronecker(8, 8)
    cluster = gd.GPUCluster(2)
    DG = cluster.load(G)
    with pytest.raises(gd.WorkerLostError, match=r"GPU 1.*shut down"):
        DG.run(dies_on_part_one)
    with gd.GPUCluster(2) as again:
        check_bfs(G, 0, gd.bfs(G, 0, cluster=again))


@pytest.mark.gpu
def test_a_failing_gpu_part_raises_without_hanging():
    _two_gpus()

    def fails_on_part_one(part):  # nested: pickled by value for the workers
        yield exchange.allreduce(1)
        if part.index == 1:
            raise IndexError("part one fails")
        yield exchange.allreduce(1)  # part 0 waits here inside NCCL

    cluster = gd.GPUCluster(2)
    DG = cluster.load(gravel.generate.kronecker(8, 8))
    with pytest.raises(IndexError, match="part one fails"):
        DG.run(fails_on_part_one)
    assert cluster.client.status != "running"  # shut down: part 0 was inside NCCL
