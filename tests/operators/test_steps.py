"""The multi-step operators, which walk several levels in one launch (advance_steps,
advance_pull_steps, neighbor_reduce_steps, advance_replay), against host BFS levels and
NumPy on random graphs, with long lists set aside in every way."""

import numpy as np
import pytest

from gravel import generate

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import operators as ops  # noqa: E402
from gravel.frontier import Frontier  # noqa: E402
from gravel.operators import steps as steps_module  # noqa: E402

from .helpers import (  # noqa: E402
    GRAPHS,
    LONG_LISTS,
    POISON,
    bfs_levels,
    reference_edges,
    split_long_lists,
)


@pytest.mark.parametrize("max_steps", [1, 2, steps_module.PULL_STEPS_MAX])
@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_pull_steps_reach_the_bfs_levels(name, G, max_steps):
    """Pull steps in one launch (or in launches of max_steps, each going on from the last one's
    bitmap) give every vertex its BFS level from the source and a parent one level up; the counts
    are the levels' sizes and the returned bitmap holds the last level run."""
    dg = G.to("cuda")
    source = int(np.random.default_rng().integers(G.n))
    expect = np.full(G.n, -1)
    for d, ids in enumerate(bfs_levels(G, source)):
        expect[ids] = d
    depth = cupy.full(G.n, -1, cupy.int32)
    depth[source] = 0
    parent = cupy.full(G.n, POISON, cupy.int32)
    frontier, level, counts = Frontier.from_ids(G.n, [source]), 1, []
    while True:
        sizes, frontier = ops.advance_pull_steps(
            dg,
            frontier,
            None,
            "(parent[dst] = src, depth[dst] = level + step, true)",
            where="depth[v] < 0",
            params={"parent": parent, "depth": depth, "level": np.int32(level)},
            max_steps=max_steps,
        )
        assert 1 <= len(sizes) <= max_steps and all(sizes[:-1])
        counts += sizes
        level += len(sizes)
        assert len(frontier) == sizes[-1]
        assert np.array_equal(frontier.get(), np.flatnonzero(expect == level - 1))
        if not sizes[-1]:
            break
    got = depth.get()
    assert np.array_equal(got, expect)
    assert counts == [int(np.sum(expect == d)) for d in range(1, level)]
    p = parent.get()
    reached = np.flatnonzero(got > 0)
    assert np.all(got[p[reached]] == got[reached] - 1) and np.all(G.has_arcs(p[reached], reached))


def test_pull_steps_refuse_fewer_than_one_step():
    dg = generate.grid(4, 4).to("cuda")
    front = Frontier.from_ids(16, np.array([0], np.int32))
    with pytest.raises(ValueError, match="max_steps must be at least 1, not 0"):
        ops.advance_pull_steps(dg, front, max_steps=0)
    with pytest.raises(ValueError, match="max_steps must be at least 1, not 0"):
        ops.neighbor_reduce_steps(dg, None, "1", "false", max_steps=0)


