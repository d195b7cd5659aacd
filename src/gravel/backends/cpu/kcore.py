"""Core numbers by the O(m) bucket peeling of Batagelj and Zaversnik (2003)."""

import numba
import numpy as np

from . import shares


def core_numbers(offsets, indices):
    """Core number of every vertex (int32). Degrees and their counts come from NumPy, so the kernel
    holds plain loops only: NumPy calls inside it (max, cumsum, astype) took most of its first
    compile (docs/tuning.md, first run). The peeling runs on the shares' pool: Ctrl-C stops it
    (shares.stoppable)."""
    deg = np.diff(offsets)
    count = np.bincount(deg, minlength=1)  # vertices of each degree
    bins = np.zeros(count.shape[0] + 1, np.int64)
    np.cumsum(count[:-1], out=bins[2:])  # bins[d + 1]: the first position of degree d
    pos = np.empty(deg.shape[0], np.int64)
    vert = np.empty(deg.shape[0], np.int64)
    shares.stoppable(_peel, offsets, indices, deg, bins, pos, vert)
    return deg.astype(np.int32)


@numba.njit(nogil=True, cache=True)
def _peel(offsets, indices, deg, bins, pos, vert, stop):
    """Sort the vertices by degree into `vert` (`pos` its inverse), advancing ``bins[d + 1]`` past
    degree d, so that ``bins[d]`` ends as the first position of degree d; then peel them in that
    order, lowering `deg` to the core numbers in place; returns early once `stop[0]` is set."""
    for v in range(deg.shape[0]):
        p = bins[deg[v] + 1]
        bins[deg[v] + 1] = p + 1
        pos[v] = p
        vert[p] = v
    for i in range(vert.shape[0]):
        if i & shares.CHECK_MASK == 0 and stop[0]:
            return
        v = vert[i]
        for p in range(offsets[v], offsets[v + 1]):
            u = indices[p]
            if deg[u] > deg[v]:
                du = deg[u]
                pu = pos[u]
                pw = bins[du]
                w = vert[pw]
                if u != w:
                    pos[u], pos[w] = pw, pu
                    vert[pu], vert[pw] = w, u
                bins[du] += 1
                deg[u] -= 1
