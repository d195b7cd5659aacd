"""gravel's vertex programs over a distributed graph's parts (gravel.distributed.run_program):
the single machine's pull run (gravel.programs.run) state for state, iteration for iteration, on
library programs, structured states, every way a program's messages travel and random graphs;
in this process and on a Dask cluster of CPU workers; and the errors."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel import programs
from gravel.errors import InvalidArgumentError, VertexNotFoundError
from gravel.programs.expressions import ProgramError
from gravel.transform import add_random_weights

from ..programs.helpers import PARENT_BFS, parent_bfs, ratings, with_loops
from ..programs.hybrid_cases import smallest_label
from ..strategies import graphs


def assert_same(got, expect):
    """The single machine's state, iterations and convergence, each iteration's active count."""
    assert got.state.dtype == expect.state.dtype
    assert (got.iterations, got.converged) == (expect.iterations, expect.converged)
    assert [s.active for s in got.steps] == [s.active for s in expect.steps]
    for f in got.state.dtype.names or (None,):
        a, b = (got.state, expect.state) if f is None else (got.state[f], expect.state[f])
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)


def both(G, prog, parts, **kw):
    """(the distributed run in this process, the single machine's pull run)."""
    got = gd.run_program(G, prog, parts=parts, cluster="in-process", **kw)
    return got, programs.run(G, prog, device="cpu", direction="pull", **kw)


@pytest.mark.parametrize("parts", [1, 2, 3])
@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("name", ["bfs", "sssp", "connected_components", "pagerank"])
def test_library_programs_match_the_single_machine(name, directed, parts):
    G = gravel.generate.kronecker(9, 8, seed=3, directed=directed)
    G = add_random_weights(with_loops(G) if name == "pagerank" else G, seed=2)
    params = {"source": int(G.out_degree.argmax())} if name in ("bfs", "sssp") else None
    got, expect = both(G, getattr(programs, name)(), parts, params=params)
    assert_same(got, expect)
    assert got.stats["parts"] == parts and got.device == "cpu"
    assert len(got.steps) == got.iterations and all(s.direction == "pull" for s in got.steps)


def test_structured_states_and_a_state_reading_process():
    """A structured state and message (a BFS keeping parents), and collaborative filtering,
    whose process reads the receiving vertex's state and whose init is the caller's."""
    G = gravel.generate.grid(6, 7)
    assert_same(*both(G, PARENT_BFS, 3, max_iter=50))
    R = ratings()
    prog = programs.collaborative_filtering(k=4, rate=0.02)
    rng = np.random.default_rng(1)
    init = {f"f{i}": rng.random(R.n) for i in range(4)}
    got, expect = both(R, prog, 2, max_iter=6, init=init)
    assert_same(got, expect)
    assert not np.allclose(got.state["f0"], both(R, prog, 2, max_iter=6)[0].state["f0"])


@pytest.mark.parametrize("way", ["out", "in", "both"])
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_every_way_messages_travel(way, directed):
    """Messages along out-edges arrive over a part's in-lists, along in-edges over its
    out-lists, both ways over both."""
    G = gravel.Graph.from_edges([1, 1, 3, 4, 5], [0, 2, 2, 3, 4], n=7, directed=directed)
    assert_same(*both(G, smallest_label(way), 3, max_iter=20))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(graphs(weighted=True), st.integers(1, 4), st.sampled_from(["out", "in", "both"]))
def test_random_graphs(G, parts, way):
    parts = max(1, min(parts, G.n))
    assert_same(*both(G, smallest_label(way), parts, max_iter=40))
    if G.n:
        assert_same(*both(G, programs.sssp(), parts, params={"source": 0}))


def test_max_iter_stops_every_part_together():
    G = gravel.generate.grid(1, 30)
    for max_iter in (0, 1, 7):
        got, expect = both(G, programs.bfs(), 3, params={"source": 0}, max_iter=max_iter)
        assert_same(got, expect)
        assert got.iterations == max_iter and not got.converged


def test_on_a_cluster_of_cpu_workers():
    pytest.importorskip("distributed")
    G = add_random_weights(gravel.generate.kronecker(8, 8, seed=5), seed=1)
    expect = programs.run(G, programs.sssp(), params={"source": 3}, device="cpu", direction="pull")
    with gd.Cluster(parts=2) as cluster:
        got = gd.run_program(G, programs.sssp(), params={"source": 3}, cluster=cluster)
        DG = cluster.load(G, 2)
        again = gd.run_program(DG, programs.sssp(), params={"source": 3})
    assert_same(got, expect)
    assert_same(again, expect)
    assert got.stats["parts"] == 2


def test_errors_name_what_is_wrong():
    G = gravel.generate.grid(3, 3)
    kw = dict(cluster="in-process")
    with pytest.raises(ProgramError, match="common"):
        gd.run_program(G, programs.triangles(), **kw)
    with pytest.raises(ProgramError, match="Program"):
        gd.run_program(G, "bfs", **kw)
    with pytest.raises(InvalidArgumentError, match="max_iter"):
        gd.run_program(G, programs.bfs(), max_iter=-1, **kw)
    with pytest.raises(VertexNotFoundError, match="99"):
        gd.run_program(G, programs.bfs(), params={"source": 99}, **kw)
    with pytest.raises(ProgramError, match="nope"):
        gd.run_program(G, programs.bfs(), params={"nope": 1}, **kw)
    with pytest.raises(InvalidArgumentError, match="reordered"):
        gd.run_program(gravel.reorder.reorder(G, "degree"), programs.bfs(), **kw)


def _on_device_parts(G, prog, parts, placement="device", **kw):
    """The rounds on `parts` GPU parts in this process: (every part's output, the single
    machine's pull run)."""
    from gravel.distributed import device_part, exchange, vertex_programs
    from gravel.programs.run import bind_params, initial_state

    pieces = [device_part.to_device(p, placement) for p in gd.split(G, parts)]
    args = (bind_params(G, prog, kw.get("params")), initial_state(G, prog, kw.get("init")))
    out = exchange.run_in_process(
        pieces, vertex_programs.vertex_program, prog, *args, kw.get("max_iter", 100)
    )
    return out, programs.run(G, prog, device="cpu", direction="pull", **kw)


def _assert_same_on_device(out, expect, prog):
    from gravel.arrays import host

    iterations, converged, _, counts = out[0][-4:]
    assert (iterations, converged) == (expect.iterations, expect.converged)
    # each iteration's senders as gravel.programs.run counts them (every vertex, where all send)
    n = len(expect.state)
    assert [n if prog.senders == "all" else c for c in counts] == [s.active for s in expect.steps]
    for i, f in enumerate(prog.state):
        got = np.concatenate([host(o[i]) for o in out])
        want = expect.state if prog.state_dtype.names is None else expect.state[f.key]
        if np.issubdtype(got.dtype, np.floating):  # sums in another order
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("placement", ["device", "host"])
@pytest.mark.parametrize("parts", [1, 2, 3])
@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("name", ["bfs", "sssp", "connected_components", "pagerank"])
def test_programs_on_gpu_parts_match_the_single_machine(name, directed, parts, placement):
    G = gravel.generate.kronecker(9, 8, seed=3, directed=directed)
    G = add_random_weights(with_loops(G) if name == "pagerank" else G, seed=2)
    params = {"source": int(G.out_degree.argmax())} if name in ("bfs", "sssp") else None
    prog = getattr(programs, name)()
    _assert_same_on_device(*_on_device_parts(G, prog, parts, placement, params=params), prog)


#: a BFS whose parents come from the sender's id in process (``u``) and whose depths count the
#: iterations (``iteration``): both must be the caller's ids and the run's count on every part
SENDER_BFS = parent_bfs(depth="iteration + 1", parent="0", heard="u")


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("way", ["out", "in", "both"])
def test_gpu_parts_see_global_ids_and_every_way(way, directed):
    """smallest_label's labels are the vertices' global ids (``v``), and parents read in process
    (``u``) too; a structured state with a caller's init; max_iter stopping every part
    together."""
    G = gravel.Graph.from_edges([1, 1, 3, 4, 5, 6], [0, 2, 2, 3, 4, 0], n=8, directed=directed)
    prog = smallest_label(way)
    _assert_same_on_device(*_on_device_parts(G, prog, 3, max_iter=20), prog)
    G = gravel.generate.grid(6, 7)
    for bfs in (PARENT_BFS, SENDER_BFS):
        _assert_same_on_device(*_on_device_parts(G, bfs, 3, max_iter=50), bfs)
    for max_iter in (0, 1, 4):
        bfs = programs.bfs()
        out, expect = _on_device_parts(G, bfs, 2, params={"source": 0}, max_iter=max_iter)
        _assert_same_on_device(out, expect, bfs)
    R = ratings()
    cf = programs.collaborative_filtering(k=4, rate=0.02)
    rng = np.random.default_rng(1)
    init = {f"f{i}": rng.random(R.n) for i in range(4)}
    _assert_same_on_device(*_on_device_parts(R, cf, 2, max_iter=6, init=init), cf)


@pytest.mark.gpu
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(weighted=True), st.integers(1, 4), st.sampled_from(["out", "in", "both"]))
def test_gpu_parts_random_graphs(G, parts, way):
    parts = max(1, min(parts, G.n))
    prog = smallest_label(way)
    _assert_same_on_device(*_on_device_parts(G, prog, parts, max_iter=40), prog)
    if G.n:
        sssp = programs.sssp()
        _assert_same_on_device(*_on_device_parts(G, sssp, parts, params={"source": 0}), sssp)


