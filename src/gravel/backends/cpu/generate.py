"""Numba kernels of the graph generators.

Every random number is a hash of (seed, counter) (splitmix64), not a draw from a stateful stream, so
edges are generated in parallel in any order and the CUDA generators reproduce them bit for bit.
"""

import numba
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, inline="always")
def mix64(x):
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def rand64(seed, counter):
    return mix64(np.uint64(seed) + np.uint64(counter + 1) * _GOLDEN)


@numba.njit(cache=True, inline="always")
def permute_id(x, scale, seed):
    """A keyed bijection of [0, 2**scale): rounds of multiply-by-odd and xor-shift, each invertible
    modulo 2**scale. It scrambles vertex ids as Graph500 asks, with no permutation table to look up
    (a table of 2**scale ids misses the cache on every edge)."""
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    h = np.uint64(x)
    shift = np.uint64(max(scale // 2, 1))
    for r in range(3):
        key = rand64(seed, np.uint64(0xFFFFFFFF00000000) + np.uint64(r))
        h = (h * (key | np.uint64(1))) & mask
        h = h ^ (h >> shift)
        h = (h + (key >> np.uint64(32))) & mask
    return h


@numba.njit(parallel=True, nogil=True, cache=True)
def kronecker_edges(scale, first, count, seed, a, b, c):
    """Graph500 Kronecker edges first .. first + count - 1, endpoints scrambled by `permute_id`;
    each level picks a quadrant with probabilities a, b, c, 1-a-b-c.

    A 64-bit hash gives four 16-bit uniforms, one per level: the probabilities are quantised to
    1/65536, far below the sampling noise, for a quarter of the hashing.
    """
    ta = np.uint64(a * 65536.0)
    tb = np.uint64((a + b) * 65536.0)
    tc = np.uint64((a + b + c) * 65536.0)
    src = np.empty(count, np.int32)
    dst = np.empty(count, np.int32)
    words = (scale + 3) // 4
    for i in numba.prange(count):
        e = first + i
        u = 0
        v = 0
        r = np.uint64(0)
        for level in range(scale):
            if level % 4 == 0:
                r = rand64(seed, np.uint64(e) * np.uint64(words) + np.uint64(level // 4))
            x = (r >> np.uint64(16 * (level % 4))) & np.uint64(0xFFFF)
            # quadrant A [0, ta), B [ta, tb), C [tb, tc), D [tc, 1): branch-free (a random choice)
            ub = np.int64(x >= tb)
            vb = np.int64(x >= ta) - ub + np.int64(x >= tc)
            u |= ub << level
            v |= vb << level
        src[i] = permute_id(u, scale, seed)
        dst[i] = permute_id(v, scale, seed)
    return src, dst


@numba.njit(parallel=True, nogil=True, cache=True)
def uniform_edges(n, first, count, seed):
    """Edges first .. first + count - 1 of GAP's urand: both endpoints uniform in [0, n)."""
    src = np.empty(count, np.int32)
    dst = np.empty(count, np.int32)
    for i in numba.prange(count):
        r = rand64(seed, first + i)
        src[i] = np.int32((r & np.uint64(0xFFFFFFFF)) * np.uint64(n) >> np.uint64(32))
        dst[i] = np.int32((r >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))
    return src, dst


@numba.njit(cache=True)
def grid_edges(rows, cols, diagonals):
    per = 4 if diagonals else 2
    src = np.empty(rows * cols * per, np.int32)
    dst = np.empty(rows * cols * per, np.int32)
    k = 0
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            if c + 1 < cols:
                src[k], dst[k] = v, v + 1
                k += 1
            if r + 1 < rows:
                src[k], dst[k] = v, v + cols
                k += 1
            if diagonals and r + 1 < rows and c + 1 < cols:
                src[k], dst[k] = v, v + cols + 1
                k += 1
            if diagonals and r + 1 < rows and c > 0:
                src[k], dst[k] = v, v + cols - 1
                k += 1
    return src[:k], dst[:k]


@numba.njit(cache=True)
def _points(n, seed):
    xy = np.empty((n, 2), np.float64)
    for i in range(n):
        r = rand64(seed, i)
        xy[i, 0] = (r >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        xy[i, 1] = (mix64(r) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    return xy


@numba.njit(cache=True)
def _close_points(i, xy, cell, g, order, start, r2, src, dst, base, write):
    """Count (and, when `write`, store from `base` on) the points j > i within the radius of point
    i."""
    cx, cy = cell[i] // g, cell[i] % g
    k = 0
    for x in range(max(cx - 1, 0), min(cx + 2, g)):
        for y in range(max(cy - 1, 0), min(cy + 2, g)):
            q = x * g + y
            for s in range(start[q], start[q + 1]):
                j = order[s]
                if j <= i:
                    continue
                ddx = xy[i, 0] - xy[j, 0]
                ddy = xy[i, 1] - xy[j, 1]
                if ddx * ddx + ddy * ddy < r2:
                    if write:
                        src[base + k] = i
                        dst[base + k] = j
                    k += 1
    return k


@numba.njit(parallel=True, cache=True)
def geometric_edges(n, radius, seed):
    """Edges {i, j}, i < j, between points of the unit square closer than `radius` (cells of side
    >= radius, so only the 3 x 3 neighbouring cells are searched)."""
    xy = _points(n, seed)
    g = max(1, int(1.0 / radius))
    cell = np.empty(n, np.int64)
    for i in range(n):
        cell[i] = min(int(xy[i, 0] * g), g - 1) * g + min(int(xy[i, 1] * g), g - 1)
    order = np.argsort(cell, kind="mergesort")
    start = np.searchsorted(cell[order], np.arange(g * g + 1))
    r2 = radius * radius
    none = np.empty(0, np.int32)
    count = np.zeros(n + 1, np.int64)
    for i in numba.prange(n):
        count[i + 1] = _close_points(i, xy, cell, g, order, start, r2, none, none, 0, False)
    offsets = np.cumsum(count)
    src = np.empty(offsets[-1], np.int32)
    dst = np.empty(offsets[-1], np.int32)
    for i in numba.prange(n):
        _close_points(i, xy, cell, g, order, start, r2, src, dst, offsets[i], True)
    return src, dst
