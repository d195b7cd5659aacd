"""The blocked and staged sweeps of neighbor_reduce (GraphCage's cache blocking) and their
apply, merge and gather steps against the plain pull and NumPy on random graphs."""

import importlib

import numpy as np
import pytest

import gravel

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import layouts  # noqa: E402
from gravel import operators as ops  # noqa: E402
from gravel.backends.cuda.graph import DeviceGraph  # noqa: E402
from gravel.frontier import Frontier  # noqa: E402
from gravel.layouts import staged  # noqa: E402
from gravel.operators import staged_sweep as staged_sweep_module  # noqa: E402
from gravel.operators import sweeps  # noqa: E402
from gravel.operators.codegen import NR_REDUCE  # noqa: E402

from ..conftest import small_pieces  # noqa: E402
from .helpers import (  # noqa: E402
    GRAPHS,
    POISON,
    combined,
    fresh_staged,
)

# the module whose name its operator shadows in gravel.operators
nr = importlib.import_module("gravel.operators.neighbor_reduce")


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
# a dtype a case: each compiles its nine kernel instances, which spread over the suite's workers
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=lambda t: t.__name__)
def test_staged_neighbor_reduce_equals_numpy(name, G, width, pairs_share, dtype, monkeypatch):
    """A value array staged in shared memory, block by block (1 vertex, hub-splitting, wider than
    the graph, the card's own width by "auto"; 10**9 takes the L2 path), edges combined by pair
    (share 1) or copied (share 0): every reduce over signed values of `dtype`, alone or combined
    with the arc's weight (1 where the graph has none) by + and *, a fused update; against
    NumPy."""
    runs = fresh_staged(monkeypatch, pairs_share=pairs_share)
    rng = np.random.default_rng()
    dg = DeviceGraph(G)  # layouts of its own, built with this pairs share
    in_off, in_idx, in_w = G.csc()
    w = in_w if in_w is not None else np.ones(in_idx.size, np.float32)
    scale = {None: 1.0, "+": 1.0, "*": float(w.max(initial=1.0))}
    dst = np.repeat(np.arange(G.n), np.diff(in_off))
    staged_path = width != 10**9
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
                reduce,
                combine,
            )
            if reduce != "sum" and combine is not None:  # the plain sweep's arithmetic, exactly
                plain = ops.neighbor_reduce(
                    dg, None, cupy.asarray(x), reduce, dtype=dtype, combine=combine
                ).get()
                assert np.array_equal(got, plain), (reduce, combine)
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
def test_auto_sweeps_plainly_where_the_staged_weights_do_not_fit(name, G, monkeypatch):
    """Under "auto", a staged sweep whose weights do not fit beside the layout it planned (the
    device holding other primitives' layouts) runs plainly, to the plain sweep's answer; an
    explicit width raises the GraphTooLargeError."""
    from gravel.errors import GraphTooLargeError

    runs = fresh_staged(monkeypatch)

    def no_room(dg, L):
        raise GraphTooLargeError("the staged weights do not fit")

    monkeypatch.setattr(staged_sweep_module, "staged_weights", no_room)
    dg = DeviceGraph(G)
    x = cupy.asarray(np.random.default_rng().random(G.n).astype(np.float32))
    plain = ops.neighbor_reduce(dg, None, x, "min", combine="+").get()
    got = ops.neighbor_reduce(dg, None, x, "min", combine="+", blocking="auto").get()
    assert runs and np.array_equal(got, plain)  # the staged sweep was tried first
    with pytest.raises(GraphTooLargeError, match="staged weights"):
        ops.neighbor_reduce(dg, None, x, "min", combine="+", blocking=7)


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("width", [1, 7, 20000])
def test_staged_layout_built_by_groups_on_the_device(name, G, width, monkeypatch):
    """Where the free device memory holds the build of a few blocks at a time, the staged layout
    and its weights are built a group of blocks at a time on the device: the same arrays as
    NumPy's build at once."""
    from gravel.backends.cuda import runtime

    in_off, in_idx, in_w = G.csc()
    largest = int(np.bincount(in_idx // width).max(initial=0))
    room = staged.KEPT_BYTES_PER_EDGE * G.nnz + staged.BUILD_BYTES_PER_EDGE * max(largest, 1)
    dg = DeviceGraph(G)  # the graph on the device first: `room` is what is free beside it
    monkeypatch.setattr(runtime, "free_bytes", lambda: room)
    assert staged.build_group_edges(dg, width) in (None, max(largest, 1))
    tile = staged.STAGED_TILE_BYTES // 4
    L = staged.staged_layout(dg, width, tile)
    expect = staged.staged_pull(in_off, in_idx, G.n, width, tile=tile)
    for field, value in vars(expect).items():
        assert np.array_equal(cupy.asnumpy(getattr(L, field)), value), field
    order = np.lexsort((np.repeat(np.arange(G.n), np.diff(in_off)), in_idx // width))
    w = (in_w if in_w is not None else np.ones(in_idx.size, np.float32))[order]
    assert np.array_equal(staged.staged_weights(dg, L).get()[: L.edges], w)


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
