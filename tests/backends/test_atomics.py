"""The CPU's atomics (backends/cpu/atomics.py) under a parallel loop: no update is lost."""

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.backends.cpu import atomics


@numba.njit(parallel=True)
def _race(values, slots, lowest, counts, last):
    for i in numba.prange(values.shape[0]):
        s = slots[i]
        atomics.min_nonnegative(lowest, s, values[i])
        atomics.add(counts, s, 1)
        atomics.exchange(last, s, i)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 50_000), st.integers(1, 64), st.integers(0, 2**32 - 1))
def test_every_update_lands(n, slots, seed):
    rng = np.random.default_rng(seed)
    values = rng.random(n) * rng.choice([1e-300, 1.0, 1e300])
    values[rng.random(n) < 0.01] = np.inf
    where = rng.integers(0, slots, n)
    lowest, counts, last = np.full(slots, np.inf), np.zeros(slots, np.int64), np.full(slots, -1)
    _race(values, where, lowest, counts, last)
    expect = np.full(slots, np.inf)
    np.minimum.at(expect, where, values)
    assert np.array_equal(lowest, expect)
    assert np.array_equal(counts, np.bincount(where, minlength=slots))
    # the exchanged value is one of the writers of that slot (the last to run), or none
    assert all(last[s] == -1 or where[last[s]] == s for s in range(slots))
    assert np.array_equal(last >= 0, counts > 0)


@numba.njit(parallel=True)
def _lower_ints(values, slots, lowest):
    for i in numba.prange(values.shape[0]):
        atomics.min_nonnegative(lowest, slots[i], values[i])  # float64 values into int32 slots


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 50_000), st.integers(1, 64), st.integers(0, 2**32 - 1))
def test_int32_minimum_of_whole_values_lands(n, slots, seed):
    """SSSP's int32 distances: whole float64 values, cast, lowered concurrently."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**31 - 1, n).astype(np.float64)
    where = rng.integers(0, slots, n)
    lowest = np.full(slots, np.iinfo(np.int32).max, np.int32)
    _lower_ints(values, where, lowest)
    expect = np.full(slots, np.iinfo(np.int32).max, np.int64)
    np.minimum.at(expect, where, values.astype(np.int64))
    assert np.array_equal(lowest, expect)


@numba.njit(parallel=True)
def _claim(slots, owner):
    for i in numba.prange(slots.shape[0]):
        atomics.compare_exchange(owner, slots[i], np.int32(-1), np.int32(i))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 50_000), st.integers(1, 64), st.integers(0, 2**32 - 1))
def test_compare_exchange_lets_one_claimant_win(n, slots, seed):
    where = np.random.default_rng(seed).integers(0, slots, n)
    owner = np.full(slots, -1, np.int32)
    _claim(where, owner)
    claimed = owner >= 0
    assert np.array_equal(claimed, np.bincount(where, minlength=slots) > 0)
    assert np.array_equal(where[owner[claimed]], np.flatnonzero(claimed))
