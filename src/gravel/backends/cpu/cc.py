"""Afforest connected components (Sutton, Ben-Nun, Barak, IPDPS'18; GAP's cc.cc) with Numba.

Union by linking the larger root under the smaller id with a compare-and-swap (atomics.py), as
GAP's cc.cc does, so each tree's root is its smallest vertex and no link is lost to a racing one.
"""

import numba
import numpy as np

from . import atomics
from .serial import by_size


@numba.njit(cache=True, inline="always")
def _find(comp, x):
    x = np.int64(x)
    while comp[x] != x:
        x = np.int64(comp[x])
    return x


@numba.njit(cache=True, inline="always")
def _link(comp, u, v):
    """Join the trees of u and v: climb from their parents (not their roots: after a compress,
    the parents are the roots, and most arcs end at once) until one side is a root it can hang
    under the other, or the two meet (GAP's Link). Climbing, it halves the path (as ECL-CC's
    find): the vertex it leaves points at its grandparent, so that the trees stay shallow while
    the sampling rounds merge them, before any compress (docs/tuning.md, CC's link halving). A
    parent always has the smaller id and a non-root never becomes a root again, so a racing
    store of another ancestor keeps the forest, as in compress."""
    a = np.int64(comp[u])
    b = np.int64(comp[v])
    while a != b:
        hi = max(a, b)
        lo = min(a, b)
        up = np.int64(comp[hi])
        if up == lo or (
            up == hi and atomics.compare_exchange(comp, hi, np.int32(hi), np.int32(lo)) == hi
        ):
            return
        a = np.int64(comp[up])
        if a != up:
            comp[hi] = a
        b = np.int64(comp[lo])


@numba.njit(parallel=True, cache=True)
def link_neighbour(offsets, indices, comp, r):
    """Link every vertex with its r-th neighbour (the sampling rounds)."""
    for u in numba.prange(comp.shape[0]):
        p = offsets[u] + r
        if p < offsets[u + 1]:
            _link(comp, u, indices[p])


@numba.njit(parallel=True, cache=True)
def compress(comp):
    """Point every vertex at its root, halving its path as it climbs (GAP's Compress): each step
    writes the grandparent, so a later vertex below it climbs less. Threads write only their own
    vertices' entries, and an entry only ever moves to an ancestor, so racing reads stay on the
    path."""
    for u in numba.prange(comp.shape[0]):
        while comp[u] != comp[comp[u]]:
            comp[u] = comp[comp[u]]


@numba.njit(parallel=True, cache=True)
def link_rest(offsets, indices, comp, start, skip):
    """Link the remaining edges (from the start-th neighbour on) of vertices outside component
    `skip`."""
    for u in numba.prange(comp.shape[0]):
        if comp[u] == skip:
            continue
        for p in range(offsets[u] + start, offsets[u + 1]):
            _link(comp, u, indices[p])


@numba.njit(parallel=True, cache=True)
def link_inside(offsets, indices, comp, label):
    """Link the arcs whose two ends have the same `label` (the parts of each labelled set:
    Leiden's split of its communities), reading the arcs where they lie."""
    for u in numba.prange(comp.shape[0]):
        mine = label[u]
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if label[v] == mine:
                _link(comp, u, v)


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(link_neighbour, compress, link_rest, link_inside)
