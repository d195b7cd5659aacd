"""neighbor_reduce in pull and push against NumPy on random graphs: every reduction, "any"'s
first sender, the push over every vertex with and without blocking, the pull's launch shapes and
the sweep's bins."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import operators as ops  # noqa: E402
from gravel.backends.cuda.graph import DeviceGraph  # noqa: E402
from gravel.frontier import Frontier  # noqa: E402
from gravel.operators import sweep_plan, sweeps  # noqa: E402

from .helpers import (  # noqa: E402
    GRAPHS,
    POISON,
    reference_edges,
)


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
