"""The fused GPU engine (gravel.programs.fused): its generated kernel compiles with nvcc for every
library program and random ones (on any machine with nvcc), reads only what the program names,
and on a GPU gives the CPU engine's and the operator engine's results in one launch per chunk of
iterations."""

import importlib
import math
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import gravel
from gravel import programs
from gravel.backends.cuda import runtime
from gravel.programs import Program, fused
from gravel.programs.values import DTYPES
from gravel.transform import add_random_weights

from ..strategies import graphs
from .helpers import GRAPHS, LOWEST, PARENT_BFS, REACH, WIDEST, with_loops

LIBRARY = ("bfs", "sssp", "connected_components", "pagerank")
#: programs whose results are integers: equal bit for bit (sums and float mins to a tolerance)
EXACT = ("bfs", "connected_components")
#: programs the kernel's compile covers: the library's, and the helpers' (a custom reduce, a
#: structured state and message, bool messages, max-times)
COMPILED = {name: getattr(programs, name)() for name in LIBRARY} | {
    "lowest": LOWEST,
    "parent_bfs": PARENT_BFS,
    "reach": REACH,
    "widest": WIDEST,
}


@pytest.fixture(autouse=True)
def fused_engine(monkeypatch):
    """Every test here asks for the fused engine (the default engine is the operators')."""
    monkeypatch.setattr(gravel.config, "program_engine", "fused")


