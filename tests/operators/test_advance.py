"""The advance operator (push and pull) under every load-balancing strategy against a NumPy
reference on random graphs: every edge visited once, the outputs' arcs counted, the hub of a
million entries, 64-bit offsets, and its errors."""

import numpy as np
import pytest

import gravel
from gravel import generate

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import operators as ops  # noqa: E402
from gravel.frontier import Frontier  # noqa: E402
from gravel.operators import LoadBalance  # noqa: E402

from .helpers import (  # noqa: E402
    GRAPHS,
    POISON,
    STRATEGIES,
    frontiers,
    reference_edges,
    star,
)


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
