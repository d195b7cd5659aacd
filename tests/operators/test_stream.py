"""Chunks of a streamed sweep (gravel.operators.stream): runs of whole lists of at least the chunk's
bytes, covering every vertex once; GPU-free arithmetic (the GPU tests run the sweeps)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gravel.operators.stream import chunk_bounds


@given(
    degrees=st.lists(st.integers(0, 300), min_size=1, max_size=200),
    nbytes=st.integers(1, 2000),
)
def test_chunks_are_runs_of_whole_lists_of_at_least_the_chunk(degrees, nbytes):
    offsets = np.concatenate(([0], np.cumsum(degrees))).astype(np.int64)
    bounds = chunk_bounds(offsets, nbytes)
    n = len(degrees)
    assert bounds[0] == 0 and bounds[-1] == n
    assert np.all(np.diff(bounds) > 0)  # every vertex in exactly one chunk
    sizes = 4 * np.diff(offsets[bounds])
    per = max(nbytes // 4, 1) * 4
    assert np.all(sizes[:-1] >= per)  # all but the last hold at least a chunk's ids
    last = 4 * np.diff(offsets)[bounds[1:] - 1]
    assert np.all(sizes - last < per)  # the fewest lists that do


def test_a_hub_makes_its_chunk_longer():
    offsets = np.array([0, 2, 1002, 1005, 1010], np.int64)  # list 1 holds 1,000 ids
    assert chunk_bounds(offsets, 400).tolist() == [0, 2, 4]
    assert chunk_bounds(offsets, 4).tolist() == [0, 1, 2, 3, 4]
    assert chunk_bounds(offsets, 1 << 20).tolist() == [0, 4]
    assert chunk_bounds(np.zeros(4, np.int64), 400).tolist() == [0, 3]  # no entries at all
