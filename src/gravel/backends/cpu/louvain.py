"""Louvain's two phases on a weighted undirected CSR (Blondel et al. 2008) with Numba: the local
moves serial (each move sees the last) or by colour classes in parallel, the aggregation in
parallel.

A level's graph is its CSR without self loops (each edge in both lists) and `loops[i]`, the weight
of vertex i's self loop; its degree k_i counts the loop twice. `local_moves` moves vertices, in a
given order, to the neighbouring community of largest modularity gain until a pass gains less than
a threshold; `aggregate` makes each community a vertex, its internal weight a self loop. The
local moves run on the shares' pool (shares.stoppable) and return early once their stop flag is
up: between passes, and between colour classes.
"""

import numba
import numpy as np

from .lpa import _slot, class_piece, gather, table_slots
from .serial import is_small

#: above so many arcs a vertex's links are summed in an array over the communities, not a hash
#: table (docs/tuning.md, Louvain)
DENSE_DEGREE = 4096


@numba.njit(cache=True)
def _degrees(offsets, weights, loops, community):
    """Each vertex's degree k (its loop counted twice) and each community's total of them."""
    n = offsets.shape[0] - 1
    k = 2.0 * loops
    for v in range(n):
        for p in range(offsets[v], offsets[v + 1]):
            k[v] += weights[p]
    total = np.zeros(n)
    for v in range(n):
        total[community[v]] += k[v]
    return k, total


@numba.njit(nogil=True, cache=True)
def local_moves(offsets, indices, weights, loops, order, community, resolution, threshold, stop):
    """Move vertices between communities (`community`, updated in place) while a pass over
    `order` raises the modularity by more than `threshold`; returns the number of moves (early,
    between passes, once `stop[0]` is set)."""
    n = offsets.shape[0] - 1
    k, total = _degrees(offsets, weights, loops, community)
    two_m = k.sum()
    if two_m == 0.0:
        return 0
    link = np.zeros(n)  # v's edge weight into each neighbouring community
    seen = np.empty(n, np.int64)  # those communities; stamp[c] == v once c is among them
    stamp = np.full(n, -1, np.int64)
    moves = 0
    while not stop[0]:
        gained = 0.0
        for v in order:
            mine = community[v]
            stamp[mine], seen[0], found = v, mine, 1
            for p in range(offsets[v], offsets[v + 1]):
                c = community[indices[p]]
                if stamp[c] != v:
                    stamp[c], seen[found] = v, c
                    found += 1
                link[c] += weights[p]
            total[mine] -= k[v]
            scale = resolution * k[v] / two_m
            stay = link[mine] - scale * total[mine]
            best, best_gain = mine, stay
            for i in range(found):
                c = seen[i]
                gain = link[c] - scale * total[c]
                if gain > best_gain or (gain == best_gain and c < best and best != mine):
                    best, best_gain = c, gain
            total[best] += k[v]
            if best != mine:
                community[v] = best
                moves += 1
                gained += 2.0 * (best_gain - stay) / two_m
            for i in range(found):  # cleared for the next vertex (v comes round again next pass)
                link[seen[i]] = 0.0
                stamp[seen[i]] = -1
        if gained <= threshold:
            break
    return moves