def path_counts(G, s):
    """Depth and shortest-path count (parallel arcs counted apart) of every vertex from s, by a
    NumPy BFS level by level."""
    depth = np.full(G.n, -1, np.int64)
    sigma = np.zeros(G.n)
    depth[s], sigma[s] = 0, 1
    front, d = np.array([s], np.int32), 0
    while front.size:
        src, dst, _, _ = reference_edges(G, front)
        depth[dst[depth[dst] == -1]] = d + 1
        keep = depth[dst] == d + 1
        np.add.at(sigma, dst[keep], sigma[src[keep]])
        front, d = np.unique(dst[keep]).astype(np.int32), d + 1
    return depth, sigma


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("max_steps", [1, 3, 64])
def test_neighbor_reduce_steps_count_shortest_paths(name, G, max_steps):
    """Pull steps from the busiest vertex, each claiming the unvisited vertices with an in-arc from
    the last level and summing their path counts (Brandes' forward pass), against a NumPy BFS;
    launches of max_steps steps go on where the last stopped, and each step counts its claims."""
    s = int(np.argmax(G.out_degree))
    depth = cupy.full(G.n, -1, cupy.int32)
    sigma = cupy.zeros(G.n, cupy.float64)
    depth[s], sigma[s] = 0, 1
    sizes = []
    while not sizes or sizes[-1]:
        sizes += ops.neighbor_reduce_steps(
            G.to("cuda"),
            None,
            "depth[u] == level + step - 1 ? sigma[u] : 0.0",
            "acc > 0 && (sigma[v] = acc, depth[v] = level + step, true)",
            where="depth[v] < 0",
            dtype=np.float64,
            params={"depth": depth, "sigma": sigma, "level": np.int32(1 + len(sizes))},
            max_steps=max_steps,
        )
    expect_depth, expect_sigma = path_counts(G, s)
    assert np.array_equal(depth.get(), expect_depth)
    assert np.allclose(sigma.get(), expect_sigma, rtol=1e-12)
    assert sizes == np.bincount(expect_depth[expect_depth > 0]).tolist()[1:] + [0]


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_neighbor_reduce_steps_spread_the_least_label_over_listed_vertices(name, G):
    """Steps of a min-reduce over a random half of the vertices (listed, in no order), each taking
    the least label among its in-neighbours where it is smaller, run until no label changes: each
    listed vertex ends with the least label of any vertex that reaches it through listed vertices,
    as a NumPy fixed point of the same rule finds."""
    rng = np.random.default_rng()
    listed = rng.random(G.n) < 0.5
    ids = rng.permutation(np.flatnonzero(listed)).astype(np.int32)
    start = rng.permutation(G.n).astype(np.int32)
    label = cupy.asarray(start)
    sizes = ops.neighbor_reduce_steps(
        G.to("cuda"),
        Frontier.from_ids(G.n, ids),
        "label[u]",
        "acc < label[v] && (label[v] = acc, true)",
        reduce="min",
        dtype=np.int32,
        params={"label": label},
        max_steps=G.n + 1,
    )
    expect = start.copy()
    src, dst, _, _ = reference_edges(G, np.arange(G.n, dtype=np.int32))
    into = listed[dst]
    while True:
        best = expect.copy()
        np.minimum.at(best, dst[into], expect[src[into]])
        if np.array_equal(best, expect):
            break
        expect = best
    assert np.array_equal(label.get(), expect)
    assert sizes[-1] == 0 and all(k > 0 for k in sizes[:-1])


CLAIM = "atomicCAS(&depth[dst], -1, base + step) == -1"


@pytest.mark.parametrize(
    "name,G",
    GRAPHS + [("long grid", generate.grid(3, 2000))],
    ids=lambda x: x if isinstance(x, str) else "",
)
@pytest.mark.parametrize("long_list", LONG_LISTS)
def test_advance_steps_walks_every_level_in_one_launch(name, G, long_list, monkeypatch):
    from gravel.frontier import FrontierQueue

    split_long_lists(monkeypatch, long_list)

    rng = np.random.default_rng()
    s = int(rng.integers(G.n))
    expect = bfs_levels(G, s)
    depth = cupy.full(G.n, -1, cupy.int32)
    depth[s] = 0
    queue = FrontierQueue(G.n, G.n, [s])
    steps = ops.advance_steps(
        G.to("cuda"), queue, CLAIM, params={"depth": depth, "base": np.int32(1)}, limit=G.n
    )
    assert steps == len(expect) - 1
    assert len(queue) == len(expect)
    for i, level in enumerate(expect):
        assert np.array_equal(queue.segment(i).get(), level), (name, i)
    assert np.array_equal(queue.segment(-len(expect)).get(), expect[0])
    with pytest.raises(IndexError, match="segment"):
        queue.segment(len(expect))
    expect_depth = np.full(G.n, -1)
    for i, level in enumerate(expect):
        expect_depth[level] = i
    assert np.array_equal(depth.get(), expect_depth)


