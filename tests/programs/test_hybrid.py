"""Hybrid execution of vertex programs (gravel.programs.hybrid): the split's arithmetic, the CPU
stand-in for the GPU's part (device="cpu": the split, the compressed vectors and the combining in
CI), and on a GPU (-m gpu) both hybrid modes against single-device results."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import programs
from gravel.programs import split
from gravel.programs.cpu import CpuEngine
from gravel.programs.cuda_part import vertex_bytes
from gravel.transform import add_random_weights

from ..strategies import graphs
from .helpers import GRAPHS, ratings, with_loops

DIRECTIONS = ("auto", "pull", "push")
HYBRID = ("hybrid-seed", "hybrid")
LIBRARY = ("bfs", "sssp", "connected_components", "pagerank", "triangles")


@pytest.fixture(scope="module", params=list(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


def case(graph, name, direction):
    """The graph, program and direction a library program runs on: PageRank pulls a graph with a
    loop on every vertex, triangles count on the simple undirected graph, SSSP weighs edges."""
    G = add_random_weights(graph, seed=3)
    if name == "pagerank":
        G, direction = with_loops(graph), "pull"
    if name == "triangles":
        G = G.simple_undirected()
    return G, getattr(programs, name)(), direction


def assert_same(got, expect, rtol=1e-9):
    """The same state (a GPU's sums in another order: within `rtol`, the iterations free)."""
    assert got.state.dtype == expect.state.dtype and got.converged == expect.converged
    if rtol < 1e-6:
        assert got.iterations == expect.iterations
    for f in got.state.dtype.names or (None,):
        a, b = (got.state, expect.state) if f is None else (got.state[f], expect.state[f])
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


# -- the split's arithmetic ------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=30), st.floats(0, 1))
def test_rows_for_takes_the_most_rows_within_the_share(degrees, share):
    offsets = np.r_[0, np.cumsum(degrees)].astype(np.int64)
    k = split.rows_for(offsets, share)
    assert 0 <= k <= len(degrees)
    assert offsets[k] <= share * offsets[-1] + 1e-9
    if k < len(degrees):
        assert offsets[k + 1] > share * offsets[-1] + 1e-9
    clipped = split.share_offsets(offsets, k)
    assert clipped[-1] == offsets[k] and (np.diff(clipped) >= 0).all()
    np.testing.assert_array_equal(clipped[: k + 1], offsets[: k + 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=30), st.data())
def test_push_arcs_split_the_senders_lists(degrees, data):
    offsets = np.r_[0, np.cumsum(degrees)].astype(np.int64)
    n = len(degrees)
    ids = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1)))), np.int32)
    k = data.draw(st.integers(0, n))
    gpu, cpu = split.push_arcs(offsets, ids, k)
    deg = np.asarray(degrees)
    assert gpu == deg[ids[ids < k]].sum() and cpu == deg[ids[ids >= k]].sum()


def test_room_and_cap():
    assert split.room_arcs(None, 10, 32, 2, 4) is None
    assert split.room_arcs(100, 10, 32, 1, 4) == 0  # the vertex arrays alone are over
    room = split.room_arcs(1_000_000, 1000, 40, 2, 8)
    assert room == (1_000_000 - 40_000 - 2 * 8 * 1001) // 8
    assert split.cap_share(room, 2 * room) == 0.5 and split.cap_share(room, room) == 1.0


def test_balance_and_resplit():
    assert split.balanced_share(100, 1.0, 100, 1.0) == 0.5
    assert split.balanced_share(0, 1.0, 100, 1.0) is None
    assert split.balanced_share(100, 0.0, 100, 1.0) is None
    assert split.next_share(0.5, 0.8, 0.6) == 0.6  # capped by the budget
    assert split.next_share(0.5, 0.5 + split.RESPLIT_ABOVE / 2, 1.0) == 0.5  # not worth a copy
    assert split.next_share(0.9, 0.2, 1.0) == 0.2


