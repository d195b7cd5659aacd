"""Louvain with every vertex moving at once: the GPU's Louvain, written over an array module (CuPy
on the GPU; NumPy runs the same steps in the tests).

A pass of local moves is a handful of whole-graph array operations: the arcs sorted by (vertex,
neighbour's community) give each vertex its edge weight into each neighbouring community, the
modularity gain of joining each follows from the communities' degree sums, and each vertex picks
its best (ties to the smallest community: a maximum scattered per vertex, as the sort leaves the
pairs in order) where that beats staying. The sorts are stable (CuPy's always are), so NumPy adds
up equal keys' weights in CSR order on any CPU (its default sort orders them one way with AVX-512,
another with AVX2). Neighbours that move at once can undo each other's gains, so a pass restricts
the moves, after Lu, Halappanavar and Kalyanaraman, "Parallel heuristics for scalable community
detection" (2015), and cuGraph:

- up/down: each pass orders the communities at random (a hash of the id and the pass), and a
  vertex moves only if its best community comes after its own (a vertex waits for a pass of
  another order), so no two vertices swap communities and no cycle of moves forms;
- minimum label: a singleton joins another singleton only if that one has the smaller id;
- gain check: the modularity of the new communities is recomputed, and where the pass loses, half
  the movers (then a quarter, an eighth; a hash of the vertex picks them) move instead; a pass
  that gains with none of them is dropped.

A level ends when no vertex gains by moving, after two passes in a row that gain no more than
max(`threshold`, TOLERANCE * abs(Q)), or after MAX_PASSES; aggregation then makes each community a
vertex, as in the serial method (backends/cpu/louvain.py). The levels above the first move whole
communities, so after them a last level of passes on the input graph, from the final communities,
lets single vertices move again (as the serial method does).
"""

from ..arrays import entry_rows

#: most passes of local moves in a level (each sorts the level's arcs)
MAX_PASSES = 100
#: a pass gaining at most this share of the modularity (or `threshold`) counts as idle
TOLERANCE = 1e-3
#: how many times a pass that loses halves its movers
HALVINGS = 3


def parallel_louvain(xp, G, weighted, resolution, threshold, history=None):
    """Louvain on the undirected G with every vertex moving at once, over the array module `xp`.

    Parameters
    ----------
    xp : module
        ``cupy`` on the GPU; ``numpy`` runs the same steps on the host.
    G : Graph
        Undirected; its CSR is read with `xp` (copied to the device by CuPy).
    weighted : bool
        Weigh the edges by G's weights (which the caller has checked); else 1 each.
    resolution : float
        The modularity's resolution.
    threshold : float
        A level whose modularity gain is at most this ends the levels; a pass gaining at most
        max(`threshold`, TOLERANCE * abs(Q)) counts as idle, and two idle passes in a row end a
        level.
    history : list, optional
        Each level's labels (as `labels`, before the final refinement) are appended to it.

    Returns
    -------
    labels : numpy.ndarray or cupy.ndarray
        int64 per vertex, over G's internal ids: its community, an id below G.n.
    levels : int
        The levels that moved vertices.

    Examples
    --------
    >>> import numpy as np
    >>> import gravel
    >>> from gravel.algorithms.louvain_parallel import parallel_louvain
    >>> G = gravel.Graph.from_edges([0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3], directed=False)
    >>> labels, levels = parallel_louvain(np, G, False, 1.0, 1e-7)
    >>> labels.tolist(), levels
    ([0, 0, 0, 1, 1, 1], 1)
    """
    size = G.n
    graph = first = level_graph(xp, G, weighted)
    labels = xp.arange(size, dtype=xp.int64)
    q = _modularity(xp, *graph, _degrees(xp, *graph), labels, resolution)
    levels = 0
    while size > 1:
        community, q_new = _local_moves(xp, *graph, resolution, threshold, q)
        if q_new is None:  # nothing moved
            break
        levels += 1
        _, community = xp.unique(community, return_inverse=True)
        community = community.ravel()
        labels = community[labels]
        if history is not None:
            history.append(labels)
        q, gain = q_new, q_new - q
        if gain <= threshold:
            break
        graph, size = _aggregate(xp, *graph, community)
    if levels > 1:
        refined, q_new = _local_moves(xp, *first, resolution, threshold, q, labels)
        if q_new is not None:
            labels = refined
    return labels, levels


