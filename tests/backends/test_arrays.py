"""entry_rows against a binary search of the offsets, and list_entries against a loop over the
rows, on random CSRs with empty rows, on the host and (marked gpu) on the device."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.arrays import entry_rows, list_entries


@st.composite
def row_lengths(draw):
    """Lengths of up to 60 rows, empty ones common (first, last and runs of them)."""
    return np.array(draw(st.lists(st.integers(0, 5) | st.just(0), max_size=60)), np.int64)


def offsets_of(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def reference(offsets):
    nnz = int(offsets[-1])
    return np.searchsorted(offsets, np.arange(nnz), side="right") - 1


@settings(max_examples=80, deadline=None)
@given(row_lengths())
def test_entry_rows_on_the_host(lengths):
    offsets = offsets_of(lengths)
    got = entry_rows(offsets, int(offsets[-1]))
    assert got.dtype == np.int64 and np.array_equal(got, reference(offsets))


@pytest.mark.gpu
@settings(max_examples=40, deadline=None)
@given(row_lengths())
def test_entry_rows_on_the_device(lengths):
    cupy = pytest.importorskip("cupy")
    offsets = offsets_of(lengths)
    got = entry_rows(cupy.asarray(offsets), int(offsets[-1]))
    assert isinstance(got, cupy.ndarray) and got.dtype == np.int64
    assert np.array_equal(got.get(), reference(offsets))


def listed(offsets, rows):
    """(positions, index in rows) of the rows' entries, row after row: a loop."""
    pairs = [(p, k) for k, r in enumerate(rows) for p in range(offsets[r], offsets[r + 1])]
    return [p for p, _ in pairs], [k for _, k in pairs]


@settings(max_examples=80, deadline=None)
@given(row_lengths(), st.data())
def test_list_entries_on_the_host(lengths, data):
    offsets = offsets_of(lengths)
    picked = st.lists(st.integers(0, max(len(lengths) - 1, 0)), max_size=20 if len(lengths) else 0)
    rows = np.array(data.draw(picked), np.int64)  # repeats and any order
    at, which = list_entries(offsets, rows)
    assert (at.tolist(), which.tolist()) == listed(offsets, rows)


@pytest.mark.gpu
@settings(max_examples=40, deadline=None)
@given(row_lengths(), st.data())
def test_list_entries_on_the_device(lengths, data):
    cupy = pytest.importorskip("cupy")
    offsets = offsets_of(lengths)
    picked = st.lists(st.integers(0, max(len(lengths) - 1, 0)), max_size=20 if len(lengths) else 0)
    rows = np.array(data.draw(picked), np.int64)
    at, which = list_entries(cupy.asarray(offsets), cupy.asarray(rows))
    assert isinstance(at, cupy.ndarray)
    assert (at.get().tolist(), which.get().tolist()) == listed(offsets, rows)
