"""The two sums over a CSR graph's arcs behind modularity (Newman and Girvan 2004), counted as
``networkx.community.modularity`` counts them: a self loop adds twice its weight, to its vertex's
degree and to its community's inside weight. One pass each, in parallel over the rows."""

import numba
import numpy as np

from .serial import by_size


@numba.njit(parallel=True, cache=True)
def degrees(offsets, indices, weights):
    """Each vertex's (weighted; `weights` None: 1 an arc) degree, float64."""
    n = offsets.shape[0] - 1
    out = np.empty(n)
    for u in numba.prange(n):
        s = 0.0
        for p in range(offsets[u], offsets[u + 1]):
            w = 1.0 if weights is None else np.float64(weights[p])
            s += 2.0 * w if indices[p] == u else w
        out[u] = s
    return out


@numba.njit(parallel=True, cache=True)
def inside(offsets, indices, labels, weights):
    """Twice the weight of the edges inside the communities `labels`.

    Each row's sum lands in its own slot, summed after the loop: a scalar reduction over the
    prange beside the inner loop's test of `labels` fails to compile in some Numba releases
    (numba/numba#10132, "unexpected cycle in lookup()")."""
    n = offsets.shape[0] - 1
    rows = np.zeros(n)
    for u in numba.prange(n):
        s = 0.0
        mine = labels[u]
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[np.uint64(p)]
            if labels[np.uint64(v)] == mine:  # unsigned: no wraparound test
                w = 1.0 if weights is None else np.float64(weights[p])
                s += 2.0 * w if v == u else w
        rows[u] = s
    return rows.sum()


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(degrees, inside)
