"""Jones-Plassmann colouring (Jones and Plassmann, SIAM J. Sci. Comput. 1993) with Numba.

A vertex is coloured once every neighbour of higher priority is: it takes the smallest colour none
of them has. Its neighbours of lower priority wait for it, so none is coloured yet, and the result
is the sequential greedy colouring in priority order, however the rounds are scheduled. Each thread
marks the colours it sees in its own row of `seen` (n_threads x (max degree + 1)).
"""

import numba

from .serial import by_size


@numba.njit(parallel=True, nogil=True, cache=True)
def colour_round(offsets, indices, rank, pending, colour, seen, stop):
    """Colour the vertices of `pending` whose higher-priority neighbours are coloured (-1: not
    yet). `seen` must hold -1 on first use; self loops must be gone. Once `stop[0]` is set the
    rest stay uncoloured (an interrupted caller)."""
    for i in numba.prange(pending.shape[0]):
        if stop[0]:
            continue
        v = pending[i]
        ready = True
        for p in range(offsets[v], offsets[v + 1]):
            u = indices[p]
            if rank[u] < rank[v] and colour[u] < 0:
                ready = False
                break
        if ready:
            row = seen[numba.get_thread_id()]
            for p in range(offsets[v], offsets[v + 1]):
                c = colour[indices[p]]
                if c >= 0:
                    row[c] = v
            c = 0
            while row[c] == v:
                c += 1
            colour[v] = c


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(colour_round)