def test_advance_steps_stops_at_limit_max_steps_and_room():
    from gravel.frontier import FrontierQueue

    G = generate.grid(50, 50)
    dg = G.to("cuda")
    expect = bfs_levels(G, 0)  # level i holds min(i + 1, ...) vertices: a diagonal
    for kw, steps in [({"limit": 10}, 10), ({"max_steps": 7}, 7), ({"step_bound": G.n - 30}, None)]:
        depth = cupy.full(G.n, -1, cupy.int32)
        depth[0] = 0
        queue = FrontierQueue(G.n, G.n, [0])
        ran = ops.advance_steps(
            dg, queue, CLAIM, params={"depth": depth, "base": np.int32(1)}, **kw
        )
        if steps is not None:
            assert ran == steps, kw
        else:  # stops once fewer than step_bound entries remain: 1 + 2 + ... + 7 >= 30 - 1 appended
            assert queue.room < G.n - 30 <= queue.room + len(queue.last), kw
        for i in range(len(queue)):
            assert np.array_equal(queue.segment(i).get(), expect[i]), (kw, i)
        # the run continues where it stopped
        ops.advance_steps(
            dg, queue, CLAIM, params={"depth": depth, "base": np.int32(len(queue))}, limit=G.n
        )
        assert len(queue) == len(expect), kw
        assert np.array_equal(queue.last.get(), expect[-1])


def test_advance_steps_overflow_is_an_error():
    from gravel.frontier import FrontierQueue

    G = generate.grid(20, 20)
    queue = FrontierQueue(G.n, 10, [0])
    with pytest.raises(RuntimeError, match="overflowed"):
        ops.advance_steps(G.to("cuda"), queue, "true", limit=G.n)


TICK = """
__device__ bool tick(int* clock, int* first, int* last, int step) {
    int t = atomicAdd(clock, 1);
    atomicMin(&first[step], t);
    atomicMax(&last[step], t);
    return false;
}
"""


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("long_list", LONG_LISTS)
def test_advance_replay_visits_each_segment_with_its_index(
    name, G, reverse, long_list, monkeypatch
):
    from gravel.frontier import FrontierQueue

    split_long_lists(monkeypatch, long_list)

    rng = np.random.default_rng()
    segments = [
        rng.integers(0, G.n, size=int(rng.integers(0, 400))).astype(np.int32) for _ in range(12)
    ]
    queue = FrontierQueue(G.n, sum(s.size for s in segments), segments[0])
    for seg in segments[1:]:
        queue.push(Frontier.from_ids(G.n, seg))
    acc = cupy.zeros(G.n, cupy.float64)
    # a sum of step-weighted sources per destination shows any lost or repeated segment; a clock
    # ticked per edge, its first and last tick kept per step, shows the order of the steps
    clock = cupy.zeros(1, cupy.int32)
    first = cupy.full(12, 1 << 30, cupy.int32)
    last = cupy.full(12, -1, cupy.int32)
    ops.advance_replay(
        G.to("cuda"),
        queue,
        "(atomicAdd(&acc[dst], (double)(step + 1) * (src + 1)), tick(clock, first, last, step))",
        first=2,
        last=11,
        reverse=reverse,
        params={"acc": acc, "clock": clock, "first": first, "last": last},
        preamble=TICK,
    )
    expect = np.zeros(G.n)
    for i in range(2, 11):
        src, dst, _, _ = reference_edges(G, segments[i])
        np.add.at(expect, dst, (i + 1.0) * (src + 1.0))
    assert np.allclose(acc.get(), expect)
    ran = [i for i in range(2, 11) if reference_edges(G, segments[i])[0].size]
    ran = ran[::-1] if reverse else ran
    f, l = first.get(), last.get()
    assert all(l[a] < f[b] for a, b in zip(ran, ran[1:])), (f, l)
