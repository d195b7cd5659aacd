"""Semi-synchronous label propagation (Cordasco and Gargano, 2010), as NetworkX runs it.

A greedy colouring (largest degree first) splits the vertices into classes without an edge inside;
a round updates the classes one after another, each vertex taking the label most frequent among
its neighbours (Prec-Max: on a tie it keeps its label if that is among the most frequent, else it
takes the largest). No two vertices of a class are adjacent, so a class's vertices update in
parallel to the labels a serial pass would give. A vertex's labels are tallied in a small hash
table (twice its degree) of its piece: no n-entry tally per thread.
"""

import numba
import numpy as np

from .serial import by_size
from .shares import CHECK_MASK


@numba.njit(nogil=True, cache=True)
def greedy_colour(offsets, indices, order, colour, seen, stop):
    """Give each vertex, in `order`, the smallest colour none of its coloured neighbours has
    (returning early once `stop[0]` is set).

    `colour` and `seen` (n entries each) must hold -1 on entry."""
    for i in range(order.shape[0]):
        if i & CHECK_MASK == 0 and stop[0]:
            return
        v = order[i]
        for p in range(offsets[v], offsets[v + 1]):
            c = colour[np.uint64(indices[np.uint64(p)])]  # unsigned: no wraparound test
            if c >= 0:
                seen[np.uint64(c)] = v
        c = 0
        while seen[c] == v:
            c += 1
        colour[v] = c


@numba.njit(cache=True, inline="always")
def _slot(label, shift):
    """A label's first slot in a table of 2**(64 - shift) (Fibonacci hashing)."""
    return np.int64((np.uint64(label) * np.uint64(0x9E3779B97F4A7C15)) >> shift)


@numba.njit(cache=True, inline="always")
def gather(values, indices, lo, hi, out):
    """out[: hi - lo] = values[indices[lo:hi]], element by element with unsigned ids (no
    wraparound test): loads that depend on nothing, so many are in flight at once, where a tally
    reading each value as it probes would wait for each (docs/tuning.md, Gathered labels)."""
    for j in range(hi - lo):
        out[j] = values[np.uint64(indices[np.uint64(lo + j)])]


@numba.njit(cache=True, inline="always")
def _choice(offsets, indices, labels, v, keys, counts, gathered):
    """(whether v's label is among the most frequent of its neighbours', the largest of those most
    frequent); (True, label) for a vertex without neighbours. The neighbours' labels are first
    gathered into `gathered` (at least v's degree entries), then tallied in an open-addressing
    table of at least twice v's degree slots (`keys`, `counts`)."""
    lo, hi = offsets[v], offsets[v + 1]
    own = labels[v]
    if hi == lo:
        return True, own
    degree = hi - lo
    gather(labels, indices, lo, hi, gathered)
    bits = 1
    while (1 << bits) < 2 * degree:
        bits += 1
    shift = np.uint64(64 - bits)
    mask = (1 << bits) - 1
    keys[: mask + 1] = -1
    top, best = 0, own
    for j in range(degree):
        label = gathered[j]
        h = _slot(label, shift)
        while keys[h] != label and keys[h] != -1:
            h = (h + 1) & mask
        if keys[h] == -1:
            keys[h] = label
            counts[h] = 0
        counts[h] += 1
        c = counts[h]
        if c > top:
            top, best = c, label
        elif c == top and label > best:
            best = label
    h = _slot(own, shift)
    while keys[h] != own and keys[h] != -1:
        h = (h + 1) & mask
    return keys[h] == own and counts[h] == top, best


@numba.njit(cache=True)
def table_slots(offsets, members, lo, hi):
    """Slots of a tally table for the list of any of members[lo:hi] and one key more: the power of
    two at least twice the widest list plus one."""
    most = 1
    for i in range(lo, hi):
        v = members[i]
        most = max(most, offsets[v + 1] - offsets[v] + 1)
    size = 2
    while size < 2 * most:
        size <<= 1
    return size


@numba.njit(cache=True, inline="always")
def class_piece(starts, c, k, parts):
    """The bounds (lo, hi) in members of piece k of `parts` of colour class c."""
    size = starts[c + 1] - starts[c]
    return starts[c] + size * k // parts, starts[c] + size * (k + 1) // parts


@numba.njit(parallel=True, nogil=True, cache=True)
def propagate(offsets, indices, members, starts, labels, pieces, stop):
    """Run rounds over the colour classes (class c: members[starts[c]:starts[c + 1]]) until every
    vertex with a neighbour has a most frequent label (NetworkX's stopping rule); return the number
    of rounds NetworkX runs. The rule holds exactly when a round changes no label (a round from
    any other state changes one), so that last round is the check and is not counted. Each class
    runs in up to `pieces` parallel pieces. Only a vertex with a neighbour relabelled since it last
    chose chooses again: the others would keep their labels (a vertex's choice reads only its
    neighbours' labels, and after it chose, its label is one of the most frequent). Returns early,
    between classes, once `stop[0]` is set."""
    rounds = 0
    changed = np.zeros(pieces, np.int64)
    stale = np.ones(offsets.shape[0] - 1, np.bool_)
    while True:
        changed[:] = 0
        for c in range(starts.shape[0] - 1):
            if stop[0]:
                return rounds
            parts = min(pieces, starts[c + 1] - starts[c])
            for k in numba.prange(parts):
                lo, hi = class_piece(starts, c, k, parts)
                slots = table_slots(offsets, members, lo, hi)
                keys, counts = np.empty(slots, labels.dtype), np.empty(slots, np.int32)
                gathered = np.empty(slots // 2, labels.dtype)
                for i in range(lo, hi):
                    v = members[i]
                    if not stale[v]:
                        continue
                    stale[v] = False
                    kept, best = _choice(offsets, indices, labels, v, keys, counts, gathered)
                    if not kept:
                        labels[v] = best
                        changed[k] += 1
                        # its neighbours (in other classes; v itself through a loop)
                        for p in range(offsets[v], offsets[v + 1]):
                            stale[indices[p]] = True
        if changed.sum() == 0:
            return rounds
        rounds += 1


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(propagate)
