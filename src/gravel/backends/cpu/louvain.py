"""Louvain's two phases on a weighted undirected CSR (Blondel et al. 2008) with Numba: the local
moves serial (each move sees the last), the aggregation in parallel.

A level's graph is its CSR without self loops (each edge in both lists) and `loops[i]`, the weight
of vertex i's self loop; its degree k_i counts the loop twice. `local_moves` moves vertices, in a
given order, to the neighbouring community of largest modularity gain until a pass gains less than
a threshold; `aggregate` makes each community a vertex, its internal weight a self loop.
"""

import numba
import numpy as np

from ._serial import is_small


@numba.njit(cache=True)
def local_moves(offsets, indices, weights, loops, order, community, resolution, threshold):
    """Move vertices between communities (`community`, updated in place) while a pass over
    `order` raises the modularity by more than `threshold`; returns the number of moves."""
    n = offsets.shape[0] - 1
    k = 2.0 * loops
    for v in range(n):
        for p in range(offsets[v], offsets[v + 1]):
            k[v] += weights[p]
    two_m = k.sum()
    if two_m == 0.0:
        return 0
    total = np.zeros(n)  # the degree sum of each community
    for v in range(n):
        total[community[v]] += k[v]
    link = np.zeros(n)  # v's edge weight into each neighbouring community
    seen = np.empty(n, np.int64)  # those communities; stamp[c] == v once c is among them
    stamp = np.full(n, -1, np.int64)
    moves = 0
    while True:
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
            return moves


def aggregate(offsets, indices, weights, loops, community):
    """The graph of the communities (numbered 0..c-1 in `community`): (offsets, indices, weights,
    loops), the weights of edges between two communities summed, those inside one a self loop.

    Up to SMALL_ARCS arcs with NumPy, which has nothing to compile (a sort of every arc's
    (community, community) key); above, community by community in parallel."""
    c = int(community.max(initial=-1)) + 1
    if not is_small(indices.shape[0]):
        return _aggregate(offsets, indices, weights, loops, community, c)
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
def _aggregate(offsets, indices, weights, loops, community, c):
    """`aggregate` community by community in parallel: each gathers its members' arcs into its own
    segment (those inside it into its loop), sorts them by the community reached and sums the
    runs: linear work but for the sorts of short segments, where NumPy's one sort of every arc's
    key is serial."""
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
    for k in numba.prange(c):
        at, inner = start[k], 0.0
        for j in range(first[k], first[k + 1]):
            u = members[j]
            new_loops[k] += loops[u]
            for p in range(offsets[u], offsets[u + 1]):
                d = community[indices[p]]
                if d == k:
                    inner += weights[p]
                else:
                    dst[at], w[at] = d, weights[p]
                    at += 1
        new_loops[k] += inner / 2.0  # each edge inside is listed from both ends
        kept[k + 1] = _sum_runs(dst[start[k] : at], w[start[k] : at])
    for k in range(c):
        kept[k + 1] += kept[k]
    out_idx, out_w = np.empty(kept[c], np.int32), np.empty(kept[c], np.float64)
    for k in numba.prange(c):
        m = kept[k + 1] - kept[k]
        out_idx[kept[k] : kept[k + 1]] = dst[start[k] : start[k] + m]
        out_w[kept[k] : kept[k + 1]] = w[start[k] : start[k] + m]
    return kept, out_idx, out_w, new_loops


@numba.njit(cache=True)
def _sum_runs(keys, values):
    """Sort (keys, values) by key, sum each run of equal keys into its first, in place at the
    front; returns how many distinct keys."""
    order = np.argsort(keys)
    sk, sv = keys[order], values[order]
    m = 0
    for i in range(sk.shape[0]):
        if m > 0 and sk[i] == keys[m - 1]:
            values[m - 1] += sv[i]
        else:
            keys[m], values[m] = sk[i], sv[i]
            m += 1
    return m
