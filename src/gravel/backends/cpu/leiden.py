"""Leiden's refinement phase (Traag, Waltman and van Eck 2019) on a level graph with Numba.

A level graph is Louvain's (backends/cpu/louvain.py): a CSR without self loops, each edge in both
lists, and `loops[i]`, the weight of vertex i's self loop. `refine` splits every community of a
partition into well-connected subcommunities: each starts as singletons, and the vertices, in a
random order, join one of their neighbouring subcommunities at random, where both are well
connected to the community. Communities are independent, so they are refined in parallel.
"""

import numba
import numpy as np

from .serial import by_size


@numba.njit(parallel=True, cache=True)
def refine(offsets, indices, weights, k, community, members, starts, chance, q):
    """The refined partition: `refined[v]`, the vertex that founded v's subcommunity.

    Community s's vertices are ``members[starts[s]:starts[s + 1]]``, in the random order they are
    visited; `k` holds the vertices' degrees (loops twice), `chance` one uniform number in [0, 1)
    per vertex, and `q` is (2m, resolution, theta). A vertex v moves only from a singleton, and
    only if it is well connected to its community S: E(v, S - v) >= resolution k_v (K_S - k_v) /
    2m. It may then join a neighbouring subcommunity C (by an arc) that is well connected to S
    in the same sense, where the gain, E(v, C) - resolution k_v K_C / 2m (in edge weight), is not
    negative; staying alone gains 0. It picks C, or staying, with probability proportional to
    exp(gain / theta), by `chance[v]`. Every subcommunity is then connected (each joins by an arc)
    and lies inside one community."""
    two_m, resolution, theta = q
    n = offsets.shape[0] - 1
    refined = np.arange(n)
    at = np.empty(n, np.int64)  # a vertex's place among its community's members
    for s in numba.prange(starts.shape[0] - 1):
        lo, hi = starts[s], starts[s + 1]
        size = hi - lo
        for i in range(size):
            at[members[lo + i]] = i
        # per subcommunity (numbered by its founder's place): K_C, E(C, S - C), its vertices
        total, outside, count = np.empty(size), np.empty(size), np.ones(size, np.int64)
        inside = 0.0  # K_S
        for i in range(size):
            v = members[lo + i]
            total[i] = k[v]
            inside += k[v]
            e = 0.0
            for p in range(offsets[v], offsets[v + 1]):
                if community[indices[p]] == s:
                    e += weights[p]
            outside[i] = e
        sub = np.arange(size)  # each member's subcommunity
        link = np.zeros(size)  # v's weight into each neighbouring subcommunity
        seen = np.empty(size, np.int64)  # those subcommunities
        mark = np.full(size, -1, np.int64)  # the member whose list last listed each
        gain = np.empty(size)
        for i in range(size):
            v = members[lo + i]
            if count[sub[i]] != 1:
                continue
            mine = outside[i]  # v alone: E(v, S - v)
            if mine < resolution * k[v] * (inside - k[v]) / two_m:
                continue
            found = 0
            for p in range(offsets[v], offsets[v + 1]):
                u = indices[p]
                if community[u] != s:
                    continue
                c = sub[at[u]]
                if mark[c] != i:
                    mark[c] = i
                    seen[found] = c
                    found += 1
                link[c] += weights[p]
            best = 0.0  # staying alone
            for j in range(found):
                c = seen[j]
                g = link[c] - resolution * k[v] * total[c] / two_m
                well = outside[c] >= resolution * total[c] * (inside - total[c]) / two_m
                gain[j] = g if well and g >= 0.0 else -1.0
                best = max(best, gain[j])
            odds = np.exp(-best / theta)  # staying's share, each relative to the best
            for j in range(found):
                if gain[j] >= 0.0:
                    odds += np.exp((gain[j] - best) / theta)
            draw = chance[v] * odds - np.exp(-best / theta)
            pick, j = -1, 0
            while draw >= 0.0 and j < found:  # past staying: the candidate where draw runs out
                if gain[j] >= 0.0:
                    pick = j
                    draw -= np.exp((gain[j] - best) / theta)
                j += 1
            if pick >= 0:
                c = seen[pick]
                outside[c] += mine - 2.0 * link[c]
                total[c] += k[v]
                count[c] += 1
                count[i] = 0
                sub[i] = c
            for j in range(found):
                link[seen[j]] = 0.0
        for i in range(size):
            refined[members[lo + i]] = members[lo + sub[i]]
    return refined


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(refine)
