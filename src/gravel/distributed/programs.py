"""The per-part programs of BFS, SSSP, PageRank and CC (see exchange.py), written once for both
devices: `xp` is NumPy for a part in host memory and CuPy for a part on a GPU, and the few steps
that array calls cannot say well (PageRank's pull, CC's neighbour minimum) come from the part's
kernels (:func:`kernels`: gravel's Numba kernels on the CPU, device_kernels.py's on the GPU).

A collective's control values (frontier sizes, the SSSP split) are host scalars: the part needs
them on the host to decide its next step anyway. Its payloads are arrays of the part's device.
"""

import numpy as np

from ..arrays import host, xp
from .exchange import allgather, allreduce, alltoall

#: arcs a BFS level expands at once: bounds the temporaries (16 bytes an arc) on a GPU
CHUNK_ARCS = 1 << 27
#: a BFS level whose arcs number more than n / DENSE_LEVEL dedupes its targets by a scatter into
#: an n-long claim array (one scan of n) rather than by a sort of the targets
DENSE_LEVEL = 32


def kernels(part):
    """The part's device kernels: ``pagerank(in_arcs)`` (contributions and pull, as
    gravel.backends.cpu.pagerank has them) and ``neighbour_min(offsets, ids, labels, out)``.

    Parameters
    ----------
    part : Part

    Returns
    -------
    type
        gravel's Numba kernels, or :class:`~.device_kernels.DeviceKernels` on a GPU;
        ``contributions_dtype``: PageRank's contributions' (float64, float32 on GPUs).
    """
    if xp(part.out_offsets) is np:
        return _HostKernels
    from .device_kernels import DeviceKernels

    return DeviceKernels


class _HostKernels:
    #: the dtype PageRank's contributions are all-gathered in
    contributions_dtype = np.float64

    @staticmethod
    def pagerank(in_arcs):
        from ..backends.cpu import pagerank as _k

        return _k.kernels(in_arcs)

    @staticmethod
    def neighbour_min(offsets, ids, labels, out):
        """out[v] = min(out[v], smallest label among v's listed neighbours)."""
        if ids.size == 0:
            return
        has = np.diff(offsets) > 0
        smallest = np.minimum.reduceat(labels[ids], offsets[:-1][has])
        out[has] = np.minimum(out[has], smallest)


def rows_of(offsets):
    """The local row of every arc of a CSR.

    Parameters
    ----------
    offsets : numpy.ndarray or cupy.ndarray of int64
        The CSR's offsets over the part's local vertices.

    Returns
    -------
    numpy.ndarray or cupy.ndarray of int32
        ``offsets[-1]`` local rows, non-decreasing, on the device of `offsets`.
    """
    m = xp(offsets)
    total = int(offsets[-1])
    return m.searchsorted(offsets[1:], m.arange(total), side="right").astype(m.int32)


def arcs(offsets, frontier):
    """The arcs out of the local vertices `frontier`.

    Parameters
    ----------
    offsets : numpy.ndarray or cupy.ndarray of int64
        The CSR's offsets over the part's local vertices.
    frontier : numpy.ndarray or cupy.ndarray of int
        Local vertex ids.

    Returns
    -------
    positions : numpy.ndarray or cupy.ndarray of int64
        Each arc's position in the CSR's lists, list after list in the order of `frontier`.
    rows : numpy.ndarray or cupy.ndarray
        The local row (the entry of `frontier`) of each arc.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.programs import arcs
    >>> at, rows = arcs(np.array([0, 2, 2, 5]), np.array([2, 0]))
    >>> at.tolist(), rows.tolist()
    ([2, 3, 4, 0, 1], [2, 2, 2, 0, 0])
    """
    m = xp(offsets)
    start = offsets[frontier]
    deg = offsets[frontier + 1] - start
    ends = m.cumsum(deg)
    total = int(ends[-1]) if deg.size else 0
    k = m.arange(total, dtype=m.int64)
    which = m.searchsorted(ends, k, side="right")
    return start[which] + k - (ends[which] - deg[which]), frontier[which]


