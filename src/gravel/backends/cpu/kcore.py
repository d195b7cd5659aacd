"""Core numbers by the O(m) bucket peeling of Batagelj and Zaversnik (2003), and the h-index
rounds of the iteration of Montresor, De Pellegrini and Miorandi (2013)."""

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


#: rows an h-index share is given, at least: a round of few stale rows stays on one thread, whose
#: hand-off to the pool costs more than a short row
ROWS_PER_THREAD = 2048


def h_index(offsets, indices, values, rows, cap, threads):
    """Per row of `rows`, the largest h <= its `cap` with at least h of its neighbours' `values`
    >= h (``values[indices[p]]`` over the row's entries p), and how many of them are >= h (its
    support, for :func:`stale_rows`). Up to `threads` shares
    (:func:`gravel.backends.cpu.shares.run`) each take rows t, t + threads, ... with a count
    array of their own."""
    h = np.empty(rows.shape[0], np.int64)
    support = np.empty(rows.shape[0], np.int64)
    threads = max(1, min(threads, rows.shape[0] // ROWS_PER_THREAD))
    top = int(cap.max(initial=0))

    def share(t, stop):
        count = np.zeros(top + 1, np.int64)
        _h_rows(offsets, indices, values, rows, cap, t, threads, count, h, support, stop)

    shares.run(share, threads)
    return h, support


@numba.njit(nogil=True, cache=True)
def _h_rows(offsets, indices, values, rows, cap, t, threads, count, h, support, stop):
    """h-indices of rows t, t + threads, ... of `rows` (see h_index): each row's values, capped
    at its cap, counted into `count` (all zero on entry and on exit), then summed from the top
    down to the first h they reach. Returns early once `stop[0]` is set."""
    for i in range(t, rows.shape[0], threads):
        if stop[0]:
            return
        r, c = rows[i], cap[i]
        for p in range(offsets[r], offsets[r + 1]):
            count[min(values[indices[p]], c)] += 1
        at_least, k = 0, c
        while k > 0:
            at_least += count[k]
            if at_least >= k:
                break
            k -= 1
        if k == 0:
            at_least += count[0]
        h[i], support[i] = k, at_least
        count[: c + 1] = 0


def stale_rows(naming, rows, at, old, new, estimate, support, degree):
    """The rows (sorted) whose h-index has fallen below their `estimate` once the vertices `at`
    went from the values `old` to `new`. ``naming``/``rows``: the rows naming each vertex (a CSR
    over all vertices), each list in decreasing `degree` (a bound on the row's estimate), so that
    a vertex's scan stops at the first row whose estimate its new value cannot be under.
    ``support[r]``: how many of row r's values are at least its estimate (no fewer than the
    estimate, as :func:`h_index` leaves it), lowered here for each value that fell from there to
    below it. A row is stale once its support falls below its estimate; the others' h-index is
    still their estimate."""
    out = np.empty(estimate.shape[0], np.int64)
    return out[: _stale_rows(naming, rows, at, old, new, estimate, support, degree, out)]


@numba.njit(nogil=True, cache=True)
def _stale_rows(naming, rows, at, old, new, estimate, support, degree, out):
    k = 0
    for i in range(at.shape[0]):
        x = at[i]
        for p in range(naming[x], naming[x + 1]):
            r = rows[p]
            if degree[r] <= new[i]:  # this row's estimate and the rest's are at most new
                break
            if new[i] < estimate[r] <= old[i]:
                support[r] -= 1
                if support[r] == estimate[r] - 1:  # stale now, and named once
                    out[k] = r
                    k += 1
    out[:k].sort()
    return k
