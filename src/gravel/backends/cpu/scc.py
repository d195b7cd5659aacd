"""Strongly connected components by Tarjan's algorithm (1972), with an explicit call stack.

One depth-first pass numbers the vertices in visiting order (``index``) and keeps the smallest
index reachable through the subtree and one back or cross arc to a vertex still on the component
stack (``low``); a vertex whose ``low`` equals its own index roots a component, which is popped off
the component stack whole. The recursion of the textbook algorithm becomes two arrays (the vertex of
each frame and its next arc), so no graph is too deep for it. Work arrays come from the caller: the
kernel holds plain loops only, and compiles in a fraction of a second (docs/tuning.md, first run).
"""

import numba


@numba.njit(cache=True)
def tarjan(offsets, indices, index, low, comp, stack, frame_v, frame_p):
    """Write into ``comp[v]`` the number of v's strongly connected component, numbered in the
    order the components complete (a sink component first); return how many there are.

    ``index`` and ``comp`` must hold -1 on entry; ``low``, ``stack``, ``frame_v`` and ``frame_p``
    are scratch arrays of n entries. A vertex visited but not yet given a component is exactly a
    vertex on the component stack."""
    counter = 0
    components = 0
    top = 0
    for root in range(index.shape[0]):
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
    return components
