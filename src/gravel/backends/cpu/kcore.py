"""Core numbers by the O(m) bucket peeling of Batagelj and Zaversnik (2003)."""

import numba
import numpy as np


@numba.njit(cache=True)
def core_numbers(offsets, indices):
    n = offsets.shape[0] - 1
    deg = (offsets[1:] - offsets[:-1]).astype(np.int64)
    md = deg.max() if n else 0
    bin_ = np.zeros(md + 2, np.int64)
    for v in range(n):
        bin_[deg[v] + 1] += 1
    bin_ = np.cumsum(bin_)  # bin_[d] = first position of degree d
    pos = np.empty(n, np.int64)
    vert = np.empty(n, np.int64)
    nextpos = bin_.copy()
    for v in range(n):
        pos[v] = nextpos[deg[v]]
        vert[pos[v]] = v
        nextpos[deg[v]] += 1
    for i in range(n):
        v = vert[i]
        for p in range(offsets[v], offsets[v + 1]):
            u = indices[p]
            if deg[u] > deg[v]:
                du = deg[u]
                pu = pos[u]
                pw = bin_[du]
                w = vert[pw]
                if u != w:
                    pos[u], pos[w] = pw, pu
                    vert[pu], vert[pw] = w, u
                bin_[du] += 1
                deg[u] -= 1
    return deg.astype(np.int32)