def test_combine_folds_where_received_and_sets_where_not():
    G = gravel.generate.grid(1, 6)
    engine = CpuEngine(G, programs.sssp(), {"source": np.int64(0)})
    engine.totals[0][:] = [5, 7, 0, 0, 3, 0]
    engine.received[:] = [True, True, False, False, True, False]
    fresh = engine.combine(np.array([1, 2, 4], np.int32), [np.array([9.0, 4.0, 1.0])])
    assert fresh.tolist() == [False, True, False]
    assert engine.totals[0].tolist() == [5, 7, 4, 0, 1, 0]
    assert engine.received.tolist() == [True, True, True, False, True, False]


# -- the CPU stand-in ------------------------------------------------------------------------------
@pytest.mark.parametrize("execution", HYBRID)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", LIBRARY)
def test_cpu_split_matches_single(graph, name, direction, execution):
    G, prog, direction = case(graph, name, direction)
    kw = dict(max_iter=1000, direction=direction, device="cpu")
    got = programs.run(G, prog, execution=execution, **kw)
    assert_same(got, programs.run(G, prog, **kw))
    assert got.stats["execution"] == execution
    for s in got.steps:
        assert 0 <= s.gpu_share <= 1 and s.gpu_s >= 0 and s.cpu_s >= 0
        if execution == "hybrid-seed":
            assert s.gpu_share in (0.0, 1.0)  # 0: the senders had no edges


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cpu_split_collaborative_filtering(direction):
    G, prog = ratings(), programs.collaborative_filtering(k=4, rate=0.02)
    kw = dict(max_iter=20, direction=direction, device="cpu")
    assert_same(programs.run(G, prog, execution="hybrid", **kw), programs.run(G, prog, **kw))


@settings(max_examples=20, deadline=None)
@given(graphs(weighted=True), st.sampled_from(DIRECTIONS), st.sampled_from(HYBRID))
def test_cpu_split_random_graphs(G, direction, execution):
    kw = dict(direction=direction, device="cpu")
    for prog, params in [
        (programs.bfs(), {"source": 0}),
        (programs.sssp(), {"source": 0}),
        (programs.connected_components(), {}),
        (smallest_label("in"), {}),
    ]:
        if G.n or not params:
            got = programs.run(G, prog, params=params, execution=execution, **kw)
            assert_same(got, programs.run(G, prog, params=params, **kw))


def smallest_label(way):
    """Each vertex takes the smallest id it hears along its edges `way` ("out": from the
    vertices that reach it; "in": from those it reaches; "both": its weak component's)."""
    return programs.Program(
        "int32",
        "int32",
        init="v",
        send="state",
        process="message",
        reduce="min",
        apply="min(state, total)",
        direction=way,
    )


#: arcs 1 -> 0, 1 -> 2, 3 -> 2, 4 -> 3 and 5 -> 4 (and 6 alone): every label needs its way
ARCS = ([1, 1, 3, 4, 5], [0, 2, 2, 3, 4])
#: the smallest label of each vertex by the program's way, on the directed graph and undirected
LABELS = {
    ("out", True): [0, 1, 1, 3, 4, 5, 6],  # the smallest ancestor (or itself)
    ("in", True): [0, 0, 2, 2, 2, 2, 6],  # the smallest descendant (or itself)
    ("both", True): [0, 0, 0, 0, 0, 0, 6],
    **{(way, False): [0, 0, 0, 0, 0, 0, 6] for way in ("out", "in", "both")},
}


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("execution", ("single", *HYBRID))
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("way", ["out", "in", "both"])
def test_cpu_ways_of_a_program(way, direction, execution, directed):
    """Every edge direction of a program (out, in, both), on a directed graph and an undirected
    one, pulled, pushed or switched, on one device and both hybrids: the labels it must reach,
    in the iterations of the single-device run (a hybrid-seed part that reduced along one way
    only, for "both" on a directed graph, missed labels or stopped early)."""
    G = gravel.Graph.from_edges(*ARCS, n=7, directed=directed)
    kw = dict(direction=direction, device="cpu", max_iter=50)
    got = programs.run(G, smallest_label(way), execution=execution, **kw)
    assert got.converged and got.state.tolist() == LABELS[way, directed]
    assert_same(got, programs.run(G, smallest_label(way), **kw))


