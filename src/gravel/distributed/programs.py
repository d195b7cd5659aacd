"""The per-part programs of BFS, SSSP, PageRank and CC (see exchange.py), written once for both
devices: each loop and its exchange are here, its steps come from the part's :func:`steps`. On
the host they are array calls (NumPy) and gravel's Numba kernels; on a GPU
(:class:`~.device_part.DevicePart`) they are gravel's operators over the part's graph
(:class:`~.device_steps.DeviceSteps`).

A collective's control values (frontier sizes, the SSSP split) are host scalars: the part needs
them on the host to decide its next step anyway. Its payloads are arrays of the part's device.
"""

import numpy as np

from ..arrays import entry_rows, host, xp
from .device_part import DevicePart
from .device_steps import DeviceSteps
from .exchange import allgather, allreduce, alltoall
from .host_steps import HostSteps, lowest


def steps(part):
    """The steps the programs take on `part`: ``claims(part)``, ``found(part, frontier, depth,
    claim)`` and ``bottom_up(part, depth, seen)`` (BFS), ``offers(part, near, dist)`` (SSSP),
    ``pagerank(part, weighted)`` (contributions and pull) and ``neighbour_min(part, everyone,
    labels)`` (CC).

    Parameters
    ----------
    part : Part or DevicePart

    Returns
    -------
    type
        :class:`~.device_steps.DeviceSteps` for a part on a GPU, else the host's (array calls
        and gravel's Numba kernels); ``contributions_dtype``: PageRank's contributions' (float64,
        float32 on GPUs).
    """
    return DeviceSteps if isinstance(part, DevicePart) else HostSteps


def _by_owner(part, ids, *columns):
    """Per destination part, the slices of `ids` (sorted) and of the `columns` beside them."""
    m = xp(ids)
    at = host(m.searchsorted(ids, m.asarray(part.bounds[1:-1], dtype=ids.dtype))).tolist()
    return list(zip(*(m.split(c, at) for c in (ids, *columns)), strict=True))


def _joined(received, k):
    return xp(received[0][k]).concatenate([r[k] for r in received])


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


def _top_down(part, frontier, depth, claim):
    """A top-down level: the targets the part's frontier found go to their owners (alltoall),
    each owner keeps the unvisited ones. Returns (local ids, parents)."""
    m, lo = xp(depth), part.lo
    found, parents = steps(part).found(part, frontier, depth, claim)
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
    part : Part or DevicePart
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
    claim = steps(part).claims(part)  # a scatter target, kept all -1
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
            ids, via = steps(part).bottom_up(part, depth, seen)
        else:
            ids, via = yield from _top_down(part, frontier, depth, claim)
        depth[ids], parent[ids] = level, via
        unexplored -= int(in_degree[ids].sum())
        frontier = ids.astype(m.int64)


def sssp_program(part, source, delta):
    """Near-far SSSP (delta-stepping's buckets merged into one near pile): every superstep each
    part relaxes the out-arcs of its improved vertices below the split, sends each target's best
    offer (distance, predecessor) to the target's owner, and the owners keep the offers that
    improve; when no part has a near vertex left, the split moves past the lowest distance still
    waiting anywhere.

    Parameters
    ----------
    part : Part or DevicePart
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
    split, relaxed = delta, 0
    while True:
        near = m.flatnonzero(waiting & (dist < split))
        if (yield allreduce(np.int64(near.size))) == 0:
            mine = float(m.where(waiting, dist, m.inf).min()) if part.size else np.inf
            low = float((yield allreduce(np.float64(mine), "min")))
            if not np.isfinite(low):
                return dist, pred, relaxed
            split = max(split + delta, (np.floor(low / delta) + 1) * delta)
            continue
        relaxed += 1
        waiting[near] = False
        sends = steps(part).offers(part, near, dist)
        received = yield alltoall(_by_owner(part, *sends))
        ids, offer, via = lowest(*(_joined(received, k) for k in range(3)))
        ids = ids - lo
        better = offer < dist[ids]
        ids, offer, via = ids[better], offer[better], via[better]
        dist[ids], pred[ids], waiting[ids] = offer, via, True


def pagerank_program(part, alpha, max_iter, threshold, weighted):
    """Pull PageRank: each iteration all-gathers the contributions rank / out-weight of every
    vertex (with each part's dangling mass and last L1 change) and pulls them over the part's
    in-edges. Ranks are float64; the contributions are as wide as the steps take them (float32 on
    GPUs, summed in float32 by the single GPU's sweep: half the bytes all-gathered and gathered,
    the single GPU's precision). Every part sums the same gathered figures, so all stop together.

    Parameters
    ----------
    part : Part or DevicePart
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
        rows = entry_rows(part.out_offsets, part.out_arcs)
        out = m.bincount(rows, part.out_weights, minlength=size)
    else:
        out = m.diff(part.out_offsets).astype(m.int32)
    kind = steps(part)
    k = kind.pagerank(part, weighted)
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
        err = k.pull(everyone, base, alpha, rank, new)
        rank, new = new, rank
        lost = k.contributions(rank, out, contrib)


def cc_program(part):
    """Min-label propagation with shortcuts: every round all-gathers the labels, and each vertex
    takes the smallest label among itself and its out- and in-neighbours, then the label of that
    label's vertex (pointer jumping, which shortens long chains geometrically). Stops when a
    round changes no label: every part sees the same gathered labels, so all stop together.

    Parameters
    ----------
    part : Part or DevicePart

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
    m, k = xp(part.out_offsets), steps(part)
    labels = m.arange(part.lo, part.hi, dtype=m.int32)
    previous, rounds = None, 0
    while True:
        everyone = yield allgather(labels)
        if previous is not None and bool((everyone == previous).all()):
            return labels, rounds
        previous, rounds = everyone, rounds + 1
        labels = labels.copy()
        k.neighbour_min(part, everyone, labels)
        labels = m.minimum(labels, everyone[labels])
