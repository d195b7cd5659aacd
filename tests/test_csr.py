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
