"""Maximal independent set by random priorities (Luby 1986; Blelloch, Fineman and Shun 2012).

A round decides every pending vertex it can: one with a neighbour in the set leaves, one whose
higher-priority neighbours have all left joins, the others wait. The set is the greedy one in
priority order, so a seed fixes it however the rounds are scheduled; random priorities make the
rounds O(log^2 n) with high probability. A vertex writes only its own state, and a decided state
never changes, so reads racing with writes see either the old or the final value.
"""

import numba

from .serial import by_size

PENDING, IN, OUT = 0, 1, 2


@numba.njit(parallel=True, cache=True)
def decide(offsets, indices, rank, pending, state):
    """One round over `pending` (vertices whose `state` is PENDING); self loops must be gone."""
    for i in numba.prange(pending.shape[0]):
        v = pending[i]
        verdict = IN
        for p in range(offsets[v], offsets[v + 1]):
            u = indices[p]
            s = state[u]
            if s == IN:
                verdict = OUT
                break
            if s == PENDING and rank[u] < rank[v]:
                verdict = PENDING
        state[v] = verdict


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(decide)
