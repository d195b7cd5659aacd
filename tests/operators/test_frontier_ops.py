"""Filter, split and compute over frontiers, the frontier's degree scan and its conversions,
against NumPy; and a graph too large for the device as a clear error."""

import importlib

import numpy as np
import pytest

import gravel
from gravel import generate

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import operators as ops  # noqa: E402
from gravel.frontier import Frontier  # noqa: E402
from gravel.operators import load_balance  # noqa: E402

from .helpers import (  # noqa: E402
    GRAPHS,
    POISON,
)

# the module whose name its operator shadows in gravel.operators
compute_module = importlib.import_module("gravel.operators.compute")


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


def test_a_graph_too_large_for_the_device_is_a_clear_error(monkeypatch):
    from gravel.backends.cuda import runtime

    G = generate.grid(30, 30)
    monkeypatch.setattr(runtime, "free_bytes", lambda: 1000)
    with pytest.raises(gravel.GraphTooLargeError, match=r"CSR needs .* 1000 B are free"):
        G.to("cuda")
