"""Hypothesis strategies for small random graphs with the awkward cases: isolated vertices, self
loops, duplicate edges, empty graphs."""

import numpy as np
from hypothesis import strategies as st

import gravel


@st.composite
def graphs(draw, max_n=40, max_m=120, directed=None, weighted=False):
    n = draw(st.integers(0, max_n))
    if directed is None:
        directed = draw(st.booleans())
    m = draw(st.integers(0, max_m)) if n else 0
    src = np.array(
        draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)) if n else [], np.int64
    )
    dst = np.array(
        draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)) if n else [], np.int64
    )
    w = None
    if weighted:
        w = np.array(draw(st.lists(st.integers(1, 20), min_size=m, max_size=m)), np.float64)
    return gravel.Graph.from_edges(src, dst, w, n=n, directed=directed)