@numba.njit(parallel=True, nogil=True, cache=True)
def local_moves_parallel(
    offsets,
    indices,
    weights,
    loops,
    members,
    starts,
    community,
    resolution,
    threshold,
    threads,
    pieces,
    stop,
):
    """`local_moves` by colour classes (class c: members[starts[c]:starts[c + 1]], no two of it
    adjacent), each class's vertices choosing in parallel pieces (Lu, Halappanavar and
    Kalyanaraman's colouring heuristic): a vertex sees its neighbours' communities as the classes
    before left them and the community totals as they stood when its class began. The class's
    moves are then checked one by one against the totals as updated, each kept only if it raises
    the modularity, so every pass raises it by what it reports; passes run while one gains more
    than `threshold`. After the first pass only the movers of the pass before and their neighbours
    outside the community each moved to choose again (Ozaki, Tezuka and Inaba's pruning, the rule
    of Leiden's fast local moves). A class's vertices of more than DENSE_DEGREE arcs choose after
    the others, in `threads` pieces, each with an array over the communities of its own. Returns
    the number of moves (early, between classes, once `stop[0]` is set)."""
    n = offsets.shape[0] - 1
    k, total = _degrees(offsets, weights, loops, community)
    two_m = k.sum()
    if two_m == 0.0:
        return 0
    was = np.empty(n, community.dtype)  # each class member's community before its class moved
    inside = np.empty(n)  # and the change of the inside-weight term its move would make
    arcs, q = (offsets, indices, weights), (two_m, resolution)
    # per thread, for the vertices of more than DENSE_DEGREE: link by community (-1: not reached)
    # and the communities reached
    most = np.diff(offsets).max()
    widest = most if most > DENSE_DEGREE else 0
    dense = np.full((threads, n if widest else 0), -1.0)
    reached = np.empty((threads, widest), community.dtype)
    hub_gathered = np.empty((threads, widest), community.dtype)
    active, touched = np.ones(n, np.bool_), np.zeros(n, np.bool_)
    moves = 0
    while True:
        gained = 0.0
        for c in range(starts.shape[0] - 1):
            if stop[0]:
                return moves
            parts = min(pieces, starts[c + 1] - starts[c])
            for j in numba.prange(parts):
                lo, hi = class_piece(starts, c, j, parts)
                slots = table_slots(offsets, members, lo, hi)
                keys, link = np.empty(slots, np.int64), np.empty(slots)
                gathered = np.empty(slots // 2, community.dtype)
                for i in range(lo, hi):
                    v = members[i]
                    was[i] = community[v]
                    if active[v] and offsets[v + 1] - offsets[v] <= DENSE_DEGREE:
                        best, inside[i] = _best_move(
                            arcs, community, total, k, v, q, keys, link, gathered
                        )
                        community[v] = best
            if widest:  # the class's vertices of many arcs, in one piece per thread
                parts = min(threads, starts[c + 1] - starts[c])
                for t in numba.prange(parts):
                    lo, hi = class_piece(starts, c, t, parts)
                    for i in range(lo, hi):
                        v = members[i]
                        if active[v] and offsets[v + 1] - offsets[v] > DENSE_DEGREE:
                            best, inside[i] = _best_move_dense(
                                arcs,
                                community,
                                total,
                                k,
                                v,
                                q,
                                dense[t],
                                reached[t],
                                hub_gathered[t],
                            )
                            community[v] = best
            # Each move again, one after another, against the totals as the moves before it left
            # them: its gain is then exact (no two movers are adjacent, so its inside term is), and
            # a move that would not raise the modularity is undone. Every class raises it.
            for i in range(starts[c], starts[c + 1]):
                v = members[i]
                a, b = was[i], community[v]
                if a == b:
                    continue
                squares = k[v] * (k[v] - 2.0 * total[a]) + k[v] * (k[v] + 2.0 * total[b])
                gain = inside[i] - resolution * squares / (two_m * two_m)
                if gain > 0.0:
                    total[a] -= k[v]
                    total[b] += k[v]
                    moves += 1
                    gained += gain
                    touched[v] = True
                    for p in range(offsets[v], offsets[v + 1]):
                        if community[indices[p]] != b:
                            touched[indices[p]] = True
                else:
                    community[v] = a
        if gained <= threshold:
            return moves
        active, touched = touched, active
        touched[:] = False


@numba.njit(cache=True, inline="always")
def _best_move(arcs, community, total, k, v, q, keys, link, gathered):
    """v's community of largest modularity gain (its own on a tie with staying, else the smallest
    on a tie; `q` is (2m, resolution)) and the change of modularity's inside-weight term by
    moving there (2 (link to it - link to its own) / 2m). v's edge weights into its neighbouring
    communities are summed in the open-addressing table (`keys`, `link`) of at least twice v's
    degree plus one slots, from its neighbours' communities gathered into `gathered` (at least v's
    degree entries) first."""
    offsets, indices, weights = arcs
    two_m, resolution = q
    lo, hi = offsets[v], offsets[v + 1]
    mine = community[v]
    bits = 1
    while (1 << bits) < 2 * (hi - lo + 1):
        bits += 1
    shift = np.uint64(64 - bits)
    mask = (1 << bits) - 1
    gather(community, indices, lo, hi, gathered)
    keys[: mask + 1] = -1
    h = _slot(mine, shift)
    keys[h], link[h] = mine, 0.0
    for p in range(lo, hi):
        c = gathered[p - lo]
        h = _slot(c, shift)
        while keys[h] != c and keys[h] != -1:
            h = (h + 1) & mask
        if keys[h] == -1:
            keys[h], link[h] = c, 0.0
        link[h] += weights[p]
    h = _slot(mine, shift)
    while keys[h] != mine:
        h = (h + 1) & mask
    own = link[h]
    scale = resolution * k[v] / two_m
    best, best_gain, best_link = mine, own - scale * (total[mine] - k[v]), own
    for h in range(mask + 1):
        c = keys[h]
        if c < 0 or c == mine:
            continue
        gain = link[h] - scale * total[c]
        if gain > best_gain or (gain == best_gain and c < best and best != mine):
            best, best_gain, best_link = c, gain, link[h]
    return best, 2.0 * (best_link - own) / two_m


@numba.njit(cache=True, inline="always")
def _best_move_dense(arcs, community, total, k, v, q, link, reached, gathered):
    """`_best_move` for a vertex of many arcs: its link to each community summed in `link`, an
    array over the communities (-1 where not reached: weights are never negative; left so), the
    communities in the order first reached in `reached`, from its neighbours' communities
    gathered into `gathered` first (as in `_best_move`). One access an arc where the table probes
    a table too large for the caches."""
    offsets, indices, weights = arcs
    two_m, resolution = q
    mine = community[v]
    lo, hi = offsets[v], offsets[v + 1]
    gather(community, indices, lo, hi, gathered)
    found = 0
    for p in range(lo, hi):
        c = gathered[p - lo]
        if link[c] < 0.0:
            link[c] = weights[p]
            reached[found] = c
            found += 1
        else:
            link[c] += weights[p]
    own = max(link[mine], 0.0)
    scale = resolution * k[v] / two_m
    best, best_gain, best_link = mine, own - scale * (total[mine] - k[v]), own
    for i in range(found):
        c = reached[i]
        if c != mine:
            gain = link[c] - scale * total[c]
            if gain > best_gain or (gain == best_gain and c < best and best != mine):
                best, best_gain, best_link = c, gain, link[c]
        link[c] = -1.0
    return best, 2.0 * (best_link - own) / two_m


def aggregate(offsets, indices, weights, loops, community):
    """The graph of the communities (numbered 0..c-1 in `community`): (offsets, indices, weights,
    loops), the weights of edges between two communities summed, those inside one a self loop.

    Up to SMALL_ARCS arcs with NumPy, which has nothing to compile (a sort of every arc's
    (community, community) key); above, in parallel ranges of communities."""
    c = int(community.max(initial=-1)) + 1
    if not is_small(indices.shape[0]):
        return _aggregate(offsets, indices, weights, loops, community, c, numba.get_num_threads())
    src = community[np.repeat(np.arange(offsets.size - 1), np.diff(offsets))]
    dst = community[indices]
    inside = src == dst
    new_loops = np.bincount(community, weights=loops, minlength=c)
    new_loops += np.bincount(src[inside], weights=weights[inside], minlength=c) / 2.0
    key = src[~inside].astype(np.int64) * c + dst[~inside]
    pairs, at = np.unique(key, return_inverse=True)
    summed = np.bincount(at, weights=weights[~inside], minlength=pairs.size)
    new_offsets = np.zeros(c + 1, np.int64)
    np.cumsum(np.bincount(pairs // c, minlength=c), out=new_offsets[1:])
    return new_offsets, (pairs % c).astype(np.int32), summed, new_loops


@numba.njit(parallel=True, cache=True)
def _aggregate(offsets, indices, weights, loops, community, c, pieces):
    """`aggregate` in parallel: the communities in `pieces` ranges of about equal arcs, each
    community gathering its members' arcs into its own segment (those inside it into its loop),
    a community reached once per segment (a stamp and a position per community, the piece's own;
    later arcs add into the first), then its segment sorted: linear work but for sorts of the
    distinct communities, where NumPy's one sort of every arc's key is serial."""
    n = offsets.shape[0] - 1
    first = np.zeros(c + 1, np.int64)  # the vertices grouped by community (a counting sort)
    for v in range(n):
        first[community[v] + 1] += 1
    for k in range(c):
        first[k + 1] += first[k]
    members, fill = np.empty(n, np.int64), first[:-1].copy()
    for v in range(n):
        members[fill[community[v]]] = v
        fill[community[v]] += 1
    start = np.zeros(c + 1, np.int64)  # each community's segment of arcs
    for k in numba.prange(c):
        for j in range(first[k], first[k + 1]):
            start[k + 1] += offsets[members[j] + 1] - offsets[members[j]]
    for k in range(c):
        start[k + 1] += start[k]
    dst, w = np.empty(start[c], np.int64), np.empty(start[c], np.float64)
    new_loops, kept = np.zeros(c), np.zeros(c + 1, np.int64)
    bounds = np.searchsorted(start[:-1], np.arange(pieces + 1) * start[c] // pieces)
    bounds[-1] = c
    for t in numba.prange(pieces):
        stamp, at_of = np.full(c, -1, np.int64), np.empty(c, np.int64)
        for k in range(bounds[t], bounds[t + 1]):
            at, inner = start[k], 0.0
            for j in range(first[k], first[k + 1]):
                u = members[j]
                new_loops[k] += loops[u]
                for p in range(offsets[u], offsets[u + 1]):
                    d = community[indices[p]]
                    if d == k:
                        inner += weights[p]
                    elif stamp[d] == k:
                        w[at_of[d]] += weights[p]
                    else:
                        stamp[d], at_of[d] = k, at
                        dst[at], w[at] = d, weights[p]
                        at += 1
            new_loops[k] += inner / 2.0  # each edge inside is listed from both ends
            _sort_pairs(dst[start[k] : at], w[start[k] : at])
            kept[k + 1] = at - start[k]
    for k in range(c):
        kept[k + 1] += kept[k]
    out_idx, out_w = np.empty(kept[c], np.int32), np.empty(kept[c], np.float64)
    for k in numba.prange(c):
        m = kept[k + 1] - kept[k]
        out_idx[kept[k] : kept[k + 1]] = dst[start[k] : start[k] + m]
        out_w[kept[k] : kept[k + 1]] = w[start[k] : start[k] + m]
    return kept, out_idx, out_w, new_loops


#: a segment of up to so many distinct communities is sorted by insertion (no allocation)
INSERTION_SORT_MAX = 24


@numba.njit(cache=True)
def _sort_pairs(keys, values):
    """Sort (keys, values) by key in place (keys distinct): by insertion up to
    INSERTION_SORT_MAX entries, else through an argsort."""
    m = keys.shape[0]
    if m <= INSERTION_SORT_MAX:
        for i in range(1, m):
            key, value = keys[i], values[i]
            j = i - 1
            while j >= 0 and keys[j] > key:
                keys[j + 1], values[j + 1] = keys[j], values[j]
                j -= 1
            keys[j + 1], values[j + 1] = key, value
        return
    order = np.argsort(keys)
    keys[:] = keys[order]
    values[:] = values[order]
