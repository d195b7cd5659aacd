"""Array-level lookups of arcs and common neighbours, written once for NumPy and CuPy (the module
of the arrays given): the GPU paths of link prediction and truss decomposition run them on the
device, and the tests run them on the host against the CPU kernels."""

import numpy as np

from ..arrays import entry_rows, list_entries, xp


def arc_keys(offsets, indices):
    """Each arc's key ``row * n + column``: increasing along a CSR whose rows are sorted, so that
    :func:`find_arcs` finds an arc by binary search.

    Parameters
    ----------
    offsets, indices : numpy.ndarray or cupy.ndarray
        A CSR with sorted rows.

    Returns
    -------
    numpy.ndarray or cupy.ndarray of int64
    """
    n = offsets.shape[0] - 1
    rows = entry_rows(offsets, indices.shape[0])
    return rows.astype(np.int64) * n + indices.astype(np.int64)


def find_arcs(keys, n, rows, cols):
    """The position of each arc rows[i] -> cols[i] among the CSR's entries, or -1 where absent.

    Parameters
    ----------
    keys : numpy.ndarray or cupy.ndarray of int64
        :func:`arc_keys` of the CSR.
    n : int
        Its vertices.
    rows, cols : numpy.ndarray or cupy.ndarray of int
        The arcs looked for.

    Returns
    -------
    numpy.ndarray or cupy.ndarray of int64
    """
    m = xp(keys)
    q = rows.astype(np.int64) * n + cols.astype(np.int64)
    if not keys.shape[0]:
        return m.full(q.shape[0], -1, np.int64)
    pos = m.minimum(m.searchsorted(keys, q), keys.shape[0] - 1)
    return m.where(keys[pos] == q, pos, -1)


def common_entries(offsets, indices, keys, us, vs):
    """The common neighbours of pairs (us[i], vs[i]), as entries: the shorter list's entries are
    searched in the other's.

    Parameters
    ----------
    offsets, indices : numpy.ndarray or cupy.ndarray
        A CSR with sorted rows.
    keys : numpy.ndarray or cupy.ndarray of int64
        Its :func:`arc_keys`.
    us, vs : numpy.ndarray or cupy.ndarray of int
        The pairs.

    Returns
    -------
    pair : numpy.ndarray or cupy.ndarray of int64
        The pair of each common neighbour found.
    at_short, at_long : numpy.ndarray or cupy.ndarray of int64
        The positions of the arcs to it from the pair's vertex of shorter list, and of longer.
    """
    m = xp(offsets)
    n = offsets.shape[0] - 1
    du, dv = offsets[us + 1] - offsets[us], offsets[vs + 1] - offsets[vs]
    swap = du > dv
    short, long_ = m.where(swap, vs, us), m.where(swap, us, vs)
    at_short, pair = list_entries(offsets, short)
    at_long = find_arcs(keys, n, long_[pair], indices[at_short])
    hit = at_long >= 0
    return pair[hit], at_short[hit], at_long[hit]


def tally(at, length, weights=None):
    """``bincount(at, weights, minlength=length)`` in the module of `at`, empty `at` included
    (CuPy's bincount refuses an empty array).

    Parameters
    ----------
    at : numpy.ndarray or cupy.ndarray of int
        Positions, each below `length`.
    length : int
        The result's length.
    weights : numpy.ndarray or cupy.ndarray, optional
        What each position adds (1 if None).

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        float64 with `weights`, else int64.
    """
    m = xp(at)
    if not at.shape[0]:
        return m.zeros(length, np.int64 if weights is None else np.float64)
    out = m.bincount(at, weights=weights, minlength=length)
    return out.astype(np.int64 if weights is None else np.float64)
