"""Propagation blocking's kernels that know no program: counting a push's updates by bin, and
gathering the vertices each bin (or range) of destinations reached into one list.

A push from senders ``ids[cuts[c]:cuts[c + 1]]`` (chunk c) sends each arc's update to bin
``target >> shift``; ``counts[c, b]`` counts chunk c's updates to bin b (Balaji's thesis, 5.2.1:
per-thread bins, written without synchronisation).
"""

import numba
import numpy as np


@numba.njit(parallel=True, cache=True)
def bin_counts(ids, cuts, offsets, targets, shift, counts):
    """Add chunk c's updates to bin b into ``counts[c, b]``."""
    for c in numba.prange(cuts.size - 1):
        for i in range(cuts[c], cuts[c + 1]):
            u = ids[i]
            for e in range(offsets[u], offsets[u + 1]):
                counts[c, targets[e] >> shift] += 1


@numba.njit(parallel=True, cache=True)
def gather_reached(reached, width, found, touched, k):
    """Append the ``found[r]`` vertices range r of `width` destinations reached (kept at
    ``reached[r * width:]``) to ``touched`` from k on; returns the new end."""
    at = np.empty(found.size + 1, np.int64)
    at[0] = k
    for r in range(found.size):
        at[r + 1] = at[r] + found[r]
    for r in numba.prange(found.size):
        lo = r * width
        for j in range(found[r]):
            touched[at[r] + j] = reached[lo + j]
    return at[found.size]