def level_graph(xp, G, weighted):
    """G as the first level's graph of the parallel Louvain, over the array module `xp`.

    Parameters
    ----------
    xp : module
        ``cupy`` or ``numpy``.
    G : Graph
        Undirected.
    weighted : bool
        Weigh the edges by G's weights; else 1 each.

    Returns
    -------
    tuple
        (src, dst, w, loops): G's arcs but its self loops (int64 ids, float64 weights), and each
        vertex's loop weight.
    """
    offsets = xp.asarray(G.offsets)
    indices = xp.asarray(G.indices).astype(xp.int64)
    w = xp.asarray(G.weights, dtype=xp.float64) if weighted else xp.ones(G.nnz)
    src = entry_rows(offsets, G.nnz)
    loop = src == indices
    loops = xp.bincount(src[loop], weights=w[loop], minlength=G.n)
    return src[~loop], indices[~loop], w[~loop], loops


def _local_moves(xp, src, dst, w, loops, resolution, threshold, q, community=None):
    """Passes of moves from `community` (singletons if None): (communities, their modularity q),
    or (_, None) if no pass gained."""
    size = loops.shape[0]
    k = _degrees(xp, src, dst, w, loops)
    community = xp.arange(size, dtype=xp.int64) if community is None else community
    if src.size == 0 or float(k.sum()) == 0.0:
        return community, None
    gained, idle = None, 0
    for p in range(MAX_PASSES):
        moves = _best_moves(xp, src, dst, w, k, community, resolution, 2 * p)
        if moves is None:  # a local optimum
            break
        graph = (src, dst, w, loops, k, community, *moves)
        moved, q_new = _first_gain(xp, *graph, resolution, q, 2 * p + 1)
        idle = idle + 1 if q_new - q <= max(threshold, TOLERANCE * abs(q_new)) else 0
        if moved is not None:
            community, q, gained = moved, q_new, q_new
        if idle >= 2:
            break
    return community, gained


def _first_gain(xp, src, dst, w, loops, k, community, v, c, resolution, q, salt):
    """The communities after the moves (each v to its c), else after half of them, a quarter, an
    eighth (picked by a hash of the vertex and `salt`): the first whose modularity beats q, with
    that modularity, or (None, q)."""
    luck = _hash(xp, v, salt) >> 31  # 31 bits
    for halving in range(HALVINGS + 1 if v.size else 0):
        some = luck < (1 << 31) >> halving
        moved = community.copy()
        moved[v[some]] = c[some]
        q_new = _modularity(xp, src, dst, w, loops, k, moved, resolution)
        if q_new > q:
            return moved, q_new
    return None, q


