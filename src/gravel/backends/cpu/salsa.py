"""The components of SALSA's hub-authority graph: a copy u of each vertex as a hub and n + v as an
authority, joined by each arc u -> v; union-find (cc's find), serial, one pass over the arcs."""

import numba
import numpy as np

from .cc import _find


@numba.njit(cache=True)
def sides_components(offsets, indices):
    """Component label (its smallest member) of each of the 2n hub and authority copies."""
    n = offsets.shape[0] - 1
    comp = np.arange(2 * n, dtype=np.int64)
    for u in range(n):
        for p in range(offsets[u], offsets[u + 1]):
            a = _find(comp, u)
            b = _find(comp, n + indices[p])
            if a != b:
                comp[max(a, b)] = min(a, b)
    for x in range(2 * n):
        comp[x] = comp[_find(comp, x)]
    return comp
