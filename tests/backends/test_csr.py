"""The CSR builder's two ways: NumPy's stable sorts for small graphs (no compiling) and the parallel
Numba kernels for large ones give the same arrays, parallel arcs and their weights in one order."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.backends.cpu import csr


@st.composite
def edge_lists(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(0, 120))
    ids = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    src, dst = np.array(draw(ids), np.int32), np.array(draw(ids), np.int32)
    weights = draw(st.sampled_from([None, "random"]))
    if weights:
        weights = np.array(draw(st.lists(st.integers(0, 9), min_size=m, max_size=m)), np.float32)
    return n, src, dst, weights


def build(monkeypatch, small, n, src, dst, weights, **kw):
    monkeypatch.setattr(csr, "SMALL_ARCS", 1 << 40 if small else -1)
    edges = [src.copy(), dst.copy(), None if weights is None else weights.copy()]
    return csr.build_csr(edges, n, **kw)


@settings(max_examples=60, deadline=None)
@given(edge_lists(), st.booleans(), st.booleans(), st.booleans())
def test_small_and_parallel_builds_agree(case, both_ways, dedupe, drop_loops):
    n, src, dst, weights = case
    with pytest.MonkeyPatch.context() as mp:
        kw = {"both_ways": both_ways, "dedupe": dedupe, "drop_loops": drop_loops}
        small = build(mp, True, n, src, dst, weights, **kw)
        large = build(mp, False, n, src, dst, weights, **kw)
    for a, b in zip(small, large):
        assert (a is None and b is None) or (a.dtype == b.dtype and np.array_equal(a, b))
    offsets, indices, _ = small
    for u in range(n):  # rows sorted by destination
        assert np.all(np.diff(indices[offsets[u] : offsets[u + 1]]) >= 0)


@settings(max_examples=40, deadline=None)
@given(edge_lists())
def test_small_and_parallel_row_sorts_agree(case):
    n, src, dst, weights = case
    order = np.argsort(src, kind="stable")
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    sorted_ = []
    with pytest.MonkeyPatch.context() as mp:
        for small in (True, False):
            mp.setattr(csr, "SMALL_ARCS", 1 << 40 if small else -1)
            idx = dst[order].copy()
            w = None if weights is None else weights[order].copy()
            csr.sort_rows(offsets, idx, w)
            sorted_.append((idx, w))
    (a, wa), (b, wb) = sorted_
    assert np.array_equal(a, b) and (wa is None or np.array_equal(wa, wb))


def reference_csr(n, src, dst, weights, both_ways, dedupe, drop_loops):
    """The CSR by a lexsort of the arc list (an edge's reverse right after it, a loop once)."""
    if both_ways:
        keep = np.ones(2 * src.size, bool)
        keep[1::2] = src != dst
        src, dst = np.stack([src, dst], 1).ravel()[keep], np.stack([dst, src], 1).ravel()[keep]
        weights = None if weights is None else np.repeat(weights, 2)[keep]
    order = np.lexsort((dst, src))  # stable: parallel arcs keep the edge order
    src, dst = src[order], dst[order]
    weights = None if weights is None else weights[order]
    keep = np.ones(src.size, bool)
    if drop_loops:
        keep &= src != dst
    src, dst = src[keep], dst[keep]
    weights = None if weights is None else weights[keep]
    if dedupe and src.size:
        first = np.ones(src.size, bool)
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        if weights is not None:
            weights = np.minimum.reduceat(weights, np.flatnonzero(first))
        src, dst = src[first], dst[first]
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    return offsets, dst, weights


@st.composite
def block_lists(draw):
    """Edges in a few blocks over up to 300 vertices (several row groups, so several threads)."""
    n = draw(st.integers(1, 300))
    sizes = draw(st.lists(st.integers(0, 400), min_size=1, max_size=4))
    weighted = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    blocks = []
    for size in sizes:
        ids = rng.integers(0, n, (2, size)).astype(np.int32)
        w = rng.integers(0, 9, size).astype(np.float32) if weighted else None
        blocks.append((ids[0], ids[1], w))
    return n, blocks, weighted


@settings(max_examples=60, deadline=None)
@given(block_lists(), st.booleans(), st.booleans(), st.booleans())
def test_streamed_build_equals_a_lexsort_of_the_edges(case, both_ways, dedupe, drop_loops):
    n, blocks, weighted = case
    src, dst = (np.concatenate([b[i] for b in blocks]) for i in (0, 1))
    weights = np.concatenate([b[2] for b in blocks]) if weighted else None
    want = reference_csr(n, src, dst, weights, both_ways, dedupe, drop_loops)
    kw = {"weighted": weighted, "dedupe": dedupe, "drop_loops": drop_loops}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(csr, "SMALL_ARCS", -1)
        mp.setattr(csr, "BLOCK_EDGES", 128)  # blocks cut again inside the build
        got = csr.stream_csr(lambda: blocks, src.size, n, both_ways, **kw)
    for a, b in zip(got, want):
        assert (a is None and b is None) or (a.dtype == b.dtype and np.array_equal(a, b))


def test_transpose_streams_whole_rows():
    rng = np.random.default_rng(3)
    n = 500
    src, dst = rng.integers(0, n, (2, 5000)).astype(np.int32)
    w = rng.random(5000).astype(np.float32)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(csr, "SMALL_ARCS", -1)
        mp.setattr(csr, "BLOCK_EDGES", 300)
        offsets, indices, weights = csr.build_csr([src, dst, w], n, False)
        got = csr.transpose(offsets, indices, weights, n)
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(offsets))
    want = reference_csr(n, indices, rows, weights, False, False, False)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_symmetrize_streams_whole_rows():
    import gravel

    rng = np.random.default_rng(4)
    src, dst = rng.integers(0, 400, (2, 3000))
    G = gravel.Graph.from_edges(src, dst, rng.random(3000), n=400)
    want = gravel.Graph.from_edges(*G.edges(), G.weights, n=400, directed=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(csr, "SMALL_ARCS", -1)
        mp.setattr(csr, "BLOCK_EDGES", 250)
        assert gravel.transform.symmetrize(G) == want
