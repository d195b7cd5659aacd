"""The CPU push of vertex programs with and without propagation blocking: both fold each vertex's
values in the serial push's order, so they agree bit for bit (sums too) and with the pull (up to
rounding), for every reduce, tiny bins, many batches and empty frontiers."""

import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel import programs
from gravel.programs import Program, cpu, push
from gravel.transform import add_random_weights

from ..strategies import graphs
from .helpers import GRAPHS, LOWEST, PARENT_BFS, REACH, WIDEST, ratings, with_loops

#: (blocking, bin width): unblocked, blocked by the cache, and blocked with bins of 1, 3 (2 as a
#: power of two) and 4 vertices
PUSHES = [("unblocked", None), ("blocked", None), ("blocked", 1), ("blocked", 3), ("blocked", 4)]

#: whether every in-neighbour of a vertex is among the first two thirds (reduce "and")
ALL_IN = Program(
    "bool",
    "bool",
    init="v * 3 < n * 2",
    send="state",
    process="message",
    reduce="and",
    apply="total",
    active="False",
    senders="all",
)


def cases(G):
    """(name, graph, program, run keywords) of every reduce: min, sum (float and int), max, or,
    and, the user's own, and a structured message."""
    W = add_random_weights(G, seed=3)
    hub = int(G.out_degree.argmax())
    return [
        ("bfs", G, programs.bfs(), {"params": {"source": hub}}),
        ("sssp", W, programs.sssp(), {"params": {"source": hub}}),
        ("cc", G, programs.connected_components(), {}),
        ("pagerank", with_loops(G), programs.pagerank(tol=0.0), {"max_iter": 8}),
        ("triangles", G.simple_undirected(), programs.triangles(), {}),
        ("widest", W, WIDEST, {}),
        ("reach", G, REACH, {}),
        ("all_in", G, ALL_IN, {"max_iter": 1}),
        ("lowest", G, LOWEST, {}),
        ("parents", G, PARENT_BFS, {}),
    ]


@pytest.fixture
def pushing(monkeypatch):
    """A function forcing the CPU push to (blocking, bin width)."""

    def force(blocking, width):
        monkeypatch.setattr(push, "push_blocking", blocking)
        monkeypatch.setattr(push, "push_bin_width", width)

    return force


def states(G, prog, kw, pushing, pushes=PUSHES):
    """The final state of each forced push, every iteration pushed."""
    out = {}
    for blocking, width in pushes:
        pushing(blocking, width)
        out[blocking, width] = programs.run(G, prog, direction="push", device="cpu", **kw).state
    return out


def assert_same(got):
    """Every state bitwise equal to the first (a structured state field by field)."""
    first, *rest = got.values()
    for other in rest:
        for f in first.dtype.names or (None,):
            a, b = (first, other) if f is None else (first[f], other[f])
            bits = [np.ascontiguousarray(x).view(np.uint8) for x in (a, b)]
            np.testing.assert_array_equal(*bits)


@pytest.mark.parametrize("name", GRAPHS)
def test_blocked_equals_unblocked_and_pull(name, pushing):
    G = GRAPHS[name]()
    for what, H, prog, kw in cases(G):
        got = states(H, prog, kw, pushing)
        assert_same(got)
        pull = programs.run(H, prog, direction="pull", device="cpu", **kw).state
        push = got["unblocked", None]
        for f in pull.dtype.names or (None,):
            a, b = (pull, push) if f is None else (pull[f], push[f])
            np.testing.assert_allclose(b, a, rtol=1e-12, err_msg=f"{name} {what}")


def test_collaborative_filtering_pushed(pushing):
    """Sums of a structured float64 message, every vertex sending."""
    G = ratings()
    prog = programs.collaborative_filtering(k=3, rate=0.02)
    assert_same(states(G, prog, {"max_iter": 5}, pushing))


def test_many_batches(pushing, monkeypatch):
    """Batches of a few arcs: each folded in turn, sender order kept across them."""
    G = with_loops(GRAPHS["kron8-directed"]())
    prog = programs.pagerank(tol=0.0)
    one = states(G, prog, {"max_iter": 4}, pushing, PUSHES[:1])
    monkeypatch.setattr(push, "PUSH_BATCH_ARCS", 7)
    assert_same(one | states(G, prog, {"max_iter": 4}, pushing, PUSHES[1:]))


@settings(max_examples=30, deadline=None)
@given(graphs(weighted=True))
def test_random_graphs(G):
    """Hypothesis graphs (empty ones, isolated vertices, loops, multi-arcs): blocked with bins of
    1 and 3 (rounded to 2) vertices equals unblocked."""
    old = push.push_blocking, push.push_bin_width
    try:
        for prog, params in (
            (programs.sssp(), {"source": 0}),
            (programs.connected_components(), None),
            (programs.pagerank(tol=0.0), None),
        ):
            if params and not G.n:
                continue
            got = {}
            for blocking, width in (("unblocked", None), ("blocked", 1), ("blocked", 3)):
                push.push_blocking, push.push_bin_width = blocking, width
                r = programs.run(G, prog, params=params, direction="push", max_iter=6, device="cpu")
                got[blocking, width] = r.state
            assert_same(got)
    finally:
        push.push_blocking, push.push_bin_width = old


@pytest.mark.parametrize(("blocking", "width"), PUSHES)
def test_empty_frontiers(blocking, width, pushing):
    """No senders, or senders without out-arcs: nothing reached, nothing written."""
    pushing(blocking, width)
    G = gravel.Graph.from_edges([0, 1], [2, 2], n=5, directed=True)
    engine = cpu.CpuEngine(G, programs.bfs(), programs.bfs().bind(None))
    engine.init(None)
    for ids in ([], [2, 3, 4]):
        reached = engine.reduce(np.array(ids, np.int32), "push")
        assert reached.size == 0 and not engine.received.any()
    ids = np.array([0, 1, 4], np.int32)
    engine.send(ids, 0)  # depths + 1: 1 from vertex 0, 0 from the unreached vertex 1
    reached = engine.reduce(ids, "push")
    # reduce "any": a push folds in sender order, so the first sender's value stays
    assert reached.tolist() == [2] and engine.totals[0][2] == 1


def test_rule():
    """Blocked only where the totals outgrow the last-level cache and the arcs are many."""
    big = 4 * push.llc_bytes() // 9  # float64 totals and a flag: 9 bytes a vertex, 4 LLCs of them
    assert not push.pays(10**9, 1000, 9)
    assert push.pays(big, big, 9)
    assert not push.pays(big // 64, big, 9)
    assert push.bin_width(9) & (push.bin_width(9) - 1) == 0
    assert push.bin_width(9) * 9 <= push.PUSH_BIN_BYTES < push.bin_width(9) * 18
