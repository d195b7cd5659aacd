"""Semi-synchronous label propagation (Cordasco and Gargano, 2010), as NetworkX runs it.

A greedy colouring (largest degree first) splits the vertices into classes without an edge inside;
a round updates the classes one after another, each vertex taking the label most frequent among
its neighbours (Prec-Max: on a tie it keeps its label if that is among the most frequent, else it
takes the largest). No two vertices of a class are adjacent, so the order inside a class does not
matter. Serial plain loops over one n-entry tally: they compile in a fraction of a second.
"""

import numba


@numba.njit(cache=True)
def greedy_colour(offsets, indices, order, colour, seen):
    """Give each vertex, in `order`, the smallest colour none of its coloured neighbours has.

    `colour` and `seen` (n entries each) must hold -1 on entry."""
    for v in order:
        for p in range(offsets[v], offsets[v + 1]):
            c = colour[indices[p]]
            if c >= 0:
                seen[c] = v
        c = 0
        while seen[c] == v:
            c += 1
        colour[v] = c


@numba.njit(cache=True)
def _tally(offsets, indices, labels, v, count, touched):
    """Count the labels of v's neighbours into `count`; return how many labels and the top count."""
    k = 0
    top = 0
    for p in range(offsets[v], offsets[v + 1]):
        label = labels[indices[p]]
        if count[label] == 0:
            touched[k] = label
            k += 1
        count[label] += 1
        top = max(top, count[label])
    return k, top


@numba.njit(cache=True)
def _settled(offsets, indices, labels, count, touched):
    """NetworkX's stopping rule: every vertex with a neighbour has a most frequent label."""
    for v in range(labels.shape[0]):
        k, top = _tally(offsets, indices, labels, v, count, touched)
        ok = k == 0 or count[labels[v]] == top
        count[touched[:k]] = 0
        if not ok:
            return False
    return True


@numba.njit(cache=True)
def propagate(offsets, indices, members, labels, count, touched):
    """Run rounds over `members` (the vertices sorted by colour) until the labels settle; return
    the number of rounds. `count` (n entries) must hold 0 on entry; `touched` has n entries."""
    rounds = 0
    while not _settled(offsets, indices, labels, count, touched):
        for v in members:
            k, top = _tally(offsets, indices, labels, v, count, touched)
            if k > 0 and count[labels[v]] != top:
                best = -1
                for i in range(k):
                    if count[touched[i]] == top:
                        best = max(best, touched[i])
                labels[v] = best
            count[touched[:k]] = 0
        rounds += 1
    return rounds
