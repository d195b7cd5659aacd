"""The blocked and staged layouts, built with NumPy here, against the plain pull they replace; the
sweep plan that chooses between them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.backends.cuda.graph import DeviceGraph
from gravel.layouts._segments import block_groups, segment_edges, segment_group
from gravel.layouts.blocked import block_width, blocked_pull, blocked_push, pull_layout, push_layout
from gravel.layouts.staged import (
    BUILD_BYTES_PER_EDGE,
    KEPT_BYTES_PER_EDGE,
    STAGED_MAX,
    STAGED_STAGE,
    build_group_edges,
    shared_width,
    staged_pull,
)
from gravel.operators import sweep_plan, sweeps
from gravel.operators.sweep_plan import SweepPlan, hub_front, plan_sweep
from gravel.reorder import reorder

from ..strategies import graphs


def blocked_sums(G, width, x, tile):
    """Per-vertex sums of x over in-edges through the blocked layout: rows, then the merge by tiles,
    each tile's run of rows in every block, as the merge kernel reads them."""
    off, src, _ = G.csc()
    L = blocked_pull(off, src, G.n, width, tile=tile)
    partial = np.array([x[L.sources[a:b]].sum() for a, b in zip(L.offsets[:-1], L.offsets[1:])])
    out = np.zeros(G.n)
    runs = L.tile_rows.reshape(L.blocks, L.tiles + 1)
    for t in range(L.tiles):
        for b in range(L.blocks):
            rows = np.arange(runs[b, t], runs[b, t + 1])
            v = L.row_vertex[rows]
            assert np.all((v >= t * tile) & (v < (t + 1) * tile)) and np.unique(v).size == v.size
            out[v] += partial[rows]
    return L, out


def plain_sums(G, x):
    off, src, _ = G.csc()
    return np.array([x[src[a:b]].sum() for a, b in zip(off[:-1], off[1:])])


