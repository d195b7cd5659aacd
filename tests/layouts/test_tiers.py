"""The tiered placement's device tier: the hot vertices' lists, located by their own offsets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel import generate, transform
from gravel.backends.cuda import tiers
from gravel.backends.cuda.tiers import hot_lists
from gravel.placement.planner import LINE_IDS, _line_saving_lists

from ..strategies import graphs


@settings(max_examples=60, deadline=None)
@given(graphs(), st.data(), st.sampled_from([1, 3, 1 << 26]))
def test_hot_lists_are_the_hot_vertices_lists(G, data, chunk):
    hot = np.array(data.draw(st.lists(st.booleans(), min_size=G.n, max_size=G.n)), bool)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tiers, "CHUNK_ARCS", chunk)  # gathered a row or a few arcs at a time, or whole
        tier = hot_lists(G, hot)
    for v in range(G.n):
        lo, hi = tier.offsets[v], tier.offsets[v + 1]
        a, b = G.offsets[v], G.offsets[v + 1]
        if hot[v]:
            assert np.array_equal(tier.indices[lo:hi], G.indices[a:b])
        else:
            assert lo == hi
    assert tier.indices.size == int(np.diff(G.offsets)[hot].sum())


def test_hot_lists_carry_their_weights():
    G = transform.add_random_weights(generate.kronecker(8, 8, seed=1))
    hot = G.out_degree >= np.median(G.out_degree)
    tier = hot_lists(G, hot)
    v = int(np.argmax(G.out_degree))
    lo, hi = tier.offsets[v], tier.offsets[v + 1]
    assert np.array_equal(tier.weights[lo:hi], G.weights[G.offsets[v] : G.offsets[v + 1]])
    assert hot_lists(G, np.zeros(G.n, bool)).indices.size == 0


def lines_per_id_ranking(offsets, room):
    """The tier's definition, by a sort of the vertices: most 128-byte lines spanned per id first,
    ties by vertex id, taken while the arcs fit in `room`."""
    degree = np.diff(offsets)
    lines = (offsets[1:] - offsets[:-1] // LINE_IDS * LINE_IDS + LINE_IDS - 1) // LINE_IDS
    saving = np.divide(lines, degree, out=np.zeros(degree.shape), where=degree > 0)
    order = np.argsort(-saving, kind="stable")
    order = order[degree[order] > 0]
    hot = np.zeros(degree.shape, bool)
    hot[order[np.cumsum(degree[order]) <= room]] = True
    return hot


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=300), st.integers(0, 10**6), st.data())
def test_line_saving_lists_rank_by_lines_per_id(degrees, seed, data):
    rng = np.random.default_rng(seed)
    degree = np.array(degrees) * (rng.random(len(degrees)) < 0.8)  # some lists empty
    offsets = np.concatenate([[0], np.cumsum(degree)]).astype(np.int64)
    room = data.draw(st.integers(1, max(int(degree.sum()) - 1, 1)))
    hot, arcs = _line_saving_lists(offsets, room)
    assert np.array_equal(hot, lines_per_id_ranking(offsets, room))
    assert arcs == int(degree[hot].sum()) <= room
