"""Serial BFS with a FIFO queue, in the order NetworkX's traversals take: each vertex's neighbours
in CSR order, a vertex claimed by the first arc that reaches it. For the NetworkX backend, whose
results (BFS trees, their edge order, the path a bidirectional search finds) depend on that order.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def discovery(offsets, indices, sources, depth_limit, parent, depth):
    """Claim every vertex within `depth_limit` levels of `sources` (distinct ids, depth 0, parent
    -1), writing `parent` and `depth` (-1 where unreached) in place. Returns the vertices in the
    order they were claimed, sources first."""
    order = np.empty(parent.shape[0], np.int64)
    for i in range(sources.shape[0]):
        order[i] = sources[i]
        depth[sources[i]] = 0
    head, tail = 0, sources.shape[0]
    while head < tail:
        u = order[head]
        head += 1
        if depth[u] >= depth_limit:
            continue
        for a in range(offsets[u], offsets[u + 1]):
            v = indices[a]
            if depth[v] < 0:
                depth[v] = depth[u] + 1
                parent[v] = u
                order[tail] = v
                tail += 1
    return order[:tail]


@numba.njit(cache=True)
def _grow(offsets, indices, fringe, tree, other):
    """One level of one side of a bidirectional BFS: the next fringe, and the first vertex an arc
    reaches that the other side has seen (-1 if none); `tree` holds the side's parents (-2:
    unseen)."""
    nxt = np.empty(tree.shape[0], np.int64)
    k = 0
    for i in range(fringe.shape[0]):
        u = fringe[i]
        for a in range(offsets[u], offsets[u + 1]):
            v = indices[a]
            if tree[v] == -2:
                tree[v] = u
                nxt[k] = v
                k += 1
            if other[v] != -2:
                return nxt[:k], v
    return nxt[:k], -1


@numba.njit(cache=True)
def bidirectional(offsets, indices, r_offsets, r_indices, s, t, forward, backward):
    """NetworkX's bidirectional BFS from `s` to `t` (distinct): the smaller fringe grows a level
    (the forward one on a tie) until an arc reaches a vertex the other side has seen. `forward`
    and `backward` (-2 everywhere) receive each side's parents. Returns the meeting vertex, -1
    where there is no path."""
    forward[s], backward[t] = -1, -1
    ahead = np.array([s], np.int64)
    behind = np.array([t], np.int64)
    while ahead.shape[0] and behind.shape[0]:
        if ahead.shape[0] <= behind.shape[0]:
            ahead, meet = _grow(offsets, indices, ahead, forward, backward)
        else:
            behind, meet = _grow(r_offsets, r_indices, behind, backward, forward)
        if meet >= 0:
            return meet
    return -1
