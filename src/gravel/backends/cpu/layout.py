"""ForceAtlas2's forces (Jacomy, Venturini, Heymann and Bastian 2014) on the CPU.

One pass per iteration, a vertex per loop turn: attraction along its out-arcs, exact repulsion
from every other vertex (O(n^2): the layout is for graphs one can draw), and gravity toward the
centre. Each vertex writes only its own row of `update`, so the turns run in parallel.
"""

import numba
import numpy as np


@numba.njit(parallel=True, cache=True)
def forces(pos, mass, size, offsets, indices, weights, center, scaling, gravity, flags, update):
    """Fill `update` (n x dim) with each vertex's force; `flags` holds linlog, distributed
    action, strong gravity and size adjustment as 0/1 (in that order)."""
    n, dim = pos.shape
    linlog, distributed, strong, adjust = flags[0], flags[1], flags[2], flags[3]
    for i in numba.prange(n):
        f = np.zeros(dim)
        d = np.empty(dim)
        for p in range(offsets[i], offsets[i + 1]):
            j = indices[p]
            if j == i:
                continue
            r2 = 0.0
            for k in range(dim):
                d[k] = pos[i, k] - pos[j, k]
                r2 += d[k] * d[k]
            c = -weights[p]
            if linlog:
                r = np.sqrt(r2)
                c = c * np.log(1.0 + r) / r if r > 0 else 0.0
            for k in range(dim):
                f[k] += c * d[k]
        if distributed:
            for k in range(dim):
                f[k] /= mass[i]
        for j in range(n):  # each difference read twice: no store into `d` in the hot loop
            r2 = 0.0
            for k in range(dim):
                r2 += (pos[i, k] - pos[j, k]) ** 2
            r = np.sqrt(r2)
            if adjust:
                r -= size[i] + size[j]
            if j != i and r != 0.0:
                c = scaling * mass[i] * mass[j] / (r * r)
                for k in range(dim):
                    f[k] += c * (pos[i, k] - pos[j, k])
        norm = 0.0
        for k in range(dim):
            d[k] = pos[i, k] - center[k]
            norm += d[k] * d[k]
        norm = np.sqrt(norm)
        for k in range(dim):
            if strong:
                f[k] -= gravity * mass[i] * d[k]
            elif norm > 0:
                f[k] -= gravity * mass[i] * d[k] / norm
            update[i, k] = f[k]
