"""Louvain's two phases on a weighted undirected CSR (Blondel et al. 2008), serial Numba loops.

A level's graph is its CSR without self loops (each edge in both lists) and `loops[i]`, the weight
of vertex i's self loop; its degree k_i counts the loop twice. `local_moves` moves vertices, in a
given order, to the neighbouring community of largest modularity gain until a pass gains less than
a threshold; `aggregate` makes each community a vertex, its internal weight a self loop.
"""

import numba
import numpy as np


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
    loops), the weights of edges between two communities summed, those inside one a self loop."""
    c = int(community.max(initial=-1)) + 1
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
