"""The per-part programs' steps (:func:`gravel.distributed.programs.steps`) on a part in host
memory: array calls over its lists of global ids (NumPy) and gravel's Numba kernels. A part on a
GPU takes :class:`~.device_steps.DeviceSteps` instead; the loops call :func:`lowest` on either
device's arrays.
"""

import numpy as np

from ..arrays import host, list_entries, xp

#: arcs a BFS level (or an SSSP superstep) expands at once on the host: bounds the temporaries
#: (16 bytes an arc)
CHUNK_ARCS = 1 << 27
#: a host BFS level whose arcs number more than n / DENSE_LEVEL dedupes its targets by a scatter
#: into an n-long claim array (one scan of n) rather than by a sort of the targets
DENSE_LEVEL = 32


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


def _found(part, frontier, depth, claim):
    """The targets a BFS level found that may be new (sorted global ids), with a parent each
    (global ids): local targets already reached are left out, each target named once."""
    m, lo, hi = xp(depth), part.lo, part.hi
    pieces, total = _chunks(part.out_offsets, frontier)
    dense = total * DENSE_LEVEL > part.n
    kept = []
    for piece in pieces:
        at, which = list_entries(part.out_offsets, piece)
        rows = piece[which]
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


def _bottom_up(part, depth, seen):
    """A bottom-up level: every unvisited local vertex with an in-neighbour in `seen` (the global
    frontier), with that neighbour as its parent (global id). No exchange: the vertex's owner
    finds its parent."""
    m = xp(depth)
    ids, via = [], []
    for piece in _chunks(part.in_offsets, m.flatnonzero(depth < 0))[0]:
        at, which = list_entries(part.in_offsets, piece)
        rows = piece[which]
        src = part.in_sources[at]
        hit = seen[src]
        rows, src = rows[hit], src[hit]
        rows, first = m.unique(rows, return_index=True)  # any in-neighbour in the frontier
        ids.append(rows)
        via.append(src[first])
    return m.concatenate(ids), m.concatenate(via)


def lowest(ids, offer, via):
    """Each id once, sorted, with its lowest offer (offers are non-negative) and that offer's
    `via` (the first in the given order among equal offers). One stable sort by id, then each
    run's minimum by a scatter of the offers' bits: a non-negative float64 orders as its bits do
    as int64, whose atomic minimum is exact (a float lexsort costs several times more).

    Parameters
    ----------
    ids : numpy.ndarray or cupy.ndarray of int
    offer : numpy.ndarray or cupy.ndarray of float64
        Non-negative, one per id.
    via : numpy.ndarray or cupy.ndarray
        One per id.

    Returns
    -------
    ids, offer, via : arrays
        Of the same module and dtypes, one entry per distinct id.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.host_steps import lowest
    >>> [a.tolist() for a in lowest(np.array([3, 1, 3]), np.array([2.0, 5.0, 1.0]), np.arange(3))]
    [[1, 3], [5.0, 1.0], [1, 2]]
    """
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


def _offers(part, near, dist):
    """Each target's lowest offer (distance, predecessor's global id) over the out-arcs of the
    local vertices `near`, a chunk of about CHUNK_ARCS arcs at a time (the arcs' temporaries
    stay bounded however many the near vertices have)."""
    m, weights = xp(dist), part.out_weights
    best = []
    for piece in _chunks(part.out_offsets, near)[0]:
        at, which = list_entries(part.out_offsets, piece)
        rows = piece[which]
        offer = dist[rows] + (weights[at] if weights is not None else 1.0)
        best.append(lowest(part.out_targets[at], offer, (rows + part.lo).astype(m.int32)))
    if len(best) == 1:
        return best[0]
    return lowest(*(m.concatenate(column) for column in zip(*best, strict=True)))


class _HostPageRank:
    """PageRank's contributions and pull on a host part: gravel's Numba kernels."""

    def __init__(self, part, weighted):
        from ..backends.cpu import pagerank as _k

        self.part, self.weighted, self.k = part, weighted, _k.kernels(part.in_arcs)

    def contributions(self, rank, out_weight, contrib):
        return self.k.contributions(rank, out_weight, contrib)

    def pull(self, everyone, base, alpha, rank, new_rank):
        p = self.part
        weights = p.in_weights if self.weighted else None
        return self.k.pull(
            p.in_offsets, p.in_sources, weights, everyone, base, alpha, rank, new_rank
        )


def _neighbour_min(offsets, ids, labels, out):
    """out[v] = min(out[v], smallest label among v's listed neighbours)."""
    if ids.size == 0:
        return
    has = np.diff(offsets) > 0
    smallest = np.minimum.reduceat(labels[ids], offsets[:-1][has])
    out[has] = np.minimum(out[has], smallest)


class HostSteps:
    """The programs' steps on a part in host memory
    (:func:`gravel.distributed.programs.steps`)."""

    #: the dtype PageRank's contributions are all-gathered in
    contributions_dtype = np.float64

    @staticmethod
    def claims(part):
        """BFS's claim array, the dense levels' scatter target: one slot per vertex, each -1.

        Parameters
        ----------
        part : Part

        Returns
        -------
        numpy.ndarray of int32
        """
        return np.full(part.n, -1, np.int32)

    found = staticmethod(_found)
    bottom_up = staticmethod(_bottom_up)
    offers = staticmethod(_offers)
    pagerank = _HostPageRank

    @staticmethod
    def neighbour_min(part, everyone, labels):
        """``labels[v] = min(labels[v], the smallest label among v's out- and in-neighbours)``.

        Parameters
        ----------
        part : Part
        everyone : numpy.ndarray of int32
            Every vertex's label, by global id.
        labels : numpy.ndarray of int32
            The own vertices' labels, lowered in place.
        """
        _neighbour_min(part.out_offsets, part.out_targets, everyone, labels)
        if part.directed:
            _neighbour_min(part.in_offsets, part.in_sources, everyone, labels)