def _best_moves(xp, src, dst, w, k, community, resolution, salt):
    """(vertices, their new communities) of the moves that a pass allows: each vertex's best
    community where that beats staying, if it comes after the vertex's own in the order of a hash
    of the id and `salt`, and, for a singleton joining a singleton, has a smaller id. None if no
    vertex gains by moving."""
    size = k.shape[0]
    key, link = _sum_by_key(xp, src * size + community[dst], w)  # v's weight into community c
    v, c = key // size, key % size
    mine = community[v]
    own = c == mine
    total = xp.bincount(community, weights=k, minlength=size)
    scale = resolution * k / k.sum()
    gain = xp.where(own, -xp.inf, link - scale[v] * total[c])  # staying is not a move
    stay = -scale * (total[community] - k)  # plus the weight into its own community, if any
    stay[v[own]] += link[own]
    # Each vertex's best: its largest gain, ties to the smallest c. The pairs come sorted by v,
    # then c, so that is the first pair of v's run whose gain equals v's maximum.
    top = xp.full(size, _ordered(xp, xp.array(-xp.inf)))
    # Scattered as int64 keys: CuPy 14's float64 maximum.at keeps only float32's precision, so
    # the equality below would find no vertex's maximum.
    xp.maximum.at(top, v, _ordered(xp, gain))
    top = _ordered(xp, top).view(xp.float64)
    best = xp.flatnonzero((gain == top[v]) & (top > stay)[v])
    head = xp.ones(best.size, dtype=bool)
    head[1:] = v[best[1:]] != v[best[:-1]]
    best = best[head]
    if best.size == 0:
        return None
    v, c, mine = v[best], c[best], mine[best]
    rank = _hash(xp, xp.arange(size, dtype=xp.int64), salt)
    members = xp.bincount(community, minlength=size)
    singles = (members[mine] == 1) & (members[c] == 1)
    allowed = (rank[c] > rank[mine]) & ~(singles & (c > mine))
    return v[allowed], c[allowed]


def _ordered(xp, x):
    """float64 `x` as int64 keys in the same order (its bits, a negative's magnitude bits flipped),
    or such keys back as the float64's bits: the map is its own inverse."""
    bits = x.view(xp.int64)
    return xp.where(bits < 0, bits ^ 0x7FFFFFFFFFFFFFFF, bits)


def _hash(xp, ids, salt):
    """Distinct pseudo-random priorities of `ids` (int64): a 31-bit hash above the id."""
    h = (ids * 0x9E3779B1 + (salt + 1) * 0x85EBCA77) & 0x7FFFFFFF
    h = ((h ^ (h >> 15)) * 0x2C1B3C6D) & 0x7FFFFFFF
    return ((h ^ (h >> 13)) << 31) | ids


def _degrees(xp, src, dst, w, loops):
    """Each vertex's weighted degree (a loop counts twice)."""
    return 2.0 * loops + xp.bincount(src, weights=w, minlength=loops.shape[0])


def _modularity(xp, src, dst, w, loops, k, community, resolution):
    """The level partition's modularity (a vertex's loops lie inside its community)."""
    two_m = float(k.sum())
    if two_m == 0.0:
        return 0.0
    internal = _internal(src, dst, w, loops, community)
    total = xp.bincount(community, weights=k, minlength=k.shape[0])
    return float(internal / two_m - resolution * (total * total).sum() / (two_m * two_m))


def _internal(src, dst, w, loops, community):
    """The weight of the arcs inside communities, and twice each vertex's loops (they lie inside
    its community)."""
    return 2.0 * loops.sum() + w[community[src] == community[dst]].sum()


def _aggregate(xp, src, dst, w, loops, community):
    """The graph of the communities (numbered 0..c-1): ((src, dst, w, loops), c)."""
    c = int(community.max()) + 1
    cs, cd = community[src], community[dst]
    inside = cs == cd
    new_loops = xp.bincount(community, weights=loops, minlength=c)
    new_loops += xp.bincount(cs[inside], weights=w[inside], minlength=c) / 2.0
    cross = ~inside
    pairs, summed = _sum_by_key(xp, cs[cross] * c + cd[cross], w[cross])
    return (pairs // c, pairs % c, summed, new_loops), c


def _sum_by_key(xp, key, w):
    """(the distinct keys, ascending; the sum of `w` over each key's entries). The sort is stable
    (CuPy's always is), so each key's weights add up in their given order, as in a bincount."""
    if key.size == 0:  # no arc between communities (CuPy's bincount of nothing raises)
        return key, w
    order = xp.argsort(key, kind="stable")
    key = key[order]
    first = xp.ones(key.size, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    return key[first], xp.bincount(xp.cumsum(first) - 1, weights=w[order])
