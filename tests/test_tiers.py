"""The tiered placement's device tier: the hot vertices' lists, located by their own offsets."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel import generate, transform
from gravel.layouts.tiers import hot_lists

from .strategies import graphs


@settings(max_examples=60, deadline=None)
@given(graphs(), st.data())
def test_hot_lists_are_the_hot_vertices_lists(G, data):
    hot = np.array(data.draw(st.lists(st.booleans(), min_size=G.n, max_size=G.n)), bool)
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