def _chunks(offsets, frontier):
    """The frontier cut into runs of about CHUNK_ARCS arcs (a list longer than that alone), with
    the level's total arcs."""
    m = xp(offsets)
    ends = m.cumsum(offsets[frontier + 1] - offsets[frontier])
    total = int(ends[-1]) if frontier.size else 0
    if total <= CHUNK_ARCS:
        return [frontier], total
    cuts = m.searchsorted(ends, m.arange(CHUNK_ARCS, total, CHUNK_ARCS), side="left")
    return m.split(frontier, np.unique(host(cuts)).tolist()), total


def _by_owner(part, ids, *columns):
    """Per destination part, the slices of `ids` (sorted) and of the `columns` beside them."""
    m = xp(ids)
    at = host(m.searchsorted(ids, m.asarray(part.bounds[1:-1], dtype=ids.dtype))).tolist()
    return list(zip(*(m.split(c, at) for c in (ids, *columns)), strict=True))


def _joined(received, k):
    return xp(received[0][k]).concatenate([r[k] for r in received])


def _found(part, frontier, depth, claim):
    """The targets a BFS level found that may be new (sorted global ids), with a parent each
    (global ids): local targets already reached are left out, each target named once."""
    m, lo, hi = xp(depth), part.lo, part.hi
    pieces, total = _chunks(part.out_offsets, frontier)
    dense = total * DENSE_LEVEL > part.n
    kept = []
    for piece in pieces:
        at, rows = arcs(part.out_offsets, piece)
        t = part.out_targets[at]
        local = (t >= lo) & (t < hi)
        keep = ~local | (depth[m.clip(t - lo, 0, max(part.size - 1, 0))] < 0)
        t, via = t[keep], (rows[keep] + lo).astype(m.int32)
        if dense:
            claim[t] = via  # duplicates: any one parent wins
        else:
            kept.append((t, via))
    if dense:
        found = m.flatnonzero(claim >= 0).astype(m.int32)
        parents = claim[found]
        claim[found] = -1
        return found, parents
    t, via = (m.concatenate([k[c] for k in kept]) for c in (0, 1))
    found, first = m.unique(t, return_index=True)
    return found.astype(m.int32), via[first]


#: the BFS directions a run may ask for: Beamer's switch ("auto") or one direction throughout
DIRECTIONS = ("auto", "top-down", "bottom-up")


def _bottom_up_next(direction, was, counts, previous, n):
    """Whether the next BFS level steps bottom-up: Beamer's switch on the global frontier
    (`counts`: its vertices, their out-arcs, the in-arcs of the unvisited vertices), as gravel's
    CPU BFS makes it: pull once the frontier's arcs exceed the unexplored arcs / ALPHA, push again
    once the frontier shrinks below n / BETA vertices."""
    from ..algorithms.bfs import ALPHA, BETA

    if direction != "auto":
        return direction == "bottom-up"
    n_f, m_f, m_u = (int(c) for c in counts)
    if was:
        return not (n_f < previous and n_f <= n / BETA)
    return m_f > m_u / ALPHA


