"""Every GPU operator and every load-balancing strategy against a NumPy reference, on random
inputs."""

import importlib

import numpy as np
import pytest

import gravel
from gravel import generate, transform

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import layouts  # noqa: E402
from gravel import operators as ops  # noqa: E402
from gravel.backends.cuda.graph import DeviceGraph  # noqa: E402
from gravel.frontier import Frontier  # noqa: E402
from gravel.layouts import staged  # noqa: E402
from gravel.operators import LoadBalance, load_balance, sweep_plan, sweeps  # noqa: E402
from gravel.operators import staged_sweep as staged_sweep_module  # noqa: E402
from gravel.operators import steps as steps_module  # noqa: E402
from gravel.operators.codegen import NR_REDUCE  # noqa: E402

from ..conftest import small_pieces  # noqa: E402

# the modules whose names their operators shadow in gravel.operators
compute_module = importlib.import_module("gravel.operators.compute")
intersect_module = importlib.import_module("gravel.operators.intersect")
nr = importlib.import_module("gravel.operators.neighbor_reduce")

STRATEGIES = [
    LoadBalance.THREAD_MAPPED,
    LoadBalance.TWC,
    LoadBalance.BLOCK_MAPPED,
    LoadBalance.MERGE_PATH,
    "auto",
]
POISON = -7


def combined(x, w, combine, dtype):
    """Each arc's value as staged.cu's COMBINE computes it: x (of `dtype`) alone, x + w or x * w in
    float32 for float32 and int32 values (then truncated to an int), in float64 for float64; in
    float64."""
    if combine is None:
        return x.astype(np.float64)
    wide = np.float64 if dtype == np.float64 else np.float32
    v = x.astype(wide) + w.astype(wide) if combine == "+" else x.astype(wide) * w.astype(wide)
    return (np.trunc(v) if dtype == np.int32 else v).astype(np.float64)


def fresh_staged(monkeypatch, *, pairs_share=None):
    """Blocking "auto" for small graphs too, the staged layout's pairs share if given, and a list
    that records the width of each staged sweep neighbor_reduce runs."""
    monkeypatch.setattr(sweep_plan, "AUTO_L2_SHARE", 0.0)
    if pairs_share is not None:
        monkeypatch.setattr(staged, "STAGED_PAIRS_SHARE", pairs_share)
    runs, real = [], nr.staged_sweep
    monkeypatch.setattr(
        nr,
        "staged_sweep",
        lambda graph, width, *rest: (runs.append(width), real(graph, width, *rest))[1],
    )
    return runs


def star(leaves):
    """Vertex 0 joined to `leaves` others: one list of more than a million entries."""
    return gravel.Graph.from_edges(
        np.zeros(leaves, np.int64), np.arange(1, leaves + 1), directed=False
    )


def with_loops_and_isolated(rng):
    n = 300
    src = rng.integers(0, 200, 2000)
    dst = rng.integers(0, 200, 2000)
    src[:50] = dst[:50]  # self loops; vertices 200..299 are isolated
    return gravel.Graph.from_edges(
        src, dst, rng.integers(1, 9, 2000).astype(np.float32), n=n, directed=True
    )


def with_hubs(rng):
    """A sparse random graph and three hubs whose lists (2,500 to 9,000 entries) exceed LONG_LIST
    (2,048)."""
    n = 12000
    sizes = (2500, 5000, 9000)
    src = np.concatenate([rng.integers(0, n, 30000)] + [np.full(k, h) for h, k in enumerate(sizes)])
    dst = np.concatenate(
        [rng.integers(0, n, 30000)] + [rng.choice(n, k, replace=False) for k in sizes]
    )
    return transform.deduplicate(
        gravel.Graph.from_edges(
            src, dst, rng.random(src.size).astype(np.float32) + 0.5, n=n, directed=False
        )
    )


def graphs():
    rng = np.random.default_rng()
    yield (
        "kron",
        transform.add_random_weights(
            generate.kronecker(14, 16, seed=int(rng.integers(1 << 30))), seed=1
        ),
    )
    yield "grid", generate.grid(64, 80)
    yield "loops+isolated", with_loops_and_isolated(rng)
    yield "hubs", with_hubs(rng)


GRAPHS = list(graphs())