def test_cpu_split_within_a_budget():
    """A budget that holds about half the arcs caps the part's share; the result stands."""
    G = gravel.generate.kronecker(10, 16, seed=1, directed=True)
    prog = programs.connected_components()  # both ways of a directed graph: in- and out-lists
    budget = vertex_bytes(prog) * G.n + 2 * 8 * (G.n + 1) + 4 * G.nnz  # half of both
    with gravel.config.using(device_memory=budget):
        got = programs.run(G, prog, execution="hybrid", device="cpu")
    assert_same(got, programs.run(G, prog, device="cpu"))
    pulls = [s.gpu_share for s in got.steps if s.direction == "pull"]
    assert pulls and all(0 < share <= 0.5 + 1e-9 for share in pulls)  # a push's senders vary


def test_bad_execution():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(gravel.UnknownNameError, match="unknown execution"):
        programs.run(G, programs.bfs(), execution="both", device="cpu")


# -- on the GPU ------------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("execution", HYBRID)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", LIBRARY)
def test_gpu_hybrid_matches_single(graph, name, direction, execution):
    G, prog, direction = case(graph, name, direction)
    kw = dict(max_iter=1000, direction=direction)
    got = programs.run(G, prog, execution=execution, device="cuda", **kw)
    assert got.device == "cpu+cuda"
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)
    assert_same(got, programs.run(G, prog, device="cuda", **kw), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("execution", HYBRID)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gpu_hybrid_collaborative_filtering(direction, execution):
    G, prog = ratings(), programs.collaborative_filtering(k=4, rate=0.02)
    kw = dict(max_iter=20, direction=direction)
    got = programs.run(G, prog, execution=execution, device="cuda", **kw)
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-7)


@pytest.mark.gpu
@settings(max_examples=20, deadline=None)
@given(graphs(weighted=True), st.sampled_from(DIRECTIONS), st.sampled_from(HYBRID))
def test_gpu_hybrid_random_graphs(G, direction, execution):
    kw = dict(direction=direction)
    for prog, params in [
        (programs.bfs(), {"source": 0}),
        (programs.sssp(), {"source": 0}),
        (programs.connected_components(), {}),
    ]:
        if G.n or not params:
            got = programs.run(G, prog, params=params, execution=execution, device="cuda", **kw)
            assert_same(got, programs.run(G, prog, params=params, device="cpu", **kw), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("execution", ("single", *HYBRID))
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("way", ["out", "in", "both"])
def test_gpu_ways_of_a_program(way, direction, execution, directed):
    """As test_cpu_ways_of_a_program, the GPU taking the SpMV (its part, or all of it)."""
    G = gravel.Graph.from_edges(*ARCS, n=7, directed=directed)
    kw = dict(direction=direction, max_iter=50)
    got = programs.run(G, smallest_label(way), execution=execution, device="cuda", **kw)
    assert got.converged and got.state.tolist() == LABELS[way, directed]
    assert_same(got, programs.run(G, smallest_label(way), device="cpu", **kw))


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["bfs", "pagerank"])
def test_gpu_split_over_the_budget(name):
    """A budget that holds about half the arcs: the GPU's share stays within it, both sides work,
    and the result is the single device's."""
    G, prog, direction = case(gravel.generate.kronecker(14, 16, seed=1), name, "auto")
    params = {"source": int(G.out_degree.argmax())} if name == "bfs" else None
    arc = 4 + 4 * G.weighted
    budget = vertex_bytes(prog) * G.n + 8 * (G.n + 1) + arc * G.nnz // 2
    kw = dict(max_iter=50, direction=direction, params=params)
    with gravel.config.using(device_memory=budget):
        got = programs.run(G, prog, execution="hybrid", device="cuda", **kw)
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)
    pulls = [s for s in got.steps if s.direction == "pull"]
    assert pulls and all(0 < s.gpu_share <= 0.5 + 1e-9 for s in pulls)
    assert all(s.cpu_s > 0 and s.gpu_s > 0 for s in pulls)