@pytest.mark.gpu
def test_on_a_one_gpu_cluster():
    pytest.importorskip("distributed")
    G = add_random_weights(gravel.generate.kronecker(8, 8, seed=5), seed=1)
    expect = programs.run(G, programs.sssp(), params={"source": 3}, device="cpu", direction="pull")
    got = gd.run_program(G, programs.sssp(), params={"source": 3}, gpus=1)
    assert got.device == "cuda" and got.stats["parts"] == 1
    assert (got.iterations, got.converged) == (expect.iterations, expect.converged)
    np.testing.assert_allclose(got.state, expect.state, rtol=1e-6)


#: a star: its edge-balanced split into 4 parts leaves part 1 without a vertex
STAR = gravel.Graph.from_edges(np.zeros(50, int), np.arange(1, 51), n=51, directed=False)


def test_a_part_without_vertices():
    assert [p.size for p in gd.split(STAR, 4)][1] == 0
    for prog, params in ((programs.bfs(), {"source": 7}), (programs.pagerank(), None)):
        assert_same(*both(STAR, prog, 4, params=params))


@pytest.mark.gpu
def test_a_gpu_part_without_vertices():
    for prog, params in ((programs.bfs(), {"source": 7}), (programs.pagerank(), None)):
        _assert_same_on_device(*_on_device_parts(STAR, prog, 4, params=params), prog)