def check_layout(G, width, tile=3):
    x = np.random.default_rng(0).random(G.n)
    L, out = blocked_sums(G, width, x, tile)
    assert np.allclose(out, plain_sums(G, x))
    # every row's sources lie in one block; rows run block by block, destinations ascending in one
    block_of_row = np.array([L.sources[a] // width for a in L.offsets[:-1]], np.int64)
    for r, (a, b) in enumerate(zip(L.offsets[:-1], L.offsets[1:])):
        assert b > a and np.all(L.sources[a:b] // width == block_of_row[r])
    rank = block_of_row * G.n + L.row_vertex
    assert np.all(np.diff(rank) > 0)
    assert L.blocks == -(-G.n // width) and L.offsets[-1] == G.nnz and L.tiles == -(-G.n // tile)
    return L


@given(graphs(), st.integers(1, 50), st.integers(1, 9))
@settings(max_examples=80, deadline=None)
def test_blocked_pull_sums_equal_the_plain_pull(G, width, tile):
    if G.n:
        check_layout(G, width, tile)


@pytest.mark.parametrize("width", [1, 7, 4096, 5000])
def test_blocked_pull_on_kronecker_widths_one_split_and_whole(width):
    G = gravel.generate.kronecker(
        10
    )  # 1024 vertices; width 7 splits every hub's list over many blocks
    L = check_layout(G, width, tile=100)
    assert (L.blocks == 1) == (width >= G.n)


def check_segments(G, width):
    """segment_edges against NumPy's stable lexsort of (block, row)."""
    off, src, _ = G.csc()
    blocks, nnz, order, key = segment_edges(off, src, G.n, width)
    rows = np.repeat(np.arange(G.n), np.diff(off))
    block = src.astype(np.int64) // width
    expect = np.lexsort((rows, block))
    assert blocks == max(1, -(-G.n // width)) and nnz == src.size
    assert np.array_equal(order, expect)
    assert np.array_equal(key, (block * G.n + rows)[expect])


@given(graphs(), st.integers(1, 300))
@settings(max_examples=60, deadline=None)
def test_segment_edges_sorts_by_block_then_row_stably(G, width):
    check_segments(G, width)


@pytest.mark.parametrize("width", [1, 3, 4096, 2**31, 2**40])
def test_segment_edges_past_a_byte_of_blocks(width):
    """kron:10 in blocks of 1 and 3 vertices (1,024 and 342 blocks: two-byte keys) and in one block,
    of widths past the int32 ids too."""
    check_segments(gravel.generate.kronecker(10, 8, seed=1), width)


def check_staged(
    G, width, tile, chunk, segment=3, piece=7, pairs_share=1.0, span=32, group_edges=None
):
    """The staged sweep as its kernels run it, in NumPy: each chunk's spans take x[u] from their
    block's slice and combine by pair (the end bits), each pair's value written at its span's first
    pair plus the pairs ended before it there; then each piece folds its segments of pairs into its
    tile; equals the plain pull."""
    off, src, _ = G.csc()
    L = staged_pull(
        off,
        src,
        G.n,
        width,
        tile=tile,
        chunk=chunk,
        segment=segment,
        piece=piece,
        span=span,
        pairs_share=pairs_share,
        group_edges=group_edges,
    )
    ends = np.unpackbits(L.ends.view(np.uint8), bitorder="little")
    assert (
        ends.size == L.local.size == L.span_pair.size * span >= L.edges
        and not ends[L.edges :].any()
    )
    assert ends[span - 1 : L.edges : span].all()  # pairs end with their span
    assert np.array_equal(L.span_pair, np.cumsum(np.concatenate([[0], ends]))[: L.edges : span])
    x = np.random.default_rng(0).random(G.n)
    value = np.full(L.pairs, np.nan)
    for c, b in enumerate(L.chunk_block):
        a, e = L.chunk_edges[c], L.chunk_edges[c + 1]
        assert 0 < e - a <= chunk * width + span and (
            a % span == 0 or a == 0 or L.chunk_block[c - 1] != b
        )
        slice_ = x[b * width : (b + 1) * width]
        for s in range(a // span, -(-e // span)):
            lo, hi = max(a, s * span), min(e, (s + 1) * span)
            assert lo == 0 or ends[lo - 1]  # a warp's edges begin a pair
            head = lo
            for i in np.flatnonzero(ends[lo:hi]) + lo:
                p = int(L.span_pair[s]) + int(ends[s * span : i].sum())
                assert np.isnan(value[p])
                value[p] = slice_[L.local[head : i + 1]].sum()
                head = i + 1
            assert head == hi  # chunks end with a pair
    assert not np.isnan(value).any()  # the chunks cover every pair
    out = np.zeros(G.n)
    seen = np.zeros(L.pairs, int)
    for p in range(L.pieces):
        t = L.piece_tile[p]
        segs = range(L.piece_first[p], L.piece_first[p + 1])
        assert sum(L.seg_end[s] - L.seg_start[s] for s in segs) < piece + segment  # whole segments
        for s in segs:
            pairs = np.arange(L.seg_start[s], L.seg_end[s])
            assert 0 < pairs.size <= segment and np.all(np.diff(L.target[pairs].astype(int)) >= 0)
            seen[pairs] += 1
            np.add.at(out, t * tile + L.target[pairs].astype(np.int64), value[pairs])
    assert np.all(seen == 1) and np.allclose(out, plain_sums(G, x))
    assert (
        np.array_equal(np.bincount(L.piece_tile, minlength=L.tiles), L.tile_pieces)
        and L.tile_pieces.min() >= 1
    )
    assert L.local.dtype == L.target.dtype == np.uint16 and L.blocks == -(-G.n // width)
    # one pair per (block, destination) holding an edge in each span, unless they outnumber
    # pairs_share of the edges
    dst = np.repeat(np.arange(G.n), np.diff(off))
    key = np.sort(src.astype(np.int64) // width * G.n + dst)
    cut = min(1, key.size) + np.sum(
        (key[1:] != key[:-1]) | (np.arange(1, key.size) % span == 0)
    )  # at spans
    assert L.pairs == (cut if cut <= pairs_share * src.size else src.size) and L.edges == src.size
    return L


@given(
    graphs(),
    st.integers(1, 50),
    st.integers(1, 9),
    st.integers(1, 4),
    st.integers(1, 5),
    st.integers(0, 9),
    st.sampled_from([0.0, 0.5, 1.0]),
)
@settings(max_examples=80, deadline=None)
def test_staged_pull_sums_equal_the_plain_pull(G, width, tile, chunk, segment, more, pairs_share):
    if G.n:
        check_staged(G, width, tile, chunk, segment, segment + more, pairs_share)


@given(
    graphs(),
    st.integers(1, 50),
    st.integers(1, 9),
    st.integers(1, 40),
    st.sampled_from([0.0, 0.5, 1.0]),
)
@settings(max_examples=80, deadline=None)
def test_staged_pull_built_by_groups_of_blocks(G, width, tile, group_edges, pairs_share):
    """A layout built a group of blocks at a time sums as the plain pull does, and is the layout
    built at once, array for array."""
    if G.n:
        L = check_staged(G, width, tile, 2, pairs_share=pairs_share, group_edges=group_edges)
        whole = staged_pull(
            *G.csc()[:2],
            G.n,
            width,
            tile=tile,
            chunk=2,
            segment=3,
            piece=7,
            span=32,
            pairs_share=pairs_share,
        )
        for name, value in vars(whole).items():
            assert np.array_equal(getattr(L, name), value), name


@pytest.mark.parametrize("below", [True, False])
def test_staged_pull_by_groups_counts_every_pair_before_it_copies(below):
    """Each edge is its own pair where the pairs of all the groups together pass the share, though
    no group's alone does."""
    G = gravel.generate.kronecker(10)
    off, src, _ = G.csc()
    pairs = staged_pull(off, src, G.n, 7, tile=100, pairs_share=1.0).pairs
    share = (pairs + (1 if below else -1)) / G.nnz  # just above or just below the pairs
    L = staged_pull(off, src, G.n, 7, tile=100, pairs_share=share, group_edges=G.nnz // 8)
    assert L.copies != below and L.pairs == (pairs if below else G.nnz)


@pytest.mark.parametrize("pairs_share", [None, 0.0])
@pytest.mark.parametrize("groups", [None, 2, 4])
def test_staged_pull_stays_within_its_build_budget(groups, pairs_share, monkeypatch):
    """The build's peak (NumPy's allocations; CuPy's follow the same code) stays under what
    build_group_edges budgets: BUILD_BYTES_PER_EDGE an edge sorted at once, and KEPT_BYTES_PER_EDGE
    an edge of the graph beside a build by groups (end bits set a few pairs at a time, as on a
    graph of billions of arcs)."""
    import tracemalloc

    from gravel.layouts import _staged_parts

    monkeypatch.setattr(_staged_parts, "BIT_SLICE", 4096)
    G = gravel.generate.uniform_random(16)
    off, src, _ = G.csc()
    most = None if groups is None else G.nnz // groups
    largest = max(e1 - e0 for _, _, e0, e1 in block_groups(src, G.n, 4000, most))
    tracemalloc.start()
    try:
        L = staged_pull(off, src, G.n, 4000, group_edges=most, pairs_share=pairs_share)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert L.copies == (pairs_share == 0.0)
    kept = 0 if groups is None else KEPT_BYTES_PER_EDGE * G.nnz
    assert peak <= kept + BUILD_BYTES_PER_EDGE * largest


@given(graphs(), st.integers(1, 30), st.integers(1, 40), st.data())
@settings(max_examples=60, deadline=None)
def test_block_groups_and_their_segments(G, width, most, data):
    """Groups of whole blocks hold at most `most` edges unless one block alone; each group's
    segment is that slice of NumPy's stable lexsort of (block, row)."""
    off, src, _ = G.csc()
    groups = block_groups(src, G.n, width, most)
    blocks = max(1, -(-G.n // width))
    rows = np.repeat(np.arange(G.n), np.diff(off))
    block = src.astype(np.int64) // width
    expect = np.lexsort((rows, block))
    assert groups[0][:1] == (0,) and groups[-1][1] == blocks and groups[0][2] == 0
    assert groups[-1][3] == src.size
    for (b0, b1, e0, e1), after in zip(groups, groups[1:] + [(blocks, None, src.size, None)]):
        assert b0 < b1 == after[0] and e1 == after[2]
        assert e1 - e0 == np.count_nonzero((block >= b0) & (block < b1))
        assert e1 - e0 <= most or b1 == b0 + 1
    b0, b1, e0, e1 = data.draw(st.sampled_from(groups))
    picked, key = segment_group(off, src, G.n, width, b0, b1)
    assert np.array_equal(picked, expect[e0:e1])
    assert np.array_equal(key, (block * G.n + rows)[expect[e0:e1]])


@pytest.mark.parametrize("width,tile", [(1, 1), (7, 100), (1000, 3), (STAGED_MAX, STAGED_MAX)])
@pytest.mark.parametrize("pairs_share", [0.0, 1.0])
def test_staged_pull_on_kronecker(width, tile, pairs_share):
    G = gravel.generate.kronecker(10)
    L = check_staged(G, width, tile, chunk=2, pairs_share=pairs_share)
    # chunks never straddle blocks, and a block's chunks are as even as whole pairs allow
    sizes = np.diff(L.chunk_edges)
    for b in np.unique(L.chunk_block):
        mine = sizes[L.chunk_block == b]
        assert mine.max() - mine.min() <= 2 * 32
    with pytest.raises(ValueError, match="1 to 65536"):
        staged_pull(*G.csc()[:2], G.n, STAGED_MAX + 1)
    with pytest.raises(ValueError, match="tile must be 1 to"):
        staged_pull(*G.csc()[:2], G.n, 4, tile=0)
    with pytest.raises(ValueError, match="segments"):
        staged_pull(*G.csc()[:2], G.n, 4, segment=9, piece=8)


def test_shared_width_from_the_shared_memory(monkeypatch):
    from types import SimpleNamespace

    from gravel.backends.cuda import runtime

    stage = 32 * STAGED_STAGE  # the gather's warps' stages, one value each
    assert shared_width(4, smem_bytes=227 * 1024) == 58112 - stage == 54016
    assert (
        shared_width(8, smem_bytes=8 * (12 + stage)) == 12
        and shared_width(1, smem_bytes=2**20) == STAGED_MAX
    )
    assert shared_width(4, smem_bytes=100) == 1  # never below one vertex
    monkeypatch.setattr(runtime, "props", lambda: SimpleNamespace(smem_optin=4 * (1000 + stage)))
    G = gravel.generate.grid(3, 3)
    dg = DeviceGraph.from_arrays(G.offsets, G.indices, directed=False)
    kinds = [
        plan_sweep(dg, width, bytes_per_vertex=size, stageable=True).kind
        for width, size in ((1000, 4), (1, 4), (1001, 4), (None, 4), (600, 8))
    ]
    assert kinds == ["staged", "staged", "blocked", "plain", "blocked"]
    assert plan_sweep(dg, 1000).kind == "blocked"  # what cannot stage reads through the L2


@given(graphs(), st.integers(1, 50))
@settings(max_examples=80, deadline=None)
def test_blocked_push_scatters_what_the_plain_push_does(G, width):
    if not G.n:
        return
    x = np.random.default_rng(1).random(G.n)
    L = blocked_push(G.offsets, G.indices, G.n, width)
    out = np.zeros(G.n)
    for r, (a, b) in enumerate(zip(L.offsets[:-1], L.offsets[1:])):
        targets = L.targets[a:b]
        assert b > a and np.unique(targets // width).size == 1  # one block's range per row
        np.add.at(out, targets, x[L.row_vertex[r]])
    expect = np.zeros(G.n)
    np.add.at(expect, G.indices, np.repeat(x, np.diff(G.offsets)))
    assert np.allclose(out, expect) and L.offsets[-1] == G.nnz
    # rows of a block are its sources with an edge into it, ascending; blocks in order
    rank = np.array([L.targets[a] // width for a in L.offsets[:-1]], np.int64) * G.n + L.row_vertex
    assert np.all(np.diff(rank) > 0)


def test_layouts_of_a_device_graph_are_built_once_with_weights_in_layout_order():
    # a DeviceGraph over NumPy arrays: the layouts only use the array module of the graph's arrays
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(8), seed=2)
    dg = DeviceGraph.from_arrays(G.offsets, G.indices, G.weights, directed=False)
    L = pull_layout(dg, 10)
    assert pull_layout(dg, 10) is L and push_layout(dg, 10) is push_layout(dg, 10)
    # each blocked entry keeps its weight: (row vertex, source) -> weight as in the graph
    rows = np.repeat(L.row_vertex, np.diff(L.offsets))
    by_edge = dict(
        zip(
            zip(np.repeat(np.arange(G.n), np.diff(G.offsets)).tolist(), G.indices.tolist()),
            G.weights.tolist(),
        )
    )
    assert [by_edge[(int(v), int(u))] for v, u in zip(rows, L.sources)] == L.weights.tolist()


def test_block_width_from_the_l2():
    assert block_width(4, l2_bytes=50 * 2**20) == 50 * 2**20 // 4 // 4
    assert block_width(8, l2_bytes=100, fraction=0.5) == 6
    assert block_width(1024, l2_bytes=10) == 1
    with pytest.raises(ValueError):
        blocked_pull(np.zeros(2, np.int64), np.zeros(0, np.int32), 1, 0)


def test_sweep_plans_and_hub_front(monkeypatch):
    from types import SimpleNamespace

    from gravel.backends.cuda import runtime

    monkeypatch.setattr(
        runtime, "props", lambda: SimpleNamespace(smem_optin=4 * (1000 + 32 * STAGED_STAGE))
    )
    G = gravel.generate.kronecker(10)
    dg = DeviceGraph.from_arrays(G.offsets, G.indices, directed=False)
    assert plan_sweep(dg, None) == SweepPlan() and plan_sweep(dg, 7) == SweepPlan("blocked", 7)
    assert plan_sweep(dg, SweepPlan("staged", 5)) == SweepPlan("staged", 5)
    assert str(SweepPlan("staged", 54016)) == "blocked by 54,016 vertices, staged in shared memory"
    for bad in (0, -3, "wide"):
        with pytest.raises(ValueError, match="blocking must be"):
            plan_sweep(dg, bad)
    for kind, width in (("plain", 4), ("blocked", None), ("sideways", 4), ("streamed", 4)):
        with pytest.raises(ValueError, match="not a sweep plan"):
            SweepPlan(kind, width)
    assert str(SweepPlan("streamed")) == "streamed from host memory"
    with pytest.raises(ValueError, match="host memory"):
        plan_sweep(dg, "streamed")  # lists in device memory
    dg.placement = "host"
    assert plan_sweep(dg, "streamed") == plan_sweep(dg, "auto") == SweepPlan("streamed")
    assert plan_sweep(dg, None) == SweepPlan()
    # the share of edges whose source is in the first sixteenth of the ids, against a direct count
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    assert hub_front(dg) == (np.mean(src < G.n // 16) > 0.25)
    S = reorder(G, "degree")
    assert hub_front(DeviceGraph.from_arrays(S.offsets, S.indices, directed=False))
    assert not hub_front(
        DeviceGraph.from_arrays(*gravel.generate.grid(40, 40).csc()[:2], directed=False)
    )


def test_blocking_and_push_are_gpu_options():
    G = gravel.generate.grid(3, 3)
    for kw in ({"blocking": 4}, {"direction": "push"}):
        with pytest.raises(gravel.InvalidGraphError, match="GPU"):
            gravel.pagerank(G, device="cpu", **kw)
    with pytest.raises(gravel.UnknownNameError, match="sideways"):
        gravel.pagerank(G, direction="sideways", device="cpu")


def test_auto_choices_follow_the_l2_and_the_hubs(monkeypatch):
    """blocking="auto" and the pull's launch shape, on device graphs of NumPy arrays and a made-up
    L2: small data or hubs first -> no blocking and striding CTAs; else a quarter-L2 width and one
    pass."""
    from types import SimpleNamespace

    from gravel.backends.cuda import runtime

    monkeypatch.setattr(
        runtime,
        "props",
        lambda: SimpleNamespace(
            l2_bytes=16 * 1024, smem_optin=4 * (1000 + 32 * STAGED_STAGE), name="made-up card"
        ),
    )
    monkeypatch.setattr(runtime, "free_bytes", lambda: 1 << 40)
    K = gravel.generate.kronecker(13)  # 8192 vertices: 32 KB of floats, twice the made-up L2
    S = reorder(K, "degree")
    small = gravel.generate.kronecker(10)
    as_given, hubs_first, tiny = (
        DeviceGraph.from_arrays(H.offsets, H.indices, directed=False) for H in (K, S, small)
    )
    assert plan_sweep(as_given, "auto") == SweepPlan("blocked", block_width(4, l2_bytes=16 * 1024))
    assert block_width(4, l2_bytes=16 * 1024) == 1024
    assert plan_sweep(hubs_first, "auto") == plan_sweep(tiny, "auto") == SweepPlan()
    # a sweep that stages its values blocks by the shared memory, hubs first or not
    staged = SweepPlan("staged", 1000)
    assert (
        plan_sweep(as_given, "auto", stageable=True)
        == plan_sweep(hubs_first, "auto", stageable=True)
        == staged
    )
    assert plan_sweep(tiny, "auto", stageable=True) == SweepPlan()
    # a layout whose build would not fit the free device memory is not chosen; the staged one is
    # built by groups of blocks where it fits so, each of at least its largest block's in-edges
    largest = int(np.bincount(as_given.csc()[1] // 1000).max())
    kept = KEPT_BYTES_PER_EDGE * as_given.nnz
    monkeypatch.setattr(runtime, "free_bytes", lambda: 48 * as_given.nnz - 1)
    assert plan_sweep(as_given, "auto", stageable=True) == staged
    assert plan_sweep(as_given, "auto") == SweepPlan()
    group = build_group_edges(as_given, 1000)
    assert largest <= group == (48 * as_given.nnz - 1 - kept) // 48 < as_given.nnz
    monkeypatch.setattr(runtime, "free_bytes", lambda: kept + 48 * largest - 1)
    assert plan_sweep(as_given, "auto", stageable=True) == SweepPlan()
    with pytest.raises(gravel.GraphTooLargeError, match="largest block"):
        build_group_edges(as_given, 1000)
    monkeypatch.setattr(runtime, "free_bytes", lambda: kept + 48 * largest)
    assert build_group_edges(as_given, 1000) == largest
    monkeypatch.setattr(runtime, "free_bytes", lambda: 48 * as_given.nnz)
    assert build_group_edges(as_given, 1000) is None
    assert sweeps.pull_shape(as_given) == sweeps.ONE_PASS
    assert sweeps.pull_shape(hubs_first) == sweeps.pull_shape(tiny) == sweeps.STRIDING
    # under the L2's share, a sweep of 4-byte values stages from STAGE_FROM vertices and
    # STAGE_MIN_DEGREE arcs a vertex, hubs not first
    monkeypatch.setattr(runtime, "free_bytes", lambda: 1 << 40)
    degree = tiny.nnz // tiny.n
    monkeypatch.setattr(sweep_plan, "STAGE_FROM", small.n)
    monkeypatch.setattr(sweep_plan, "STAGE_MIN_DEGREE", degree)
    big_l2 = SimpleNamespace(l2_bytes=1 << 30, smem_optin=4 * (1000 + 32 * STAGED_STAGE))
    monkeypatch.setattr(runtime, "props", lambda: big_l2)
    assert plan_sweep(as_given, "auto", stageable=True) == staged
    assert plan_sweep(tiny, "auto", stageable=True) == staged
    assert plan_sweep(hubs_first, "auto", stageable=True) == SweepPlan()
    assert plan_sweep(as_given, "auto") == SweepPlan()
    assert plan_sweep(tiny, "auto", stageable=True, bytes_per_vertex=8) == SweepPlan()
    monkeypatch.setattr(sweep_plan, "STAGE_MIN_DEGREE", degree + 1)
    assert plan_sweep(tiny, "auto", stageable=True) == SweepPlan()
    monkeypatch.setattr(sweep_plan, "STAGE_MIN_DEGREE", degree)
    monkeypatch.setattr(sweep_plan, "STAGE_FROM", small.n + 1)
    assert plan_sweep(tiny, "auto", stageable=True) == SweepPlan()
