"""Common neighbours of many pairs with Numba: each pair's two sorted lists merged, or, where their
lengths differ a lot, the shorter one's entries searched for in the longer by galloping (each
search starts where the one before ended, doubling its step: a short list's entries fall in a few
lines of a hub's)."""

import numba
import numpy as np

from .serial import by_size

#: a list this many times longer than the other is searched, not merged
SEARCH_RATIO = 4


@numba.njit(cache=True, inline="always")
def _gallop(indices, lo, end, x):
    """The first position q in [lo, end) with indices[q] >= x (end if none), indices[lo:end]
    sorted: steps of 1, 2, 4, ... from lo, then a binary search of the last step."""
    step, hi = 1, lo
    while hi < end and indices[hi] < x:
        lo = hi + 1
        hi = lo + step
        step *= 2
    return lo + np.searchsorted(indices[lo : min(hi, end)], x)


@numba.njit(parallel=True, cache=True)
def pair_sums(offsets, indices, us, vs, weights):
    """Per pair i, the common neighbours of us[i] and vs[i] and the sum of `weights` over them.

    Parameters
    ----------
    offsets, indices : numpy.ndarray
        A CSR whose rows are sorted.
    us, vs : numpy.ndarray of int
        The pairs' vertices.
    weights : numpy.ndarray of float64
        A weight per vertex.

    Returns
    -------
    counts : numpy.ndarray of int64
    sums : numpy.ndarray of float64
    """
    k = us.shape[0]
    counts = np.zeros(k, np.int64)
    sums = np.zeros(k, np.float64)
    for i in numba.prange(k):
        a, b = us[i], vs[i]
        pa, ea, pb, eb = offsets[a], offsets[a + 1], offsets[b], offsets[b + 1]
        if ea - pa > eb - pb:
            pa, ea, pb, eb = pb, eb, pa, ea
        c, s = 0, 0.0
        if (ea - pa) * SEARCH_RATIO < eb - pb:
            for p in range(pa, ea):
                x = indices[p]
                pb = _gallop(indices, pb, eb, x)
                if pb < eb and indices[pb] == x:
                    c += 1
                    s += weights[x]
        else:
            while pa < ea and pb < eb:
                x, y = indices[pa], indices[pb]
                if x == y:
                    c += 1
                    s += weights[x]
                pa += x <= y
                pb += y <= x
        counts[i] = c
        sums[i] = s
    return counts, sums


#: the kernel for pairs whose shorter lists hold so many arcs in all (its serial twin up to
#: SMALL_ARCS: a parallel launch costs more than a batch of NetworkX's pairs takes serially)
kernels = by_size(pair_sums)
