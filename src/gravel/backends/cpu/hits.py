"""HITS's power iteration on the CPU: the sparse matrix-vector product over a CSR (or CSC) layout,
and the scaling of both vectors with the change of the hubs (their maxima, then one pass)."""

import numba
import numpy as np

from .serial import by_size


@numba.njit(parallel=True, cache=True)
def gather(offsets, indices, weights, x, y):
    """y[u] = sum over u's list of weight * x[neighbour] (weight 1 where `weights` is None): A x
    over the out-lists, A^T x over the in-lists. One thread per row, no atomics."""
    for u in numba.prange(y.shape[0]):
        s = 0.0
        for p in range(offsets[u], offsets[u + 1]):
            if weights is None:
                s += x[indices[p]]
            else:
                s += weights[p] * x[indices[p]]
        y[u] = s


@numba.njit(parallel=True, cache=True)
def scale(h, a, last):
    """h and a divided by their largest entries (as NetworkX scales them); returns the L1 change
    of h from `last`, NaN (nothing scaled) where a largest entry is not positive."""
    top_h, top_a = h.max(), a.max()
    if not (top_h > 0.0 and top_a > 0.0):
        return np.nan
    change = 0.0
    for i in numba.prange(h.shape[0]):
        h[i] /= top_h
        a[i] /= top_a
        change += abs(h[i] - last[i])
    return change


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(gather, scale)
