"""Boruvka's minimum spanning forest with Numba.

Each round every vertex finds its lightest arc to another component (in parallel: no write is
shared), each component keeps the lightest of its vertices' arcs, and the picks are merged by
union-find. Arcs are ordered by (weight, smaller end, larger end), a strict order, so the picks of
a round form no cycle except two components picking the same edge, which the merge skips. Each
round at least halves the components: at most log2(n) rounds of O(n + m).
"""

import numba
import numpy as np

from .cc import _find  # union-find's root, shared with connected components
from .serial import by_size


@numba.njit(cache=True, inline="always")
def _before(w1, u1, v1, w2, u2, v2):
    """Whether edge {u1, v1} of weight w1 precedes edge {u2, v2} of weight w2."""
    if w1 != w2:
        return w1 < w2
    a1, b1 = min(u1, v1), max(u1, v1)
    a2, b2 = min(u2, v2), max(u2, v2)
    return a1 < a2 or (a1 == a2 and b1 < b2)


@numba.njit(parallel=True, cache=True)
def lightest_arcs(offsets, indices, weights, comp, best):
    """``best[u]``: u's lightest arc to another component, -1 if none."""
    for u in numba.prange(comp.shape[0]):
        cu = comp[u]
        b = -1
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if comp[v] != cu and (b < 0 or _before(weights[p], u, v, weights[b], u, indices[b])):
                b = p
        best[u] = b


@numba.njit(parallel=True, cache=True)
def compress(comp):
    for u in numba.prange(comp.shape[0]):
        comp[u] = _find(comp, u)


@numba.njit(cache=True)
def merge(indices, weights, comp, best, pick, pick_u, tree_u, tree_arc, count):
    """Keep each component's lightest arc of `best` and link the components along them; record
    each new tree edge as (vertex, arc) at position `count` on; return the new count. `pick` (n
    entries) must hold -1 on entry, and holds -1 on exit."""
    for u in range(comp.shape[0]):
        p = best[u]
        if p < 0:
            continue
        c = comp[u]
        q = pick[c]
        if q < 0 or _before(weights[p], u, indices[p], weights[q], pick_u[c], indices[q]):
            pick[c] = p
            pick_u[c] = u
    for c in range(comp.shape[0]):
        p = pick[c]
        if p < 0:
            continue
        pick[c] = -1
        a = _find(comp, c)
        b = _find(comp, indices[p])
        if a != b:
            comp[max(a, b)] = min(a, b)
            tree_u[count] = pick_u[c]
            tree_arc[count] = p
            count += 1
    return count


@numba.njit(cache=True)
def root_forest(n, tree_u, tree_v, starts, parent):
    """``parent[v]``: v's parent in the forest of the edges (tree_u[i], tree_v[i]), each tree
    rooted at its first vertex in `starts` (every vertex once); -1 for roots."""
    deg = np.zeros(n + 1, np.int64)
    for i in range(tree_u.shape[0]):
        deg[tree_u[i] + 1] += 1
        deg[tree_v[i] + 1] += 1
    for v in range(n):
        deg[v + 1] += deg[v]
    adj = np.empty(deg[n], np.int32)
    fill = deg[:n].copy()
    for i in range(tree_u.shape[0]):
        adj[fill[tree_u[i]]] = tree_v[i]
        fill[tree_u[i]] += 1
        adj[fill[tree_v[i]]] = tree_u[i]
        fill[tree_v[i]] += 1
    seen = np.zeros(n, np.bool_)
    queue = np.empty(n, np.int32)
    for s in starts:
        if seen[s]:
            continue
        seen[s] = True
        parent[s] = -1
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            x = queue[head]
            head += 1
            for p in range(deg[x], deg[x + 1]):
                y = adj[p]
                if not seen[y]:
                    seen[y] = True
                    parent[y] = x
                    queue[tail] = y
                    tail += 1


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(lightest_arcs, compress)
