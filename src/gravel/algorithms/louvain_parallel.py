"""Louvain with every vertex moving at once: the GPU's Louvain, written over an array module (CuPy
on the GPU; NumPy runs the same steps in the tests).

A pass of local moves is a handful of whole-graph array operations: the arcs sorted by (vertex,
neighbour's community) give each vertex its edge weight into each neighbouring community, the
modularity gain of joining each follows from the communities' degree sums, and every vertex takes
its best (ties to the smallest community) where that beats staying. Neighbours that move at once
undo each other's gains (two swapping places, a chain each joining the next as it leaves), so the
movers of a pass are an independent set (a mover waits where a neighbour of higher random priority
moves too, as in Luby's algorithm), and a pass that would lower the modularity is not taken.
A level ends after two passes in a row gain no more than `threshold`; aggregation then makes each
community a vertex, as in the serial method (backends/cpu/louvain.py).
"""

from ..arrays import entry_rows

#: most passes of local moves in a level (each sorts the level's arcs)
MAX_PASSES = 100


def parallel_louvain(xp, G, weighted, resolution, threshold):
    """(community of each vertex as an `xp` int64 array, levels) of Louvain on G, undirected."""
    offsets = xp.asarray(G.offsets)
    indices = xp.asarray(G.indices).astype(xp.int64)
    w = xp.asarray(G.weights, dtype=xp.float64) if weighted else xp.ones(G.nnz)
    src = entry_rows(offsets, G.nnz)
    loop = src == indices
    size = G.n
    loops = xp.bincount(src[loop], weights=w[loop], minlength=size)
    graph = (src[~loop], indices[~loop], w[~loop], loops)
    labels = xp.arange(size, dtype=xp.int64)
    q = _modularity(xp, *graph, labels, resolution)
    levels = 0
    while size > 1:
        community, q_new = _local_moves(xp, *graph, resolution, threshold, q)
        if q_new is None:  # nothing moved
            break
        levels += 1
        _, community = xp.unique(community, return_inverse=True)
        community = community.ravel()
        labels = community[labels]
        if q_new - q <= threshold:
            break
        q = q_new
        graph, size = _aggregate(xp, *graph, community)
    return labels, levels


def _local_moves(xp, src, dst, w, loops, resolution, threshold, q):
    """Passes of moves from singletons: (communities, their modularity), or (_, None) if no
    pass gained."""
    size = loops.shape[0]
    k = 2.0 * loops + xp.bincount(src, weights=w, minlength=size)
    two_m = float(k.sum())
    community = xp.arange(size, dtype=xp.int64)
    if two_m == 0.0 or src.size == 0:
        return community, None
    gained, idle = None, 0
    for p in range(MAX_PASSES):
        moved = _best_moves(xp, src, dst, w, k, two_m, community, resolution, p)
        q_new = None if moved is None else _modularity(xp, src, dst, w, loops, moved, resolution)
        if q_new is not None and q_new > q:
            community, idle = moved, (idle + 1 if q_new - q <= threshold else 0)
            q, gained = q_new, q_new
        else:
            idle += 1
        if idle >= 2:
            break
    return community, gained


def _best_moves(xp, src, dst, w, k, two_m, community, resolution, salt):
    """The communities after the vertices that gain by moving, less those with a neighbour of
    higher priority (a hash of the vertex and `salt`) that also moves, take their best move; None
    if no vertex gains by moving."""
    size = k.shape[0]
    key = src * size + community[dst]
    order = xp.argsort(key)
    key, ws = key[order], w[order]
    first = xp.ones(key.size, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    link = xp.bincount(xp.cumsum(first) - 1, weights=ws)  # v's weight into community c
    key = key[first]
    v, c = key // size, key % size
    mine = community[v]
    total = xp.bincount(community, weights=k, minlength=size)
    scale = resolution * k / two_m
    gain = link - scale[v] * (total[c] - xp.where(c == mine, k[v], 0.0))
    stay = -scale * (total[community] - k)  # plus the weight into its own community, if any
    own = c == mine
    stay[v[own]] += link[own]
    gain = xp.where(own, -xp.inf, gain)
    best = xp.lexsort(xp.stack((c.astype(xp.float64), -gain, v.astype(xp.float64))))
    head = xp.ones(best.size, dtype=bool)
    head[1:] = v[best[1:]] != v[best[:-1]]
    best = best[head]
    best = best[gain[best] > stay[v[best]]]
    if best.size == 0:
        return None
    # movers form an independent set: a mover with a moving neighbour of higher priority waits
    priority = _hash(xp, xp.arange(size, dtype=xp.int64), salt)
    moving = xp.zeros(size, dtype=bool)
    moving[v[best]] = True
    clash = moving[src] & moving[dst] & (priority[dst] > priority[src])
    moving[src[clash]] = False
    best = best[moving[v[best]]]
    out = community.copy()
    out[v[best]] = c[best]
    return out


def _hash(xp, ids, salt):
    """Distinct pseudo-random priorities of `ids` (int64): a 31-bit hash above the id."""
    h = (ids * 0x9E3779B1 + (salt + 1) * 0x85EBCA77) & 0x7FFFFFFF
    h = ((h ^ (h >> 15)) * 0x2C1B3C6D) & 0x7FFFFFFF
    return ((h ^ (h >> 13)) << 31) | ids


def _modularity(xp, src, dst, w, loops, community, resolution):
    """The level partition's modularity (a vertex's loops lie inside its community)."""
    k = 2.0 * loops + xp.bincount(src, weights=w, minlength=loops.shape[0])
    two_m = float(k.sum())
    if two_m == 0.0:
        return 0.0
    inside = community[src] == community[dst]
    internal = 2.0 * float(loops.sum()) + float(w[inside].sum())
    total = xp.bincount(community, weights=k, minlength=loops.shape[0])
    return internal / two_m - resolution * float((total * total).sum()) / (two_m * two_m)


def _aggregate(xp, src, dst, w, loops, community):
    """The graph of the communities (numbered 0..c-1): ((src, dst, w, loops), c)."""
    c = int(community.max()) + 1
    cs, cd = community[src], community[dst]
    inside = cs == cd
    new_loops = xp.bincount(community, weights=loops, minlength=c)
    new_loops += xp.bincount(cs[inside], weights=w[inside], minlength=c) / 2.0
    pairs, at = xp.unique(cs[~inside] * c + cd[~inside], return_inverse=True)
    summed = xp.bincount(at.ravel(), weights=w[~inside], minlength=pairs.size)
    return (pairs // c, pairs % c, summed, new_loops), c
