"""The components of SALSA's hub-authority graph: a copy u of each vertex as a hub and n + v as an
authority, joined by each arc u -> v; linked in parallel by cc.py's compare-and-swap union, then
each copy pointed at its root (its component's smallest copy)."""

import numba

from .cc import _link
from .serial import by_size


@numba.njit(parallel=True, cache=True)
def link_sides(offsets, indices, comp):
    """Union hub u with authority n + v for every arc u -> v; `comp` (2n entries) starts as
    0..2n-1."""
    n = offsets.shape[0] - 1
    for u in numba.prange(n):
        for p in range(offsets[u], offsets[u + 1]):
            _link(comp, u, n + indices[p])


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(link_sides)