def _frontier_everywhere(part, frontier, total):
    """Every part's frontier as a dense n-long boolean array, through one allgather: of the
    frontier's global ids where `total` (the global frontier's vertices) takes fewer bytes than a
    bitmap of every vertex, else of each part's bitmap of its own range (packed bits, padded to a
    byte per part)."""
    m, n, bounds = xp(part.out_offsets), part.n, part.bounds
    seen = m.zeros(n, bool)
    if 4 * total < n // 8 + part.parts:
        everyone = yield allgather((frontier + part.lo).astype(m.int32))
        seen[everyone] = True
        return seen
    mine = m.zeros(part.size, bool)
    mine[frontier] = True
    bits = yield allgather(m.packbits(mine))
    at = 0
    for k in range(part.parts):
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        width = -(-(hi - lo) // 8)
        seen[lo:hi] = m.unpackbits(bits[at : at + width])[: hi - lo].astype(bool)
        at += width
    return seen


def _bottom_up(part, depth, seen):
    """A bottom-up level: every unvisited local vertex with an in-neighbour in `seen` (the global
    frontier), with that neighbour as its parent (global id). No exchange: the vertex's owner
    finds its parent."""
    m = xp(depth)
    ids, via = [], []
    for piece in _chunks(part.in_offsets, m.flatnonzero(depth < 0))[0]:
        at, rows = arcs(part.in_offsets, piece)
        src = part.in_sources[at]
        hit = seen[src]
        rows, src = rows[hit], src[hit]
        rows, first = m.unique(rows, return_index=True)  # any in-neighbour in the frontier
        ids.append(rows)
        via.append(src[first])
    return m.concatenate(ids), m.concatenate(via)


def _top_down(part, frontier, depth, claim):
    """A top-down level: the targets the part's frontier found go to their owners (alltoall),
    each owner keeps the unvisited ones. Returns (local ids, parents)."""
    m, lo = xp(depth), part.lo
    found, parents = _found(part, frontier, depth, claim)
    received = yield alltoall(_by_owner(part, found, parents))
    ids, via = _joined(received, 0) - lo, _joined(received, 1)
    fresh = depth[ids] < 0
    ids, via = ids[fresh], via[fresh]
    ids, first = m.unique(ids, return_index=True)
    return ids, via[first]


def bfs_program(part, source, direction="auto"):
    """Level-synchronous direction-optimizing BFS. Each level starts with one allreduce of the
    global frontier's vertices, out-arcs and unexplored in-arcs, from which every part makes the
    same choice (:func:`_bottom_up_next`). Top-down, each part expands its frontier and sends
    every target it found (with a parent) to the target's owner, which claims the unvisited ones.
    Bottom-up, the frontier goes to every part (:func:`_frontier_everywhere`) and each part
    searches the in-lists of its unvisited vertices for a parent in it.

    Parameters
    ----------
    part : Part
    source : int
        The source, a global (internal) id.
    direction : {"auto", "top-down", "bottom-up"}, default "auto"
        Beamer's switch, or one direction for every level.

    Yields
    ------
    Collective
        Per level an allreduce (sum) of the three counts, then an alltoall (top-down) or an
        allgather (bottom-up).

    Returns
    -------
    depth : array of int32
        Per local vertex, its level (-1 where unreached).
    parent : array of int32
        Per local vertex, its parent's global id (the source its own; -1 where unreached).
    bottom_up_levels : int
        The levels that stepped bottom-up.

    Examples
    --------
    >>> import gravel, gravel.distributed.exchange as ex
    >>> parts = gravel.distributed.split(gravel.generate.grid(2, 3), 2)
    >>> [depth.tolist() for depth, _, _ in ex.run_in_process(parts, bfs_program, 0, "top-down")]
    [[0, 1, 2], [1, 2, 3]]
    """
    m, lo, hi = xp(part.out_offsets), part.lo, part.hi
    depth = m.full(part.size, -1, m.int32)
    parent = m.full(part.size, -1, m.int32)
    frontier = m.zeros(0, m.int64)
    out_degree, in_degree = m.diff(part.out_offsets), m.diff(part.in_offsets)
    unexplored = int(part.in_arcs)
    if lo <= source < hi:
        depth[source - lo], parent[source - lo] = 0, source
        frontier = m.asarray([source - lo], dtype=m.int64)
        unexplored -= int(in_degree[source - lo])
    claim = m.full(part.n, -1, m.int32)  # the dense levels' scatter target, kept all -1
    level, pulls, pulling, previous = 0, 0, False, 0
    while True:
        mine = [frontier.size, int(out_degree[frontier].sum()), unexplored]
        counts = yield allreduce(np.array(mine, np.int64))
        if counts[0] == 0:
            return depth, parent, pulls
        pulling = _bottom_up_next(direction, pulling, counts, previous, part.n)
        previous, level = int(counts[0]), level + 1
        if pulling:
            pulls += 1
            seen = yield from _frontier_everywhere(part, frontier, previous)
            ids, via = _bottom_up(part, depth, seen)
        else:
            ids, via = yield from _top_down(part, frontier, depth, claim)
        depth[ids], parent[ids] = level, via
        unexplored -= int(in_degree[ids].sum())
        frontier = ids.astype(m.int64)


def _lowest(ids, offer, via):
    """Each id once, sorted, with its lowest offer (offers are non-negative) and that offer's
    `via` (the first in the given order among equal offers). One stable sort by id, then each
    run's minimum by a scatter of the offers' bits: a non-negative float64 orders as its bits do
    as int64, whose atomic minimum is exact (a float lexsort costs several times more)."""
    m = xp(ids)
    if ids.size == 0:
        return ids, offer, via
    order = m.argsort(ids, kind="stable")
    ids, offer, via = ids[order], offer[order], via[order]
    head = m.ones(ids.size, bool)
    head[1:] = ids[1:] != ids[:-1]
    run = m.cumsum(head) - 1
    low = m.full(int(run[-1]) + 1, np.iinfo(np.int64).max)
    m.minimum.at(low, run, offer.view(m.int64))
    pick = m.flatnonzero(offer.view(m.int64) == low[run])
    first = m.ones(pick.size, bool)
    first[1:] = run[pick[1:]] != run[pick[:-1]]
    pick = pick[first]
    return ids[pick], offer[pick], via[pick]


def sssp_program(part, source, delta):
    """Near-far SSSP (delta-stepping's buckets merged into one near pile): every superstep each
    part relaxes the out-arcs of its improved vertices below the split, sends each target's best
    offer (distance, predecessor) to the target's owner, and the owners keep the offers that
    improve; when no part has a near vertex left, the split moves past the lowest distance still
    waiting anywhere.

    Parameters
    ----------
    part : Part
        Unit weights where it has none.
    source : int
        The source, a global (internal) id.
    delta : float
        The bucket width: the split starts at `delta` and moves in steps of it.

    Yields
    ------
    Collective
        Each superstep an allreduce (sum) of the near vertices; then an alltoall of the offers,
        or, where no part has a near vertex, an allreduce (min) of the lowest distance waiting.

    Returns
    -------
    distance : array of float64
        Per local vertex (``inf`` where unreachable).
    predecessor : array of int32
        Per local vertex, its predecessor's global id (-1 for the source and where unreachable).
    supersteps : int
        The supersteps that relaxed arcs.
    """
    m, lo, hi = xp(part.out_offsets), part.lo, part.hi
    dist = m.full(part.size, m.inf)
    pred = m.full(part.size, -1, m.int32)
    waiting = m.zeros(part.size, bool)  # improved, out-arcs not yet relaxed
    if lo <= source < hi:
        dist[source - lo], waiting[source - lo] = 0.0, True
    split, steps = delta, 0
    while True:
        near = m.flatnonzero(waiting & (dist < split))
        if (yield allreduce(np.int64(near.size))) == 0:
            mine = float(m.where(waiting, dist, m.inf).min()) if part.size else np.inf
            low = float((yield allreduce(np.float64(mine), "min")))
            if not np.isfinite(low):
                return dist, pred, steps
            split = max(split + delta, (np.floor(low / delta) + 1) * delta)
            continue
        steps += 1
        waiting[near] = False
        sends = _offers(part, near, dist)
        received = yield alltoall(_by_owner(part, *sends))
        ids, offer, via = _lowest(*(_joined(received, k) for k in range(3)))
        ids = ids - lo
        better = offer < dist[ids]
        ids, offer, via = ids[better], offer[better], via[better]
        dist[ids], pred[ids], waiting[ids] = offer, via, True


def _offers(part, near, dist):
    """Each target's lowest offer (distance, predecessor's global id) over the out-arcs of the
    local vertices `near`, a chunk of about CHUNK_ARCS arcs at a time (the arcs' temporaries
    stay bounded however many the near vertices have)."""
    m, weights = xp(dist), part.out_weights
    best = []
    for piece in _chunks(part.out_offsets, near)[0]:
        at, rows = arcs(part.out_offsets, piece)
        offer = dist[rows] + (weights[at] if weights is not None else 1.0)
        best.append(_lowest(part.out_targets[at], offer, (rows + part.lo).astype(m.int32)))
    if len(best) == 1:
        return best[0]
    return _lowest(*(m.concatenate(column) for column in zip(*best, strict=True)))


def pagerank_program(part, alpha, max_iter, threshold, weighted):
    """Pull PageRank: each iteration all-gathers the contributions rank / out-weight of every
    vertex (with each part's dangling mass and last L1 change) and pulls them over the part's
    in-edges. Ranks and sums are float64; the contributions are as wide as the kernels take them
    (float32 on GPUs: half the bytes all-gathered and gathered, the single GPU's precision). Every
    part sums the same gathered figures, so all stop together.

    Parameters
    ----------
    part : Part
    alpha : float
    max_iter : int
    threshold : float
        Stop once an iteration's L1 change (over the whole graph) is below it.
    weighted : bool
        Pass rank along the out-edges in proportion to their weights.

    Yields
    ------
    Collective
        Each iteration, and once more at the end, an allgather of the contributions with the
        part's dangling mass and last L1 change.

    Returns
    -------
    rank : array of float64
    iterations : int
    change : float or None
        The last iteration's L1 change (None where none ran).
    converged : bool
        Whether the change fell below `threshold` (or, after `max_iter`, `threshold` is 0).
    """
    m, n, size = xp(part.out_offsets), part.n, part.size
    if weighted:
        out = m.bincount(rows_of(part.out_offsets), part.out_weights, minlength=size)
    else:
        out = m.diff(part.out_offsets).astype(m.int32)
    kind = kernels(part)
    k = kind.pagerank(part.in_arcs)
    rank = m.full(size, 1.0 / n)
    new, contrib = m.empty(size), m.empty(size, kind.contributions_dtype)
    lost, err, change = k.contributions(rank, out, contrib), 0.0, None
    it = 0
    while True:
        everyone, sums = yield allgather((contrib, m.asarray(np.array([lost, err]))))
        sums = host(sums)
        if it:
            change = float(sums[1::2].sum())
            if change < threshold:
                return rank, it, change, True
        if it == max_iter:
            return rank, it, change, threshold == 0
        it += 1
        base = m.full(size, alpha * float(sums[0::2].sum()) / n + (1.0 - alpha) / n)
        weights = part.in_weights if weighted else None
        err = k.pull(part.in_offsets, part.in_sources, weights, everyone, base, alpha, rank, new)
        rank, new = new, rank
        lost = k.contributions(rank, out, contrib)


def cc_program(part):
    """Min-label propagation with shortcuts: every round all-gathers the labels, and each vertex
    takes the smallest label among itself and its out- and in-neighbours, then the label of that
    label's vertex (pointer jumping, which shortens long chains geometrically). Stops when a
    round changes no label: every part sees the same gathered labels, so all stop together.

    Parameters
    ----------
    part : Part

    Yields
    ------
    Collective
        Each round, and once more at the end, an allgather of the part's labels.

    Returns
    -------
    labels : array of int32
        Per local vertex, the smallest global id of its component.
    rounds : int
        The rounds of propagation run (the last one changed no label).
    """
    m, k = xp(part.out_offsets), kernels(part)
    labels = m.arange(part.lo, part.hi, dtype=m.int32)
    previous, rounds = None, 0
    while True:
        everyone = yield allgather(labels)
        if previous is not None and bool((everyone == previous).all()):
            return labels, rounds
        previous, rounds = everyone, rounds + 1
        labels = labels.copy()
        k.neighbour_min(part.out_offsets, part.out_targets, everyone, labels)
        if part.directed:
            k.neighbour_min(part.in_offsets, part.in_sources, everyone, labels)
        labels = m.minimum(labels, everyone[labels])
