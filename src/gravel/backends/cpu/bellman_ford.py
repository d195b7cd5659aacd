"""Bellman-Ford with a FIFO queue of the vertices to relax (SPFA, Moore's variant), serial.

Every lowering of dist[v] records the arc it came over and the number of arcs of the walk it
measures (one more than its predecessor's). A walk of n arcs repeats a vertex, and each of its
prefixes lowered its end strictly after the shorter ones: the repeated vertex was lowered again
by the cycle between, so the cycle is negative. Such a walk is found whenever a negative cycle is
reachable (its distances fall without end), and never otherwise.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def relax_queue(offsets, indices, weights, source, dist, pred):
    """Shortest distances (float64 `dist`, inf where unset) and predecessors from `source`,
    written in place. Returns the number of vertices taken from the queue and the vertex whose
    walk reached n arcs, -1 when no negative cycle is reachable."""
    n = dist.shape[0]
    hops = np.zeros(n, np.int64)
    queue = np.empty(n, np.int32)  # a ring: each vertex is in it at most once
    queued = np.zeros(n, np.bool_)
    head, size, taken = 0, 1, 0
    queue[0] = source
    queued[source] = True
    while size:
        u = queue[head]
        head = head + 1 if head + 1 < n else 0
        size -= 1
        taken += 1
        queued[u] = False
        du = dist[u]
        for a in range(offsets[u], offsets[u + 1]):
            v = indices[a]
            d = du + np.float64(weights[a])
            if d < dist[v]:
                dist[v] = d
                pred[v] = u
                hops[v] = hops[u] + 1
                if hops[v] >= n:
                    return taken, v
                if not queued[v]:
                    tail = head + size
                    queue[tail if tail < n else tail - n] = v
                    queued[v] = True
                    size += 1
    return taken, -1
