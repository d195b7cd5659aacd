"""Jones-Plassmann colouring (Jones and Plassmann, SIAM J. Sci. Comput. 1993) with Numba.

A vertex is coloured once every neighbour of higher priority is: it takes the smallest colour none
of them has. Its neighbours of lower priority wait for it, so none is coloured yet, and the result
is the sequential greedy colouring in priority order, however the rounds are scheduled. Each thread
marks the colours it sees in its own row of `seen` (n_threads x (max degree + 1)).
"""

import numba
import numpy as np

from .serial import by_size


@numba.njit(parallel=True, nogil=True, cache=True)
def colour_round(offsets, indices, rank, pending, colour, seen, stop):
    """Colour the vertices of `pending` whose higher-priority neighbours are coloured (-1: not
    yet). `seen` must hold -1 at the colouring's first round (a fresh array per colouring: its
    marks are vertex ids of this colouring); self loops must be gone. Once `stop[0]` is set the
    rest stay uncoloured (an interrupted caller)."""
    for i in numba.prange(pending.shape[0]):
        if stop[0]:
            continue
        v = pending[i]
        row = seen[numba.get_thread_id()]
        ready = True
        # one pass marks the neighbours' colours and meets any uncoloured one of higher priority;
        # marks left by a vertex that was not ready stay true: a colour, once given, stays
        for p in range(offsets[v], offsets[v + 1]):
            u = np.uint64(indices[np.uint64(p)])  # unsigned: no wraparound test
            c = colour[u]
            if c >= 0:
                row[np.uint64(c)] = v
            elif rank[u] < rank[v]:
                ready = False
                break
        if ready:
            c = 0
            while row[c] == v:
                c += 1
            colour[v] = c


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(colour_round)
