"""Sparse matrix-vector product over a CSR (or CSC) layout, the step of HITS's power iteration."""

import numba

from ._serial import by_size


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


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(gather)
