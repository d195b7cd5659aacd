"""Serial searches in the order NetworkX's take, for the NetworkX backend, whose results (BFS
trees and their edge order, the path a bidirectional search finds, which of several tied shortest
paths Dijkstra keeps) depend on it: each vertex's neighbours in CSR order; BFS claims a vertex by
the first arc that reaches it; Dijkstra settles by (distance, push count), as NetworkX's heap of
(distance, count, node) does, and keeps the arc of the last strict improvement.
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


@numba.njit(cache=True)
def _push(heap, size, d, count, v):
    """Push (d, count, v) on the heap `heap` = (key, tie, node) of `size` entries; returns size + 1.
    Entries order by (key, tie), as NetworkX's heap of (distance, count, node) tuples."""
    key, tie, node = heap
    i = size
    key[i], tie[i], node[i] = d, count, v
    while i:
        up = (i - 1) // 2
        if (key[up], tie[up]) <= (key[i], tie[i]):
            break
        key[up], key[i] = key[i], key[up]
        tie[up], tie[i] = tie[i], tie[up]
        node[up], node[i] = node[i], node[up]
        i = up
    return size + 1


@numba.njit(cache=True)
def _pop(heap, size):
    """Pop the least entry of the heap of `size` entries; returns (distance, vertex, size - 1)."""
    key, tie, node = heap
    d, v = key[0], node[0]
    size -= 1
    key[0], tie[0], node[0] = key[size], tie[size], node[size]
    i = 0
    while True:
        low, left = i, 2 * i + 1
        for c in (left, left + 1):
            if c < size and (key[c], tie[c]) < (key[low], tie[low]):
                low = c
        if low == i:
            return d, v, size
        key[low], key[i] = key[i], key[low]
        tie[low], tie[i] = tie[i], tie[low]
        node[low], node[i] = node[i], node[low]
        i = low


@numba.njit(cache=True)
def _heap(room):
    return np.empty(room), np.empty(room, np.int64), np.empty(room, np.int64)


@numba.njit(cache=True)
def dijkstra(offsets, indices, weights, source, cutoff, dist, pred):
    """NetworkX's Dijkstra from `source` on non-negative weights: `dist` (float64, inf) and `pred`
    (-1) filled in place for the settled vertices, arcs longer than `cutoff` skipped. Returns the
    vertices in the order they were settled."""
    n = dist.shape[0]
    seen = np.full(n, np.inf)
    done = np.zeros(n, np.bool_)
    order = np.empty(n, np.int64)
    heap = _heap(indices.shape[0] + 1)  # a push per arc at most, and the source's
    seen[source] = 0.0
    size, pushes, settled = _push(heap, 0, 0.0, 0, source), 1, 0
    while size:
        d, v, size = _pop(heap, size)
        if done[v]:
            continue
        done[v] = True
        dist[v] = d
        order[settled] = v
        settled += 1
        for a in range(offsets[v], offsets[v + 1]):
            u = indices[a]
            du = d + np.float64(weights[a])
            if du > cutoff or done[u] or not du < seen[u]:
                continue
            seen[u] = du
            pred[u] = v
            size = _push(heap, size, du, pushes, u)
            pushes += 1
    return order[:settled]


@numba.njit(cache=True)
def bidirectional_dijkstra(arcs, r_arcs, s, t, forward, backward):
    """NetworkX's bidirectional Dijkstra from `s` to `t` (distinct) on non-negative weights: the two
    searches settle in turn (forward first), each from its heap of (distance, count, node) under
    one count; a relaxation reaching a vertex the other side has seen proposes the meeting vertex
    of the shortest path so far, and the search ends when a vertex is settled by both. `arcs` and
    `r_arcs`: (offsets, indices, weights) forward and reversed; `forward` and `backward` (-1
    everywhere) receive each side's parents. Returns the meeting vertex, -1 where there is no
    path."""
    n = forward.shape[0]
    seen = np.full((2, n), np.inf)
    done = np.zeros((2, n), np.bool_)
    heaps = (_heap(arcs[1].shape[0] + 1), _heap(r_arcs[1].shape[0] + 1))
    sizes = np.zeros(2, np.int64)
    seen[0, s], seen[1, t] = 0.0, 0.0
    sizes[0] = _push(heaps[0], 0, 0.0, 0, s)
    sizes[1] = _push(heaps[1], 0, 0.0, 1, t)
    pushes, best, meet, side = 2, np.inf, -1, 1
    while sizes[0] and sizes[1]:
        side = 1 - side
        offsets, indices, weights = arcs if side == 0 else r_arcs
        tree = forward if side == 0 else backward
        d, v, sizes[side] = _pop(heaps[side], sizes[side])
        if done[side, v]:
            continue
        done[side, v] = True
        if done[1 - side, v]:
            return meet
        for a in range(offsets[v], offsets[v + 1]):
            w = indices[a]
            dw = d + np.float64(weights[a])
            if done[side, w] or not dw < seen[side, w]:
                continue
            seen[side, w] = dw
            sizes[side] = _push(heaps[side], sizes[side], dw, pushes, w)
            pushes += 1
            tree[w] = v
            if seen[1 - side, w] < np.inf and dw + seen[1 - side, w] < best:
                best, meet = dw + seen[1 - side, w], w
    return -1