def frontiers(G, rng):
    n = G.n
    yield "empty", np.zeros(0, np.int32)
    yield "all", np.arange(n, dtype=np.int32)
    yield "random", rng.choice(n, size=max(1, n // 10), replace=False).astype(np.int32)
    yield "duplicates", rng.integers(0, n, size=max(1, n // 5)).astype(np.int32)
    yield "small", rng.choice(n, size=min(n, 100), replace=False).astype(np.int32)


def reference_edges(G, ids):
    """(src, dst, edge, weight) of every out-edge of the frontier, duplicates included."""
    deg = G.out_degree[ids]
    src = np.repeat(ids, deg)
    starts = np.repeat(G.offsets[ids], deg)
    local = np.arange(deg.sum()) - np.repeat(np.cumsum(deg) - deg, deg)
    edge = starts + local
    w = G.weights[edge] if G.weights is not None else np.ones(edge.size, np.float32)
    return src, G.indices[edge], edge, w


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("lb", STRATEGIES, ids=lambda s: getattr(s, "name", s))
def test_advance_visits_every_edge_once(name, G, lb):
    rng = np.random.default_rng()
    dg = G.to("cuda")
    for fname, ids in frontiers(G, rng):
        src, dst, edge, w = reference_edges(G, ids)
        # count visits per edge and sum (src + weight) per destination: a lost or doubled edge shows
        hits = cupy.zeros(G.nnz + 1, cupy.int32)
        acc = cupy.zeros(G.n, cupy.float64)
        # Frontier.all takes the path that reuses the graph's offsets as the degrees' scan
        front = Frontier.all(G.n) if fname == "all" else Frontier.from_ids(G.n, ids)
        out = ops.advance(
            dg,
            front,
            "(atomicAdd(&hits[edge], 1), atomicAdd(&acc[dst], (double)src + weight), "
            "(dst & 1) == 0)",
            params={"hits": hits, "acc": acc},
            strategy=lb,
        )
        expect_hits = np.bincount(edge, minlength=G.nnz + 1)
        assert np.array_equal(hits.get(), expect_hits), (fname, "edge visits")
        expect_acc = np.zeros(G.n)
        np.add.at(expect_acc, dst, src.astype(np.float64) + w)
        assert np.allclose(acc.get(), expect_acc), (fname, "functor arguments")
        kept = np.sort(dst[dst % 2 == 0])
        assert np.array_equal(out.get(), kept), (fname, "output frontier")


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize(
    "lb",
    [*STRATEGIES, LoadBalance.WARP_ALIGNED, LoadBalance.LINE_BALANCED],
    ids=lambda s: getattr(s, "name", s),
)
def test_advance_counts_its_outputs_arcs(name, G, lb):
    """count_arcs: the out-arcs of the vertices an advance emits (each once, by a claim), summed on
    the device and read back with its length, are NumPy's degree sum over those vertices; without
    it, none are counted; an output of edges refuses it."""
    rng = np.random.default_rng()
    dg = G.to("cuda")
    for fname, ids in frontiers(G, rng):
        _, dst, _, _ = reference_edges(G, ids)
        for count in (True, False):
            seen = cupy.full(G.n, -1, cupy.int32)
            out = ops.advance(
                dg,
                Frontier.from_ids(G.n, ids),
                "atomicCAS(&seen[dst], -1, src) == -1",
                params={"seen": seen},
                strategy=lb,
                capacity=G.n,
                count_arcs=count,
            )
            emitted = out.get()
            assert np.array_equal(emitted, np.unique(dst)), (fname, "output")
            want = int(G.out_degree[emitted].sum()) if count else None
            assert out.arcs == want, (fname, count)
    with pytest.raises(ValueError, match="count_arcs"):
        ops.advance(dg, Frontier.from_ids(G.n, [0]), output="edge", count_arcs=True)


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_advance_given_its_arcs_visits_every_edge_once(name, G):
    """`arcs`, the frontier's out-arcs as the caller counted them, stands in for merge path's
    read-back of the scan's total."""
    rng = np.random.default_rng(1)
    dg = G.to("cuda")
    for fname, ids in frontiers(G, rng):
        _, _, edge, _ = reference_edges(G, ids)
        hits = cupy.zeros(G.nnz + 1, cupy.int32)
        ops.advance(
            dg,
            Frontier.from_ids(G.n, ids),
            "(atomicAdd(&hits[edge], 1), false)",
            params={"hits": hits},
            strategy=LoadBalance.MERGE_PATH,
            output=None,
            arcs=edge.size,
        )
        assert np.array_equal(hits.get(), np.bincount(edge, minlength=G.nnz + 1)), fname


@pytest.mark.parametrize("lb", STRATEGIES, ids=lambda s: getattr(s, "name", s))
def test_advance_edge_output_and_hub_of_a_million(lb):
    G = star(1_100_000)
    dg = G.to("cuda")
    ids = np.array([0, 5, 0], np.int32)  # the hub twice, one leaf
    out = ops.advance(dg, Frontier.from_ids(G.n, ids), "true", output="edge", strategy=lb)
    _, _, edge, _ = reference_edges(G, ids)
    assert out.ids.dtype == cupy.int64
    assert np.array_equal(np.sort(out.ids.get()), np.sort(edge))


def test_lb_cull_emits_each_vertex_once():
    G = generate.kronecker(13)
    dg = G.to("cuda")
    ids = np.random.default_rng().choice(G.n, 500, replace=False).astype(np.int32)
    visited = cupy.zeros((G.n + 31) // 32, cupy.uint32)
    out = ops.advance(
        dg,
        Frontier.from_ids(G.n, ids),
        "true",
        strategy=LoadBalance.MERGE_PATH_CULL,
        visited=visited,
    )
    _, dst, _, _ = reference_edges(G, ids)
    assert np.array_equal(out.get(), np.unique(dst))


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_pull_advance_finds_a_frontier_parent(name, G):
    rng = np.random.default_rng()
    dg = G.to("cuda")
    in_off, in_idx, _ = G.csc()
    front = rng.choice(G.n, G.n // 8, replace=False).astype(np.int32)
    cand = np.setdiff1d(np.arange(G.n), front).astype(np.int32)
    parent = cupy.full(G.n, POISON, cupy.int32)
    out = ops.advance_pull(
        dg,
        Frontier.from_ids(G.n, front),
        Frontier.from_ids(G.n, cand),
        "(parent[dst] = src, true)",
        params={"parent": parent},
    )
    in_front = np.zeros(G.n, bool)
    in_front[front] = True
    has = np.array([in_front[in_idx[in_off[v] : in_off[v + 1]]].any() for v in cand], bool)
    assert np.array_equal(out.get(), np.sort(cand[has]))
    p = parent.get()
    assert np.all(p[cand[~has]] == POISON)
    reached = cand[has]
    assert np.all(in_front[p[reached]]) and np.all(G.has_arcs(p[reached], reached))
    # every vertex as a candidate, the `where` predicate choosing them, and a bitmap out
    parent = cupy.full(G.n, POISON, cupy.int32)
    is_cand = cupy.asarray(np.isin(np.arange(G.n), cand).astype(np.int8))
    dense = ops.advance_pull(
        dg,
        Frontier.from_ids(G.n, front),
        None,
        "(parent[dst] = src, true)",
        where="is_cand[v] != 0",
        params={"parent": parent, "is_cand": is_cand},
        output="bitmap",
    )
    # a second pull launched from the bitmap before its length is read (BFS's pull levels): each
    # length, read afterwards, is that step's own
    again = ops.advance_pull(
        dg,
        dense,
        None,
        "(parent[dst] = src, true)",
        where="parent[v] == poison",
        params={"parent": parent, "poison": np.int32(POISON)},
        output="bitmap",
    )
    assert dense.is_dense and len(dense) == reached.size
    assert np.array_equal(dense.get(), reached)
    seen = np.isin(np.arange(G.n), reached)
    second = np.flatnonzero(
        ~seen & np.array([seen[in_idx[in_off[v] : in_off[v + 1]]].any() for v in range(G.n)])
    )
    assert len(again) == second.size and np.array_equal(again.get(), second)
    assert np.array_equal(parent.get() != POISON, seen | np.isin(np.arange(G.n), second))


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


def test_filter_compact_and_cull():
    rng = np.random.default_rng()
    n = 100_000
    ids = rng.integers(0, n, 300_000).astype(np.int32)
    keep = cupy.asarray(rng.random(n) < 0.3)
    f = Frontier.from_ids(n, ids)
    out = ops.filter_frontier(f, "keep[v]", params={"keep": keep})
    assert np.array_equal(out.ids.get(), ids[keep.get()[ids]])  # exact and in order
    for repeat in range(2):
        visited = cupy.zeros((n + 31) // 32, cupy.uint32)
        pre = rng.choice(n, 1000, replace=False)
        visited_host = np.zeros(n, bool)
        visited_host[pre] = True
        visited[:] = cupy.asarray(
            np.packbits(visited_host, bitorder="little").view(np.uint32)[: visited.size]
        )
        culled = ops.filter_frontier(
            f, "keep[v]", params={"keep": keep}, mode="cull", visited=visited
        ).ids.get()
        expect = np.unique(ids[keep.get()[ids] & ~visited_host[ids]])
        assert np.array_equal(np.unique(culled), expect)  # nothing new is lost
        assert not np.isin(culled, pre).any()  # nothing visited survives
    empty = ops.filter_frontier(Frontier.from_ids(n, []), "true")
    assert len(empty) == 0


@pytest.mark.parametrize("segments", [1, 5, 32])
def test_split_keeps_each_segments_order(segments):
    """Keys from -2 to segments + 1 over repeated ids (the out-of-range ones drop the item), past
    one block: segment k is the items keyed k, in order."""
    rng = np.random.default_rng()
    n = 50_000
    ids = rng.integers(0, n, 200_003).astype(np.int32)
    key = rng.integers(-2, segments + 2, n).astype(np.int32)
    got = ops.split(
        Frontier.from_ids(n, ids),
        "key[v] + k - 1",
        segments,
        params={"key": cupy.asarray(key), "k": np.int32(1)},
    )
    assert len(got) == segments
    for k, part in enumerate(got):
        assert len(part) == part.ids.size
        assert np.array_equal(part.ids.get(), ids[key[ids] == k])
    lengths = [len(p) for p in got]  # known ahead: the same segments, no read-back
    again = ops.split(
        Frontier.from_ids(n, ids),
        "key[v]",
        segments,
        lengths=lengths,
        params={"key": cupy.asarray(key)},
    )
    assert all(np.array_equal(a.ids.get(), b.ids.get()) for a, b in zip(again, got))
    with pytest.raises(ValueError, match="lengths"):
        ops.split(Frontier.from_ids(n, ids), "0", segments, lengths=lengths + [0])
    assert all(len(p) == 0 for p in ops.split(Frontier.from_ids(n, []), "0", 3))
    for bad in (0, compute_module.SPLIT_MAX + 1):
        with pytest.raises(ValueError, match="segments"):
            ops.split(Frontier.from_ids(n, ids), "0", bad)


def test_compute_over_frontier_and_all():
    n = 5000
    out = cupy.full(n, POISON, cupy.int32)
    ids = np.random.default_rng().choice(n, 700, replace=False).astype(np.int32)
    ops.compute(Frontier.from_ids(n, ids), "out[v] = (int)i * 2", params={"out": out})
    expect = np.full(n, POISON)
    expect[ids] = np.arange(700) * 2
    assert np.array_equal(out.get(), expect)
    ops.compute(None, "out[v] = v + k", params={"out": out, "k": np.int32(3)}, n=n)
    assert np.array_equal(out.get(), np.arange(n) + 3)


@pytest.mark.parametrize("n", [0, 1, 255, 5000, 3_000_000])
def test_compute_sums_over_frontier_and_all(n):
    """One launch, several float64 sums: over every vertex and over a frontier (with positions
    i)."""
    rng = np.random.default_rng()
    x = rng.random(n).astype(np.float32) - 0.5
    xd = cupy.asarray(x)
    got = ops.compute_sums(
        None, ["x[v]", "fabsf(x[v])", "v % 7 == 0 ? 1.0 : 0.0"], params={"x": xd}, n=n
    ).get()
    expect = [
        x.astype(np.float64).sum(),
        np.abs(x).astype(np.float64).sum(),
        (np.arange(n) % 7 == 0).sum(),
    ]
    assert np.allclose(got, expect, rtol=1e-9, atol=1e-9)
    ids = rng.choice(n, n // 3, replace=False).astype(np.int32)
    got = ops.compute_sums(Frontier.from_ids(n, ids), ["(double)x[v] * i"], params={"x": xd}).get()
    assert np.allclose(
        got, [(x[ids].astype(np.float64) * np.arange(ids.size)).sum()], rtol=1e-9, atol=1e-9
    )
    # a statement first, whose local and writes the terms see
    out = cupy.full(n, POISON, cupy.float32)
    got = ops.compute_sums(
        None,
        ["twice", "out[v] < 0.0f ? 1.0 : 0.0"],
        op="float twice = 2.0f * x[v]; out[v] = twice",
        params={"x": xd, "out": out},
        n=n,
    ).get()
    assert np.array_equal(out.get(), 2.0 * x)
    assert np.allclose(got, [2.0 * x.astype(np.float64).sum(), (x < 0).sum()], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("reduce", ["sum", "min", "max"])
def test_neighbor_reduce_pull_and_push(name, G, reduce):
    rng = np.random.default_rng()
    dg = G.to("cuda")
    x = (2 * rng.random(G.n) - 1).astype(
        np.float32
    )  # signed: the atomics' min and max must order negatives
    x[:3] = [-0.0, 0.0, -1.5]
    xd = cupy.asarray(x)
    in_off, in_idx, in_w = G.csc()
    w = in_w if in_w is not None else np.ones(in_idx.size, np.float32)
    npf = {"sum": np.add, "min": np.minimum, "max": np.maximum}[reduce]
    ident = {"sum": 0.0, "min": np.finfo(np.float32).max, "max": np.finfo(np.float32).min}[reduce]
    expect = np.full(G.n, ident, np.float64)
    dst = np.repeat(np.arange(G.n), np.diff(in_off))
    npf.at(expect, dst, x[in_idx] * w)
    got = ops.neighbor_reduce(dg, None, "x[u] * weight", reduce, params={"x": xd})
    assert np.allclose(got.get(), expect, rtol=1e-5, atol=1e-3)
    # the value array combined with the weight means the same
    got = ops.neighbor_reduce(dg, None, xd, reduce, combine="*")
    assert np.allclose(got.get(), expect, rtol=1e-5, atol=1e-3)
    ids = rng.choice(G.n, G.n // 3, replace=False).astype(np.int32)
    part = ops.neighbor_reduce(
        dg, Frontier.from_ids(G.n, ids), "x[u] * weight", reduce, params={"x": xd}
    )
    assert np.allclose(part.get(), expect[ids], rtol=1e-5, atol=1e-3)
    part = ops.neighbor_reduce(dg, Frontier.from_ids(G.n, ids), xd, reduce, combine="*")
    assert np.allclose(part.get(), expect[ids], rtol=1e-5, atol=1e-3)
    # push: out-edges (u -> v) of frontier items fold into out[v]
    src, dstp, _, wp = reference_edges(G, ids)
    expect_push = np.full(G.n, ident, np.float64)
    npf.at(expect_push, dstp, x[src] * wp)
    push = ops.neighbor_reduce(
        dg, Frontier.from_ids(G.n, ids), "x[u] * weight", reduce, params={"x": xd}, direction="push"
    )
    assert np.allclose(push.get(), expect_push, rtol=1e-5, atol=1e-3)
    push = ops.neighbor_reduce(
        dg, Frontier.from_ids(G.n, ids), xd, reduce, combine="*", direction="push"
    )
    assert np.allclose(push.get(), expect_push, rtol=1e-5, atol=1e-3)
    # the same push told its frontier's arcs (no read-back of their count)
    told = ops.neighbor_reduce(
        dg,
        Frontier.from_ids(G.n, ids),
        "x[u] * weight",
        reduce,
        params={"x": xd},
        direction="push",
        arcs=src.size,
    )
    assert np.allclose(told.get(), expect_push, rtol=1e-5, atol=1e-3)
    # a fused update in place of the write
    y = cupy.full(G.n, POISON, cupy.float64)
    assert (
        ops.neighbor_reduce(
            dg,
            Frontier.from_ids(G.n, ids),
            "x[u] * weight",
            reduce,
            apply="y[v] = 2.0 * acc + i",
            params={"x": xd, "y": y},
        )
        is None
    )
    expect_y = np.full(G.n, POISON, np.float64)
    expect_y[ids] = 2.0 * expect[ids].astype(np.float32).astype(np.float64) + np.arange(ids.size)
    assert np.allclose(y.get(), expect_y, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_neighbor_reduce_any_takes_a_value_of_a_sender(name, G):
    """reduce "any", the non-senders masked to the identity (as a program's pull masks them): a
    pull over a random frontier, a sweep and a push give each vertex one of its senders' values,
    or the identity where it has none."""
    rng = np.random.default_rng()
    dg = G.to("cuda")
    x = rng.integers(0, 1000, G.n).astype(np.int32)
    sending = rng.random(G.n) < 0.3
    params = {"x": cupy.asarray(x), "s": cupy.asarray(sending.astype(np.uint8))}
    value = "s[u] ? x[u] : 2147483647"
    none = np.iinfo(np.int32).max
    in_off, in_idx, _ = G.csc()

    def heard(v):
        return {int(x[u]) for u in in_idx[in_off[v] : in_off[v + 1]] if sending[u]}

    def check(vertices, got):
        for v, val in zip(vertices.tolist(), got.tolist(), strict=True):
            assert val in heard(v) if heard(v) else val == none, (v, val)

    ids = rng.choice(G.n, max(G.n // 3, 1), replace=False).astype(np.int32)
    front = Frontier.from_ids(G.n, ids)
    check(ids, ops.neighbor_reduce(dg, front, value, "any", dtype=np.int32, params=params).get())
    every = np.arange(G.n)
    check(every, ops.neighbor_reduce(dg, None, value, "any", dtype=np.int32, params=params).get())
    senders = Frontier.from_ids(G.n, np.flatnonzero(sending).astype(np.int32))
    pushed = ops.neighbor_reduce(
        dg, senders, "x[u]", "any", dtype=np.int32, params=params, direction="push"
    )
    check(every, pushed.get())


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


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("reduce", ["sum", "min", "max"])
@pytest.mark.parametrize("blocking", [None, 1, 97, 10**9, "auto"])
def test_push_over_every_vertex_equals_numpy(name, G, reduce, blocking, monkeypatch):
    """A push over every vertex, plain (a load-balanced advance folding atomically) and blocked by
    destination range (an advance over the blocked push layout's rows): a value array's x[u] folded
    into every out-neighbour, against NumPy; an expression sees the edge's weight."""
    monkeypatch.setattr(sweep_plan, "AUTO_L2_SHARE", 0.0)  # "auto" blocks these small graphs too
    rng = np.random.default_rng()
    dg = G.to("cuda")
    x = (2 * rng.random(G.n) - 1).astype(np.float32)
    src, dst = G.edges()
    w = G.weights if G.weights is not None else np.ones(G.nnz, np.float32)
    npf = {"sum": np.add, "min": np.minimum, "max": np.maximum}[reduce]
    ident = {"sum": 0.0, "min": np.finfo(np.float32).max, "max": np.finfo(np.float32).min}[reduce]
    expect = np.full(G.n, ident, np.float64)
    npf.at(expect, dst, x[src])
    got = ops.neighbor_reduce(
        dg, None, cupy.asarray(x), reduce, direction="push", blocking=blocking
    )
    assert np.allclose(got.get(), expect, rtol=1e-5, atol=1e-3)
    top = np.finfo(np.float64).max
    weighted = np.full(G.n, {"sum": 0.0, "min": top, "max": -top}[reduce])
    npf.at(weighted, dst, x[src] * w)
    # in float64: the atomics add a hub's thousands of weighted terms in any order
    got = ops.neighbor_reduce(
        dg,
        None,
        "x[u] * weight",
        reduce,
        dtype=np.float64,
        params={"x": cupy.asarray(x)},
        direction="push",
        blocking=blocking,
    )
    assert np.allclose(got.get(), weighted, rtol=1e-9, atol=1e-9)
    if blocking not in (None, "auto"):
        with pytest.raises(ValueError, match="runs over every vertex"):
            ops.neighbor_reduce(
                dg,
                Frontier.from_ids(G.n, [0]),
                cupy.asarray(x),
                reduce,
                direction="push",
                blocking=blocking,
            )


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize(
    "shape", [(1, None), (1, 1), (3, None), (16, None), (4, 1), (64, None), (16, 8)]
)
def test_pull_launch_shapes_cover_every_item_once(name, G, shape, monkeypatch):
    """Every way the pull kernel's CTAs can cover the items (passes, a capped grid striding on)
    reduces every vertex once: sums over plain and blocked sweeps equal NumPy's."""
    monkeypatch.setattr(sweeps, "pull_shape", lambda graph, bytes_per_vertex=4: shape)
    monkeypatch.setattr(sweeps, "ROWS_SHAPE", shape)
    dg = G.to("cuda")
    x = np.random.default_rng().random(G.n).astype(np.float32)
    in_off, in_idx, _ = G.csc()
    expect = np.add.reduceat(np.append(x[in_idx], 0), in_off[:-1]) * (np.diff(in_off) > 0)
    for blocking in (None, 97):
        got = ops.neighbor_reduce(
            dg, None, "x[u]", params={"x": cupy.asarray(x)}, blocking=blocking
        ).get()
        assert np.allclose(got, expect, rtol=1e-4), blocking


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize(
    "bins,long_list",
    [
        ((), 2048),
        ((2048,), 2048),
        ((8, 2048), 2048),
        ((1, 3, 50), 2048),
        ((2, 4, 8, 16, 32, 64), 64),
        ((4,), 4),
    ],
)
def test_sweep_bins_reduce_every_vertex_once(name, G, bins, long_list, monkeypatch):
    """However a sweep bins the lists by length (a CTA for each list of long_list entries or more),
    every vertex is reduced once, and a fused update sees i == v as in a sweep without bins."""
    monkeypatch.setattr(sweeps, "BINS", bins)
    monkeypatch.setattr(sweeps, "LONG_LIST", long_list)
    dg = DeviceGraph(G)  # bins of its own
    x = np.random.default_rng().random(G.n).astype(np.float32)
    in_off, in_idx, _ = G.csc()
    expect = np.add.reduceat(np.append(x[in_idx], 0), in_off[:-1]) * (np.diff(in_off) > 0)
    got = ops.neighbor_reduce(dg, None, "x[u]", params={"x": cupy.asarray(x)}).get()
    assert np.allclose(got, expect, rtol=1e-4)
    y = cupy.full(G.n, POISON, cupy.float64)
    ops.neighbor_reduce(
        dg,
        None,
        "x[u]",
        "max",
        dtype=np.float64,
        apply="y[v] = acc + 4.0 * i",
        params={"x": cupy.asarray(x), "y": y},
    )
    top = np.maximum.reduceat(np.append(x[in_idx], 0), in_off[:-1]) * (np.diff(in_off) > 0)
    top[np.diff(in_off) == 0] = np.finfo(np.float64).min
    assert np.allclose(y.get(), top + 4.0 * np.arange(G.n), rtol=1e-6)


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("width", [1, 7, 97, 2049, 10**9, "auto"])
def test_blocked_neighbor_reduce_equals_the_plain_pull(name, G, width):
    """Every block width (1 vertex, hub-splitting, across merge tiles, wider than the graph), every
    reduce, weights, a fused update and double sums: the blocked sweep gives the plain pull's
    answer."""
    rng = np.random.default_rng()
    dg = G.to("cuda")
    x = cupy.asarray(rng.random(G.n).astype(np.float32))
    for reduce in ("sum", "min", "max"):
        expect = ops.neighbor_reduce(dg, None, "x[u] * weight + v", reduce, params={"x": x}).get()
        got = ops.neighbor_reduce(
            dg, None, "x[u] * weight + v", reduce, params={"x": x}, blocking=width
        ).get()
        assert np.allclose(got, expect, rtol=1e-5), reduce
    y = cupy.full(G.n, POISON, cupy.float64)
    ops.neighbor_reduce(
        dg,
        None,
        "x[u]",
        "sum",
        dtype=np.float64,
        apply="y[v] = 2.0 * acc + i",
        params={"x": x, "y": y},
        blocking=width,
    )
    expect = (
        2.0 * ops.neighbor_reduce(dg, None, "x[u]", "sum", dtype=np.float64, params={"x": x}).get()
    )
    assert np.allclose(y.get(), expect + np.arange(G.n), rtol=1e-9)
    if width != "auto":
        assert layouts.blocked.pull_layout(dg, width).blocks == -(-G.n // width)
    with pytest.raises(ValueError, match="every vertex"):
        ops.neighbor_reduce(
            dg,
            Frontier.from_ids(G.n, np.arange(3, dtype=np.int32)),
            "x[u]",
            params={"x": x},
            blocking=width,
        )


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize(
    "width,pairs_share",
    [
        (1, 1.0),
        (7, 1.0),
        (97, 1.0),
        (20000, 1.0),
        ("auto", 1.0),
        (10**9, 1.0),
        (7, 0.0),
        (20000, 0.0),
    ],
)
def test_staged_neighbor_reduce_equals_numpy(name, G, width, pairs_share, monkeypatch):
    """A value array staged in shared memory, block by block (1 vertex, hub-splitting, wider than
    the graph, the card's own width by "auto"; 10**9 takes the L2 path), edges combined by pair
    (share 1) or copied (share 0): every reduce over signed values, float32, float64 and int32,
    alone or combined with the arc's weight (1 where the graph has none) by + and *, a fused update;
    against NumPy."""
    runs = fresh_staged(monkeypatch, pairs_share=pairs_share)
    rng = np.random.default_rng()
    dg = DeviceGraph(G)  # layouts of its own, built with this pairs share
    in_off, in_idx, in_w = G.csc()
    w = in_w if in_w is not None else np.ones(in_idx.size, np.float32)
    scale = {None: 1.0, "+": 1.0, "*": float(w.max(initial=1.0))}
    dst = np.repeat(np.arange(G.n), np.diff(in_off))
    staged_path = width != 10**9
    for dtype in (np.float32, np.float64, np.int32):
        x = (rng.random(G.n) * 2000 - 1000).astype(dtype)
        for reduce, npf in (("sum", np.add), ("min", np.minimum), ("max", np.maximum)):
            for combine in (None, "+", "*"):
                ident = nr._IDENTITY[reduce](np.dtype(dtype))
                expect = np.full(G.n, ident, np.float64)
                npf.at(expect, dst, combined(x[in_idx], w, combine, dtype))
                got = ops.neighbor_reduce(
                    dg, None, cupy.asarray(x), reduce, dtype=dtype, combine=combine, blocking=width
                ).get()
                # float32 sums of 9,000 values up to 1,000 (times the weight), any order
                atol = 5.0 * scale[combine] if dtype == np.float32 else 1e-6
                assert got.dtype == dtype and np.allclose(got, expect, rtol=1e-5, atol=atol), (
                    dtype,
                    reduce,
                    combine,
                )
                if reduce != "sum" and combine is not None:  # the plain sweep's arithmetic, exactly
                    plain = ops.neighbor_reduce(
                        dg, None, cupy.asarray(x), reduce, dtype=dtype, combine=combine
                    ).get()
                    assert np.array_equal(got, plain), (dtype, reduce, combine)
    assert bool(runs) == staged_path
    y = cupy.full(G.n, POISON, cupy.float64)
    ops.neighbor_reduce(
        dg,
        None,
        cupy.asarray(x.astype(np.float64)),
        "sum",
        dtype=np.float64,
        blocking=width,
        apply="y[v] = 2.0 * acc + i",
        params={"y": y},
    )
    expect = np.zeros(G.n)
    np.add.at(expect, dst, x[in_idx].astype(np.float64))
    assert np.allclose(y.get(), 2 * expect + np.arange(G.n), rtol=1e-12)
    with pytest.raises(ValueError, match="one value per vertex"):
        ops.neighbor_reduce(dg, None, cupy.zeros(G.n + 1, cupy.float32), blocking=width)
    with pytest.raises(ValueError, match="combine joins a value array"):
        ops.neighbor_reduce(dg, None, "x[u]", combine="+", params={"x": cupy.asarray(x)})
    with pytest.raises(gravel.UnknownNameError, match="unknown combine '-'"):
        ops.neighbor_reduce(dg, None, cupy.asarray(x), combine="-")


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize(
    "path", ["sweep", "frontier", "L2-blocked", "staged", "staged-copy", "staged-auto"]
)
def test_apply_sums_equal_numpy(name, G, path, monkeypatch):
    """The sums of a fused update's terms (one of its locals, a squared term of some vertices, a
    count of the items applied) on every path of a pull, against NumPy over what the update
    wrote."""
    runs = fresh_staged(monkeypatch, pairs_share=0.0 if path == "staged-copy" else 1.0)
    rng = np.random.default_rng()
    dg = DeviceGraph(G)
    x = cupy.asarray(rng.random(G.n).astype(np.float32))
    y = cupy.full(G.n, POISON, cupy.float32)
    ids = np.arange(G.n, dtype=np.int32)
    options = {
        "blocking": {
            "L2-blocked": 97,
            "staged": 97,
            "staged-copy": 20000,
            "staged-auto": "auto",
        }.get(path)
    }
    value = "x[u]" if path == "L2-blocked" else x  # an expression does not stage
    if path == "frontier":
        ids = rng.choice(G.n, G.n // 3, replace=False).astype(np.int32)
        options = {}
    frontier = Frontier.from_ids(G.n, ids) if path == "frontier" else None
    totals = ops.neighbor_reduce(
        dg,
        frontier,
        value,
        apply="float r = 2.0f * acc + 1.0f; y[v] = r",
        sums=["r", "v % 3 == 0 ? (double)r * r : 0.0", "1.0"],
        params={"x": x, "y": y},
        **options,
    )
    assert bool(runs) == path.startswith("staged")
    r = y.get()[ids].astype(np.float64)
    assert np.all(r != POISON)
    expect = [r.sum(), (r[ids % 3 == 0] ** 2).sum(), ids.size]
    assert totals.dtype == np.float64 and np.allclose(totals.get(), expect, rtol=1e-9)
    with pytest.raises(ValueError, match="apply"):
        ops.neighbor_reduce(dg, None, x, sums=["1.0"])


def test_staged_merge_keeps_each_identity_apart():
    """A min sweep with the identity inf after one with FLT_MAX (min's default) and back, on tiles
    cut into pieces: a vertex without in-arcs gets its own sweep's identity, not the other's."""
    rng = np.random.default_rng()
    n, m = 3000, 40000
    src, dst = rng.integers(0, n, m), 2 * rng.integers(0, n // 2, m)  # odd ids have no in-arcs
    G = gravel.Graph.from_edges(src, dst, n=n, directed=True)
    dg = DeviceGraph(G)
    L = small_pieces(dg, 64)
    assert L.pieces > L.tiles
    x = rng.random(n).astype(np.float32)
    for identity in (None, np.float32(np.inf), None, np.float32(np.inf)):
        least = np.finfo(np.float32).max if identity is None else np.inf
        expect = np.full(n, least, np.float32)
        np.minimum.at(expect, dst, x[src])
        got = ops.neighbor_reduce(dg, None, cupy.asarray(x), "min", identity=identity, blocking=64)
        assert np.array_equal(got.get(), expect), identity


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("width", [1, 7, 20000])
@pytest.mark.parametrize("pairs_share", [0.0, 1.0])
def test_staged_gather_reduces_each_pair(name, G, width, pairs_share, monkeypatch):
    """The gather alone: one value per (block, destination) pair, the reduce of its edges' x[u] (or
    each edge's, copied, where the layout keeps each edge its own pair: share 0), against NumPy over
    the layout's own pairs (chunks of a span to 160,000 edges; hubs' pairs carried across lanes)."""
    monkeypatch.setattr(staged, "STAGED_PAIRS_SHARE", pairs_share)
    rng = np.random.default_rng()
    dg = DeviceGraph(G)
    L = staged.staged_layout(dg, width, staged.STAGED_TILE_BYTES // 4)
    local, ends = (
        L.local.get()[: L.edges],
        np.unpackbits(L.ends.get().view(np.uint8), bitorder="little")[: L.edges],
    )
    block = np.repeat(L.chunk_block.get(), np.diff(L.chunk_edges.get()))
    first = np.concatenate([[0], np.flatnonzero(ends)[:-1] + 1])
    # the layout's edge order, and so its weights', from NumPy's stable sort by (block, destination)
    in_off, in_idx, in_w = G.csc()
    unsorted = in_idx.astype(np.int64) // width * G.n + np.repeat(np.arange(G.n), np.diff(in_off))
    order = np.argsort(unsorted, kind="stable")
    key = unsorted[order]
    w = (in_w if in_w is not None else np.ones(in_idx.size, np.float32))[order]
    weights = staged.staged_weights(dg, L)
    assert np.array_equal(weights.get()[: L.edges], w) and weights.size == L.local.size
    scale = {None: 1.0, "+": 1.0, "*": float(w.max(initial=1.0))}
    for dtype in (np.float32, np.float64, np.int32):
        x = (rng.random(G.n) * 2000 - 1000).astype(dtype)
        for combine in (None, "+", "*"):
            vals = combined(x[block.astype(np.int64) * width + local], w, combine, dtype)
            for reduce, npf in (("sum", np.add), ("max", np.maximum)):
                red = sweeps.Reduction(
                    np.dtype(dtype),
                    nr._IDENTITY[reduce](np.dtype(dtype)),
                    None,
                    {NR_REDUCE: f"({nr._REDUCE[reduce][0]})"},
                    {},
                    "",
                )
                got = staged_sweep_module.staged_gather(
                    L, cupy.asarray(x), red, weights, staged_sweep_module.COMBINE[combine]
                ).get()
                expect = npf.reduceat(vals, first) if L.edges else np.zeros(0)
                # float32 sums of up to 9,000 values (times the weight), any order
                atol = 5.0 * scale[combine] if dtype == np.float32 else 1e-6
                assert got.shape == (L.pairs,) and np.allclose(got, expect, rtol=1e-5, atol=atol), (
                    dtype,
                    reduce,
                    combine,
                )
    cut = min(1, key.size) + np.sum(
        (key[1:] != key[:-1]) | (np.arange(1, key.size) % staged.STAGED_SPAN == 0)
    )
    assert L.pairs == (L.edges if pairs_share == 0.0 else cut)  # pairs cut where spans end


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_degree_scan_in_one_block_and_with_cub(name, G):
    """The frontier's degree scan, by one block (up to SCAN_IN_ONE_BLOCK items, across its chunks)
    and by a degrees kernel and CuPy's cumsum beyond, equals NumPy's, repeats and the empty frontier
    too."""
    rng = np.random.default_rng()
    dg = G.to("cuda")
    limit = load_balance.SCAN_IN_ONE_BLOCK
    for size in (0, 1, 31, 1024, 1025, 5000, limit, limit + 1, 3 * limit):
        ids = rng.integers(0, G.n, size).astype(np.int32)
        expect = np.concatenate([[0], np.cumsum(G.out_degree[ids].astype(np.int64))])
        assert np.array_equal(
            load_balance.degree_scan(dg.offsets, cupy.asarray(ids)).get(), expect
        ), size


def test_intersect_every_size_class():
    rng = np.random.default_rng()
    # a graph mixing tiny lists, hubs and two huge overlapping lists
    G = transform.deduplicate(
        gravel.Graph.from_edges(
            np.concatenate([rng.integers(0, 3000, 60000), np.zeros(5000, int), np.ones(5000, int)]),
            np.concatenate(
                [
                    rng.integers(0, 3000, 60000),
                    rng.integers(2, 9000, 5000),
                    rng.integers(2, 9000, 5000),
                ]
            ),
            n=9000,
            directed=False,
        )
    )
    dg = G.to("cuda")
    # random pairs, and the hubs beside lists of some 40 (either side of WARP_FROM)
    us = np.concatenate([rng.integers(0, 9000, 20000), [0, 0, 1, 5], rng.integers(0, 2, 400)])
    vs = np.concatenate([rng.integers(0, 9000, 20000), [1, 7, 0, 5], rng.integers(2, 3000, 400)])
    us, vs = us.astype(np.int32), vs.astype(np.int32)
    counts, total = ops.intersect(dg, us, vs)
    rows = [set(G.indices[G.offsets[v] : G.offsets[v + 1]].tolist()) for v in range(G.n)]
    expect = np.array([len(rows[u] & rows[v]) for u, v in zip(us, vs)])
    assert np.array_equal(counts.get(), expect) and total == expect.sum()
    m = intersect_module
    lo = np.minimum(G.out_degree[us], G.out_degree[vs])
    hi = np.maximum(G.out_degree[us], G.out_degree[vs])
    searched = hi > m.SMALL
    assert np.any(hi <= m.SMALL) and np.any(lo > m.LARGE)  # merged, and a block per pair
    assert np.any(searched & (lo <= m.WARP_FROM))  # one thread per pair
    assert np.any(searched & (lo > m.WARP_FROM) & (lo <= m.LARGE))  # a warp per pair


def test_intersect_classes_equal_numpy():
    """The classify kernel's class of every pair and the classes' sizes, against NumPy's."""
    rng = np.random.default_rng()
    m = intersect_module
    degree = rng.choice([0, 5, m.SMALL, m.SMALL + 1, 40, m.LARGE, m.LARGE + 1, 5000], 3000)
    us, vs = rng.integers(0, 3000, (2, 100_000)).astype(np.int32)
    lo = np.minimum(degree[us], degree[vs])
    hi = np.maximum(degree[us], degree[vs])
    expect = np.where(
        hi <= m.SMALL, 0, np.where(lo <= m.WARP_FROM, 1, np.where(lo <= m.LARGE, 2, 3))
    )
    classes, sizes = m.classify(cupy.asarray(degree, np.int32), cupy.asarray(us), cupy.asarray(vs))
    assert np.array_equal(classes.get(), expect)
    assert np.array_equal(sizes, np.bincount(expect, minlength=len(m.CLASSES)))


def test_intersect_one_class_reads_every_pair_unlisted():
    """Where one class holds every pair (short lists only), its kernel takes them in order."""
    rng = np.random.default_rng()
    G = transform.deduplicate(
        gravel.Graph.from_edges(*rng.integers(0, 2000, (2, 20000)), n=2000, directed=False)
    )
    assert G.out_degree.max() <= intersect_module.SMALL
    us, vs = rng.integers(0, 2000, (2, 30000)).astype(np.int32)
    counts, total = ops.intersect(G.to("cuda"), us, vs)
    rows = [set(G.indices[G.offsets[v] : G.offsets[v + 1]].tolist()) for v in range(G.n)]
    expect = np.array([len(rows[u] & rows[v]) for u, v in zip(us, vs)])
    assert np.array_equal(counts.get(), expect) and total == expect.sum()


@pytest.mark.parametrize("longest", [1, 33, intersect_module.SMALL, intersect_module.SMALL + 1])
def test_intersect_arcs_sums_every_arc(longest):
    """The sum along every arc, by rows where no list passes SMALL (lists past 32 take several
    rounds of the row's scan), by pairs where one does, against Python's sets."""
    rng = np.random.default_rng()
    n = 600
    degree = rng.integers(0, longest + 1, n)
    degree[rng.integers(0, n)] = longest  # the longest list is there
    src = np.repeat(np.arange(n), degree)
    dst = np.concatenate([rng.choice(n, d, replace=False) for d in degree])
    G = gravel.Graph.from_edges(src, dst, n=n, directed=True)
    assert G.out_degree.max() == longest
    rows = [set(G.indices[G.offsets[v] : G.offsets[v + 1]].tolist()) for v in range(n)]
    expect = sum(len(rows[u] & rows[v]) for u in range(n) for v in rows[u])
    assert ops.intersect_arcs(G.to("cuda")) == expect


def test_frontier_conversions():
    rng = np.random.default_rng()
    n = 100_003
    ids = np.unique(rng.integers(0, n, 20000)).astype(np.int32)
    f = Frontier.from_ids(n, ids)
    d = f.to_dense()
    assert d.is_dense and len(d) == ids.size
    assert np.array_equal(d.to_sparse().get(), ids)
    assert Frontier.from_ids(n, np.arange(n // 2)).auto().is_dense
    assert not Frontier.from_ids(n, ids[:10]).auto().is_dense
    with pytest.raises(gravel.VertexNotFoundError):
        Frontier.from_ids(n, [n])


def test_unknown_strategy():
    G = generate.grid(3, 3)
    with pytest.raises(gravel.UnknownNameError):
        ops.advance(G.to("cuda"), Frontier.all(G.n), strategy="magic")


@pytest.mark.slow
def test_offsets_beyond_2_31_edges():
    """A device graph of 2.2 G edges: 1024 vertices with 2.15 M out-edges each, built on the GPU."""
    from gravel.backends.cuda.graph import DeviceGraph

    n, per = 1024, 2100 * 1024
    offsets = cupy.arange(n + 1, dtype=cupy.int64) * per
    indices = cupy.tile(cupy.arange(n, dtype=cupy.int32), per)
    assert int(offsets[-1]) > 2**31
    dg = DeviceGraph.from_arrays(offsets, indices)
    ids = np.array([0, n - 1, n // 2], np.int32)  # the last vertex's edges all lie beyond 2^31
    for lb in (LoadBalance.THREAD_MAPPED, LoadBalance.TWC, LoadBalance.MERGE_PATH):
        hits = cupy.zeros(n, cupy.int64)
        ops.advance(
            dg,
            Frontier.from_ids(n, ids),
            "(atomicAdd((unsigned long long*)&hits[dst], 1ull), false)",
            params={"hits": hits},
            output=None,
            strategy=lb,
        )
        assert np.all(hits.get() == 3 * (per // n)), lb
    del indices, dg


def test_advance_capacity_overflow_is_an_error():
    G = generate.grid(10, 10)
    with pytest.raises(RuntimeError, match="capacity"):
        ops.advance(G.to("cuda"), Frontier.all(G.n), "true", capacity=5, strategy=LoadBalance.TWC)


@pytest.mark.parametrize("lb", STRATEGIES, ids=lambda s: getattr(s, "name", s))
def test_user_names_do_not_collide_with_kernel_locals(lb):
    """Regression: a parameter named `k` was captured by merge-path's edge index (wrong k-core)."""
    G = generate.kronecker(10)
    names = {
        "k": np.int32(1),
        "j": np.int32(2),
        "lo": np.int32(3),
        "s": np.int32(4),
        "t": np.int32(5),
        "e": np.int32(6),
        "base": np.int32(7),
        "item": np.int32(8),
    }
    total = cupy.zeros(1, cupy.int64)
    ops.advance(
        G.to("cuda"),
        Frontier.all(G.n),
        "(atomicAdd((unsigned long long*)total, (unsigned long long)"
        "(k + j + lo + s + t + e + base + item)), false)",
        params={**names, "total": total},
        output=None,
        strategy=lb,
    )
    assert int(total[0]) == G.nnz * sum(range(1, 9))


def bfs_levels(G, source):
    """Host BFS: the list of each level's vertices (sorted), the source's level first."""
    depth = np.full(G.n, -1)
    depth[source] = 0
    levels = [np.array([source])]
    while levels[-1].size:
        src, dst, _, _ = reference_edges(G, levels[-1].astype(np.int32))
        new = np.unique(dst[depth[dst] < 0])
        depth[new] = len(levels)
        levels.append(new)
    return levels


CLAIM = "atomicCAS(&depth[dst], -1, base + step) == -1"


def split_long_lists(monkeypatch, how):
    """Make the multi-step kernels set aside lists of `how` entries or more ("room 2": every list,
    with room for two per step, the rest walked by their own block)."""
    if how == "room 2":
        plain = steps_module._long_lists
        monkeypatch.setattr(
            steps_module,
            "_long_lists",
            lambda graph: (
                plain(graph)[0],
                np.int64(2),
                np.int64(1),
                cupy.zeros(3, dtype=cupy.uint64),
            ),
        )
    else:
        monkeypatch.setattr(steps_module, "LONG_LIST", how)


LONG_LISTS = [2048, 4, 1, "room 2"]


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


def test_a_graph_too_large_for_the_device_is_a_clear_error(monkeypatch):
    from gravel.backends.cuda import runtime

    G = generate.grid(30, 30)
    monkeypatch.setattr(runtime, "free_bytes", lambda: 1000)
    with pytest.raises(gravel.GraphTooLargeError, match=r"CSR needs .* 1000 B are free"):
        G.to("cuda")
