"""entry_rows against a binary search of the offsets, on random CSRs with empty rows, on the host
and (marked gpu) on the device."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.arrays import entry_rows


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
