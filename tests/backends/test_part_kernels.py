"""The kernels of a distributed part's counts against plain Python: undirected neighbour
rows of a slice of rows, the rows naming each id, h-indices and stale rows over 1-4 threads, and
triangles counted at a range of rows."""

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.backends.cpu import arcs, kcore, tc
from gravel.prebuild_cpu import large_paths

from ..strategies import graphs

SOME = settings(max_examples=40, deadline=None)


def _lists(offsets, ids):
    return [ids[offsets[r] : offsets[r + 1]].tolist() for r in range(offsets.size - 1)]


@SOME
@given(G=graphs(max_n=30, max_m=120), large=st.booleans(), data=st.data())
def test_undirected_rows_of_a_slice(G, large, data):
    """On the small graphs' serial path and, with `large`, the large graphs' parallel one."""
    lo = data.draw(st.integers(0, G.n))
    hi = data.draw(st.integers(lo, G.n))
    out_off = G.offsets[lo : hi + 1] - G.offsets[lo]
    out_ids = G.indices[G.offsets[lo] : G.offsets[hi]]
    inward = (None, None)
    if G.directed:
        c_off, c_ids = G.csc()[:2]
        inward = (c_off[lo : hi + 1] - c_off[lo], c_ids[c_off[lo] : c_off[hi]])
    for multi in (False, True):
        with large_paths() if large else contextlib.nullcontext():
            offsets, ids = arcs.undirected_rows(out_off, out_ids, *inward, lo, multi)
        assert offsets.dtype == np.int64 and ids.dtype == G.indices.dtype
        expect = []
        for r, u in enumerate(range(lo, hi)):
            outs = set(_lists(out_off, out_ids)[r]) - {u}
            ins = set(_lists(*inward)[r]) - {u} if G.directed else set()
            expect.append(sorted(outs | ins) if not multi else sorted([*outs, *ins]))
        assert _lists(offsets, ids) == expect


@SOME
@given(G=graphs(max_n=30, max_m=120), data=st.data())
def test_naming_rows_is_the_transpose_in_order(G, data):
    order = np.array(data.draw(st.permutations(range(G.n))), np.int64)
    starts, rows = arcs.naming_rows(G.offsets, G.indices, G.n, order)
    lists = _lists(G.offsets, G.indices)
    rank = np.argsort(order)  # where each row comes in `order`
    for x in range(G.n):
        expect = sorted((r for r in range(G.n) for y in lists[r] if y == x), key=rank.__getitem__)
        assert rows[starts[x] : starts[x + 1]].tolist() == expect
    assert starts[-1] == G.indices.size  # every entry named once


def _h_index(values, cap):
    values = sorted(values, reverse=True)
    h = max([k + 1 for k, x in enumerate(values) if x >= k + 1], default=0)
    h = min(h, cap)
    return h, sum(x >= h for x in values)


@SOME
@given(G=graphs(max_n=30, max_m=150), threads=st.integers(1, 4), data=st.data())
def test_h_index_on_any_threads(G, threads, data):
    values = np.array(data.draw(st.lists(st.integers(0, 12), min_size=G.n, max_size=G.n)), np.int64)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, max(G.n - 1, 0)), max_size=G.n))))
    rows = rows[rows < G.n].astype(np.int64)
    cap = np.array(
        data.draw(st.lists(st.integers(0, 12), min_size=rows.size, max_size=rows.size)), np.int64
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kcore, "ROWS_PER_THREAD", 1)
        h, support = kcore.h_index(
            G.offsets, G.indices, values, rows, cap.astype(np.int64), threads
        )
    lists = _lists(G.offsets, G.indices)
    expect = [_h_index(values[lists[r]].tolist(), c) for r, c in zip(rows, cap)]
    assert list(zip(h.tolist(), support.tolist())) == expect


@SOME
@given(G=graphs(max_n=30, max_m=150), data=st.data())
def test_stale_rows_are_those_left_short(G, data):
    """After the h-indices of every row, some vertices' values fall: the rows left with fewer
    values at least their estimate than the estimate, and their supports recounted."""
    n = G.n
    old = np.array(data.draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), np.int64)
    rows = np.arange(n, dtype=np.int64)
    estimate, support = kcore.h_index(G.offsets, G.indices, old, rows, np.full(n, 8), 1)
    drop = np.array([data.draw(st.integers(0, int(x))) for x in old], np.int64)
    at = np.flatnonzero(drop).astype(np.int64)
    new = old - drop
    degree = np.diff(G.offsets)
    starts, names = arcs.naming_rows(G.offsets, G.indices, n, np.argsort(-degree, kind="stable"))
    got = kcore.stale_rows(starts, names, at, old[at], new[at], estimate, support, degree)
    lists = _lists(G.offsets, G.indices)
    recount = np.array([sum(new[x] >= e for x in lists[r]) for r, e in enumerate(estimate)])
    assert np.array_equal(support, recount)
    assert got.tolist() == np.flatnonzero(recount < estimate).tolist()


@SOME
@given(G=graphs(max_n=40, max_m=200, directed=False), threads=st.integers(1, 4), data=st.data())
def test_triangles_at_a_range_of_rows_add_up(G, threads, data):
    O = gravel.transform.orient_by_degree(G.simple_undirected())
    cut = data.draw(st.integers(0, G.n))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tc, "ARCS_PER_THREAD", 1)
        whole = tc.count(O.offsets, O.indices, threads, True)
        low = tc.count(O.offsets, O.indices, threads, True, (0, cut))
        high = tc.count(O.offsets, O.indices, threads, True, (cut, G.n))
    assert low[0] + high[0] == whole[0]
    assert np.array_equal(low[1] + high[1], whole[1])