def nvcc(code, tmp_path):
    """Compile the fused kernel of `code` for sm_90 as CI compiles the kernels (device code only,
    assembled; the source as NVRTC gets it, headers inlined); fail with nvcc's output."""
    path = tmp_path / "loop.cu"
    path.write_text(runtime.source("programs/loop.cu", code.prelude))
    kernels = str(runtime.KERNELS)
    cmd = ["nvcc", "-arch=sm_90", "-std=c++17", "-DGRAVEL_INSTANTIATE", "-I", kernels]
    done = subprocess.run(
        [*cmd, "-cubin", str(path), "-o", str(tmp_path / "loop.cubin")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@needs_nvcc
@pytest.mark.parametrize("ways", [1, 2])
@pytest.mark.parametrize("name", list(COMPILED))
def test_generated_kernel_compiles(name, ways, tmp_path):
    nvcc(fused.source(COMPILED[name], ways, weighted=True), tmp_path)


@st.composite
def random_programs(draw):
    """A program of random dtypes, reduce, senders, direction and listen."""
    state, message = draw(st.sampled_from(DTYPES)), draw(st.sampled_from(DTYPES))
    reduce = draw(st.sampled_from(["sum", "min", "max", "or", "and", "any", "a if a < b else b"]))
    if reduce in ("or", "and") and message != np.bool_:  # or and and fold bool messages
        reduce = {"or": "max", "and": "min"}[reduce]
    return Program(
        state,
        message,
        init=draw(st.sampled_from(["v", "0", "v == source"])),
        start=draw(st.sampled_from(["True", "v == source", "v < n / 2"])),
        send=draw(st.sampled_from(["state", "state + 1", "v * 2 + iteration"])),
        process=draw(st.sampled_from(["message", "message * weight", "message + state"])),
        reduce=reduce,
        identity=message.type(1) if reduce.startswith("a if") else None,  # True for bool
        apply=draw(st.sampled_from(["total", "max(state, total)", "total + out_degree"])),
        active=draw(st.sampled_from([None, "state != old and iteration < 5", "in_degree > 0"])),
        direction=draw(st.sampled_from(["out", "in", "both"])),
        senders=draw(st.sampled_from(["active", "all"])),
        listen=draw(st.sampled_from([None, "state == 0", "v != source"])),
        params={"source": 0},
    )


@needs_nvcc
@settings(max_examples=3, deadline=None)
@given(program=random_programs(), ways=st.sampled_from([1, 2]), weighted=st.booleans())
def test_random_programs_compile(program, ways, weighted, tmp_path_factory):
    nvcc(fused.source(program, ways, weighted), tmp_path_factory.mktemp("nvcc"))


def test_code_names_only_what_the_program_reads():
    bfs = fused.source(programs.bfs(), 1, weighted=True)
    assert [k for k, _ in bfs.params] == ["st0", "ms0", "tt0", "gact", "grcv", "p_source"]
    assert "#define GRAVEL_PROG_WEIGHTED 0" in bfs.prelude  # no weights read
    assert "#define GRAVEL_PROG_ANY 1" in bfs.prelude  # a pull stops at the first sender
    pagerank = fused.source(programs.pagerank(), 1, weighted=False)
    assert "#define GRAVEL_PROG_ALL_SEND 1" in pagerank.prelude  # no active flag read per arc
    assert "gact[cur + u]" not in pagerank.prelude
    assert {"odeg", "gn", "p_alpha", "p_tol"} <= {k for k, _ in pagerank.params}
    sssp = fused.source(programs.sssp(), 1, weighted=True)
    assert "#define GRAVEL_PROG_WEIGHTED 1" in sssp.prelude
    assert "#define GRAVEL_PROG_WEIGHTED 0" in fused.source(programs.sssp(), 1, False).prelude
    # a reduce of the user's own pulls only: no totals, no received flags, no atomics
    lowest = fused.source(LOWEST, 2, weighted=False)
    assert "#define GRAVEL_PROG_CAN_PUSH 0" in lowest.prelude
    assert not {"tt0", "grcv"} & {k for k, _ in lowest.params}


def test_identities_are_exact_literals():
    assert fused._literal(np.iinfo(np.int64).min, np.dtype(np.int64)) == (
        "((long long)(-9223372036854775807LL - 1))"
    )
    assert fused._literal(np.inf, np.dtype(np.float64)) == "((double)(__int_as_float(0x7f800000)))"
    big = np.finfo(np.float64).max
    written = fused._literal(big, np.dtype(np.float64))
    assert written.startswith("((double)") and float(written[9:-1]) == big  # round trips


class _Graph:
    """What fits() reads of a device graph."""

    def __init__(self, placement):
        self.placement = placement


def test_fits_takes_device_graphs_and_the_language_it_writes(monkeypatch):
    assert fused.fits(programs.bfs(), _Graph("device"))
    assert not fused.fits(programs.bfs(), _Graph("host"))  # lists over the bus: the operators
    assert not fused.fits(programs.triangles(), _Graph("device"))  # common(): the operators
    many = programs.collaborative_filtering(k=fused.MAX_FIELDS + 1)
    assert not fused.fits(many, _Graph("device"))
    assert fused.fits(programs.collaborative_filtering(k=fused.MAX_FIELDS), _Graph("device"))
    monkeypatch.setattr(gravel.config, "program_engine", "operators")
    assert not fused.fits(programs.bfs(), _Graph("device"))


def test_auto_fuses_the_programs_of_active_senders(monkeypatch):
    monkeypatch.setattr(gravel.config, "program_engine", "auto")
    for name in ("bfs", "sssp", "connected_components"):
        assert fused.fits(getattr(programs, name)(), _Graph("device")), name
    assert not fused.fits(programs.pagerank(), _Graph("device"))  # every vertex sends
    assert not fused.fits(programs.bfs(), _Graph("host"))
    monkeypatch.setattr(gravel.config, "program_engine", "fuse")
    with pytest.raises(gravel.UnknownNameError, match="'fuse'"):
        fused.fits(programs.bfs(), _Graph("device"))


# -- on the GPU (run with -m gpu on a machine with one) -------------------------------------------
@pytest.fixture(scope="module", params=list(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


def library_case(G, name):
    """(graph, program, run arguments) of a library program on G as the tests run it."""
    if name == "pagerank":
        return with_loops(G), programs.pagerank(), {"max_iter": 1000}
    return add_random_weights(G, seed=3), getattr(programs, name)(), {"max_iter": 1000}


def both_engines(G, prog, monkeypatch, **kw):
    """The run on the fused engine, then on the operator engine."""
    fast = programs.run(G, prog, device="cuda", **kw)
    with monkeypatch.context() as m:
        m.setattr(gravel.config, "program_engine", "operators")
        slow = programs.run(G, prog, device="cuda", **kw)
    return fast, slow


def same(a, b, exact):
    if exact:
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("direction", ["auto", "pull", "push"])
@pytest.mark.parametrize("name", LIBRARY)
def test_fused_matches_cpu_and_operators(graph, name, direction, monkeypatch):
    G, prog, kw = library_case(graph, name)
    if name == "pagerank":
        direction = "pull"
    cpu = programs.run(G, prog, device="cpu", direction=direction, **kw)
    fast, slow = both_engines(G, prog, monkeypatch, direction=direction, **kw)
    same(fast.state, cpu.state, name in EXACT)
    same(fast.state, slow.state, name in EXACT)
    assert fast.converged == cpu.converged
    if name != "pagerank":  # the same vertices active, the same choices of pull and push
        assert [s[:2] for s in fast.steps] == [s[:2] for s in cpu.steps]


@pytest.mark.gpu
@settings(max_examples=30, deadline=None)
@given(graphs(weighted=True), st.sampled_from(LIBRARY))
def test_fused_matches_cpu_on_random_graphs(G, name):
    assume(G.n > 0)  # a source to start from
    G, prog, kw = library_case(G, name)
    cpu = programs.run(G, prog, device="cpu", **kw)
    gpu = programs.run(G, prog, device="cuda", **kw)
    same(gpu.state, cpu.state, name in EXACT)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("name", LIBRARY)
def test_fused_matches_cpu_on_kron(name, directed, monkeypatch):
    # lists of 32 arcs or more take a block each, in the pull and the push: many of them here
    monkeypatch.setattr(fused, "LONG_LIST", 32)
    G = gravel.generate.kronecker(11, 16, seed=4, directed=directed)
    G, prog, kw = library_case(G, name)
    kw["params"] = {} if name in ("pagerank", "connected_components") else {"source": 0}
    cpu = programs.run(G, prog, device="cpu", **kw)
    fast, slow = both_engines(G, prog, monkeypatch, **kw)
    same(fast.state, cpu.state, name in EXACT)
    same(fast.state, slow.state, name in EXACT)


@pytest.mark.gpu
def test_fused_user_programs_and_given_state(graph, monkeypatch):
    for prog in (LOWEST, PARENT_BFS, REACH, WIDEST):
        cpu = programs.run(graph, prog, device="cpu")
        fast, slow = both_engines(graph, prog, monkeypatch)
        for got in (fast.state, slow.state):
            if prog is PARENT_BFS:
                for f in ("depth", "parent"):
                    np.testing.assert_array_equal(got[f], cpu.state[f])
            else:
                same(got, cpu.state, prog is not WIDEST)
    given_ = np.arange(graph.n, dtype=np.int32)[::-1].copy()
    cc = programs.connected_components()
    cpu = programs.run(graph, cc, init=given_, device="cpu")
    np.testing.assert_array_equal(
        programs.run(graph, cc, init=given_, device="cuda").state, cpu.state
    )


@pytest.mark.gpu
@pytest.mark.parametrize("n", [40, 2 * fused.CHUNK + 7])
def test_one_launch_per_chunk_of_iterations(n, monkeypatch):
    # a path: one iteration per vertex, over several chunks where it is long
    G = gravel.Graph.from_edges(np.arange(n - 1), np.arange(1, n), n=n)
    made = []
    original = fused.FusedEngine.__init__

    def init(self, *args):
        made.append(self)
        original(self, *args)

    monkeypatch.setattr(fused.FusedEngine, "__init__", init)
    whole = n + 1  # iterations enough for the path (the default max_iter is 100)
    programs.run(G, programs.bfs(), device="cuda", max_iter=whole)  # compiles and warms up
    before = runtime.launches
    r = programs.run(G, programs.bfs(), device="cuda", max_iter=whole)
    launches = runtime.launches - before
    assert len(made) == 2  # the fused engine ran
    cpu = programs.run(G, programs.bfs(), device="cpu", max_iter=whole)
    np.testing.assert_array_equal(r.state, cpu.state)
    assert r.iterations == cpu.iterations and r.converged
    assert launches == math.ceil(r.iterations / fused.CHUNK)
    capped = programs.run(G, programs.bfs(), device="cuda", max_iter=fused.CHUNK + 1)
    cpu = programs.run(G, programs.bfs(), device="cpu", max_iter=fused.CHUNK + 1)
    assert capped.iterations == cpu.iterations and capped.converged == cpu.converged
    np.testing.assert_array_equal(capped.state, cpu.state)


def test_run_records_the_fused_loop(monkeypatch):
    # run() hands the loop to an engine that has one, and makes its steps of the engine's record
    runner = importlib.import_module("gravel.programs.run")
    calls = []

    class Looping:
        can_push = True

        def __init__(self, G, program, values):
            self.n = G.n

        def init(self, state):
            calls.append(("init", state))

        def loop(self, max_iter, direction, pull_above):
            calls.append(("loop", max_iter, direction, pull_above))
            return [(1, "push", 1000), (3, "pull", 3000)], 2

        def state(self):
            return [np.arange(self.n, dtype=np.int32)]

    monkeypatch.setattr(runner, "_engine", lambda device, G, program: Looping)
    G = gravel.generate.grid(2, 2)
    r = programs.run(G, programs.bfs(), max_iter=7, direction="push", device="cpu")
    assert calls == [("init", None), ("loop", 7, "push", runner.PULL_ABOVE)]
    assert [(s.active, s.direction) for s in r.steps] == [(1, "push"), (3, "pull")]
    assert r.iterations == 2 and not r.converged  # two vertices left active
    assert r.steps[1].time_s == pytest.approx(3 * r.steps[0].time_s)
    assert r.time_s >= sum(s.time_s for s in r.steps)
    np.testing.assert_array_equal(r.state, np.arange(4))
