"""Strongly connected components: Tarjan's algorithm (1972) with an explicit call stack, and the
parallel trimming run before it on big graphs (with one forward-backward search on BFS's kernels,
as in Hong, Rodia and Olukotun's and Slota, Rajamanickam and Madduri's multistep methods).

One depth-first pass numbers the vertices in visiting order (``index``) and keeps the smallest
index reachable through the subtree and one back or cross arc to a vertex still on the component
stack (``low``); a vertex whose ``low`` equals its own index roots a component, which is popped off
the component stack whole. The recursion of the textbook algorithm becomes two arrays (the vertex of
each frame and its next arc), so no graph is too deep for it. Work arrays come from the caller: the
kernel holds plain loops only, and compiles in a fraction of a second (docs/tuning.md, first run).
It skips the vertices the parallel steps settled. It runs on the shares' pool (shares.stoppable)
and returns early once its stop flag is up.
"""

import numba
import numpy as np

from .shares import CHECK_MASK


@numba.njit(nogil=True, cache=True)
def tarjan(offsets, indices, index, low, comp, stack, frame_v, frame_p, first, stop):
    """Write into ``comp[v]`` the number of v's strongly connected component, numbered from
    `first` in the order the components complete (a sink component first); return how many there
    are.

    ``index`` and ``comp`` must hold -1 on entry, but for vertices already settled (both >= 0: no
    arc is followed into them); ``low``, ``stack``, ``frame_v`` and ``frame_p`` are scratch arrays
    of n entries. A vertex visited but not yet given a component is exactly a vertex on the
    component stack. Returns early (-1) once `stop[0]` is set, every 2**16 vertices or roots."""
    counter = 0
    components = first
    top = 0
    for root in range(index.shape[0]):
        if root & CHECK_MASK == 0 and stop[0]:
            return -1
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        depth = 0
        frame_v[0] = root
        frame_p[0] = offsets[root]
        while depth >= 0:
            v = frame_v[depth]
            p = frame_p[depth]
            if p < offsets[v + 1]:
                frame_p[depth] = p + 1
                w = indices[p]
                if index[w] < 0:  # tree arc: descend
                    if counter & CHECK_MASK == 0 and stop[0]:
                        return -1
                    index[w] = low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    depth += 1
                    frame_v[depth] = w
                    frame_p[depth] = offsets[w]
                elif comp[w] < 0 and index[w] < low[v]:  # w is on the stack
                    low[v] = index[w]
                continue
            if low[v] == index[v]:  # v roots a component: pop it
                while True:
                    top -= 1
                    w = stack[top]
                    comp[w] = components
                    if w == v:
                        break
                components += 1
            depth -= 1
            if depth >= 0 and low[v] < low[frame_v[depth]]:
                low[frame_v[depth]] = low[v]
    return components - first


@numba.njit(parallel=True, cache=True)
def trim(offsets, indices, in_offsets, in_indices, comp, pieces):
    """Settle each unsettled vertex (comp -1) with no unsettled out-neighbour or no unsettled
    in-neighbour (itself aside) as a component of its own, labelled with its id; returns how many.
    A vertex settled during the pass may let a neighbour go in the same pass or only the next:
    either way both are right."""
    n = comp.shape[0]
    trimmed = np.zeros(pieces, np.int64)
    for k in numba.prange(pieces):
        for v in range(n * k // pieces, n * (k + 1) // pieces):
            if comp[v] >= 0:
                continue
            if not (_live_neighbour(offsets, indices, comp, v)) or not (
                _live_neighbour(in_offsets, in_indices, comp, v)
            ):
                comp[v] = v
                trimmed[k] += 1
    return trimmed.sum()


@numba.njit(cache=True, inline="always")
def _live_neighbour(offsets, indices, comp, v):
    for p in range(offsets[v], offsets[v + 1]):
        u = indices[p]
        if u != v and comp[u] < 0:
            return True
    return False


@numba.njit(cache=True)
def first_members(comp, size):
    """Each entry's number (0 <= number < size) -> the first index holding that number, int32."""
    first = np.full(size, -1, np.int32)
    out = np.empty(comp.shape[0], np.int32)
    for i in range(comp.shape[0]):
        c = comp[i]
        if first[c] < 0:
            first[c] = i
        out[i] = first[c]
    return out
