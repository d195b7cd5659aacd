"""A part of a 1-D partition on a GPU, as gravel's operators take a graph, and the per-part
programs' steps (:mod:`gravel.distributed.programs`) as operator calls on it.

:func:`to_device` numbers a part's vertices afresh: its own, ``lo .. hi - 1``, as ``0 .. size -
1``, then its ghosts, the other parts' vertices that its arcs name, in increasing global id. Over
these ids the part is a square :class:`~gravel.backends.cuda.graph.DeviceGraph` whose CSR holds the
out-lists of its own vertices and whose CSC holds their in-lists, the ghosts' rows empty in both:
advance, with its load balancing, reads the one; neighbor_reduce, with its planned sweeps
(blocked, staged, streamed), the other. ``ids`` maps each id back to its global id. A part whose
lists do not fit in the GPU's memory keeps them in pinned host memory, read over the bus
(placement "host"), as a graph on one GPU does. A list keeps its global order, so ghosts below
``lo`` follow the own vertices in it: its ids are not sorted, which no step here needs.

The exchange stays in global ids: a step maps what it sends through ``ids`` and what it receives
is the owner's own vertices (``global - lo``).
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..errors import GraphTooLargeError, UnknownNameError
from .partition import PartRange

#: where a part's lists may live: "device", or "host" (pinned, read over the bus); "auto" takes
#: the device where the lists and the part's vertex state fit in its free memory
PLACEMENTS = ("auto", "device", "host")

#: ids renumbered at a time when a part is loaded: bounds the temporaries of each step
RENUMBER_IDS = 1 << 26
#: int32's largest: the empty result of the pulls' "any" and "min", and no predecessor yet
_NONE = np.iinfo(np.int32).max
#: +inf as the bits of a float64: no offer yet (non-negative doubles order as their bits)
_NO_OFFER = int(np.float64(np.inf).view(np.int64))


@dataclass(eq=False)
class DevicePart(PartRange):
    """One part of a 1-D partition on a GPU (:func:`to_device`).

    Attributes
    ----------
    index, bounds, n, directed
        As :class:`~gravel.distributed.Part` has them.
    graph : gravel.backends.cuda.graph.DeviceGraph
        The part over its own ids (the module's docstring): ``size`` own vertices, then the
        ghosts.
    ids : cupy.ndarray of int32
        The global id of each of the graph's vertices: ``lo .. hi - 1``, then the ghosts in
        increasing order.
    """

    index: int
    bounds: np.ndarray
    n: int
    directed: bool
    graph: object
    ids: object

    @property
    def out_offsets(self):
        """The out-lists' offsets over the part's own vertices (``size + 1``, a view)."""
        return self.graph.offsets[: self.size + 1]

    @property
    def in_offsets(self):
        """The in-lists' offsets over the part's own vertices (``size + 1``, a view)."""
        return self.graph.csc()[0][: self.size + 1]

    @property
    def out_weights(self):
        """The out-arcs' float32 weights in CSR order, or None."""
        return self.graph.weights

    @property
    def weighted(self):
        """Whether the part holds weights."""
        return self.graph.weighted

    def __repr__(self):
        return (
            f"<gravel.distributed.DevicePart {self.index}/{self.parts} vertices "
            f"{self.lo}..{self.hi} ghosts {self.graph.n - self.size} "
            f"out-arcs {self.out_arcs} in-arcs {self.in_arcs}, {self.graph.placement}>"
        )


def to_device(part, placement="auto", *, consume=False):
    """`part` on this process's GPU, as gravel's operators take it.

    Parameters
    ----------
    part : Part
        Its arrays on the host or on this GPU.
    placement : {"auto", "device", "host"}, default "auto"
        Where the lists go: device memory, or pinned host memory read over the bus. A part built
        on the GPU stays there unless "host" is asked for; "auto" takes the device for a part in
        host memory where its lists, offsets, vertex state
        (``gravel.placement.STATE_BYTES_PER_VERTEX`` for each of its vertices and ghosts) and
        the renumbering's 5 bytes a vertex of the graph fit in the free device memory and the
        budget (``GRAVEL_DEVICE_MEMORY``), else the host.
    consume : bool, default False
        Renumber the part's id arrays in place where they are already where the lists go (a
        part built for this call, which is not used again): no copy of its ids at the peak.

    Returns
    -------
    DevicePart
        Its own vertices renumbered from 0, the ghosts after them; int64 offsets, int32 ids,
        float32 weights (or None). An undirected part's CSR serves as its CSC.

    Raises
    ------
    UnknownNameError
        An unknown `placement`.
    GraphTooLargeError
        "device" for lists that do not fit in the free device memory (or the budget).
    """
    placement = _placement(part, placement)
    import cupy

    from ..backends.cuda import pinned
    from ..backends.cuda.graph import DeviceGraph

    m = cupy if placement == "device" else np

    def on(a, dtype):
        return None if a is None else m.ascontiguousarray(m.asarray(_to(m, a), dtype=dtype))

    def ids_of(a):  # renumbered in place: the caller's own array only where it gives it up
        given = _to(m, a)
        ids = on(given, np.int32)
        return ids.copy() if ids is given and not consume else ids

    def arrays(offsets, ids, weights):
        return on(offsets, np.int64), ids_of(ids), on(weights, np.float32)

    out = arrays(part.out_offsets, part.out_targets, part.out_weights)
    inn = arrays(part.in_offsets, part.in_sources, part.in_weights) if part.directed else out
    lo, hi = part.lo, part.hi
    ghosts = _renumber(m, part.n, lo, hi, out[1], *((inn[1],) if part.directed else ()))

    def lists(offsets, named, weights):
        offsets = m.concatenate([offsets, m.full(ghosts.size, int(offsets[-1]), m.int64)])
        if m is np:
            return cupy.asarray(offsets), pinned.mapped(named), pinned.mapped(weights)
        return offsets, named, weights

    csr = lists(*out)
    csc = lists(*inn) if part.directed else csr
    graph = DeviceGraph.from_arrays(*csr, directed=part.directed, csc=csc)
    graph.placement = placement
    ids = cupy.concatenate([cupy.arange(lo, hi, dtype=cupy.int32), cupy.asarray(ghosts)])
    return DevicePart(part.index, part.bounds, part.n, part.directed, graph, ids)


def _to(m, a):
    return host(a) if m is np else a


def _placement(part, placement):
    """The placement of `part`'s lists that `placement` asks for (:func:`to_device`)."""
    from ..arrays import xp
    from ..placement.budget import format_bytes, resolve_budget
    from ..placement.planner import STATE_BYTES_PER_VERTEX

    if placement not in PLACEMENTS:
        raise UnknownNameError(
            f"unknown placement {placement!r} (expected {', '.join(PLACEMENTS)})"
        )
    if placement == "host":
        return "host"
    if xp(part.out_targets) is not np:  # built on this GPU: its lists are there already
        return "device"
    from ..backends.cuda.runtime import free_bytes

    arrays = [part.out_offsets, part.out_targets, part.out_weights]
    if part.directed:
        arrays += [part.in_offsets, part.in_sources, part.in_weights]
    ids = part.out_arcs + (part.in_arcs if part.directed else 0)
    vertices = part.size + min(part.n - part.size, ids)  # its own and at most that many ghosts
    # the lists, the vertex state, the offsets' ghost rows, and the renumbering's bitmap and map
    need = sum(a.nbytes for a in arrays if a is not None) + vertices * STATE_BYTES_PER_VERTEX
    need += 16 * (vertices - part.size) + 5 * part.n
    limit, budget = free_bytes(), resolve_budget()
    limit = limit if budget is None else min(limit, budget)
    if need <= limit:
        return "device"
    if placement == "device":
        raise GraphTooLargeError(
            f"part {part.index}: placement 'device': its lists, vertex state and loading need "
            f"{format_bytes(need)} of device memory, and {format_bytes(limit)} are free or "
            "budgeted: use 'host' or more GPUs"
        )
    return "host"


def _renumber(m, n, lo, hi, *named):
    """Renumber the global ids in the int32 arrays `named` in place, into the part's own numbering:
    ``lo .. hi - 1`` from 0, then the ghosts (the other ids they hold) in increasing order.
    A bitmap of the ids held, then a map of n ids, each array read RENUMBER_IDS ids at a time.

    Parameters
    ----------
    m : module
        NumPy or CuPy, that of the arrays.
    n : int
        Vertices of the whole graph.
    lo, hi : int
        The part's vertex range.
    *named : arrays of int32
        Global ids, each below n; renumbered in place.

    Returns
    -------
    array of int32
        The ghosts' global ids, sorted.
    """
    held = m.zeros(n, m.bool_)
    for a in named:
        for at in range(0, a.size, RENUMBER_IDS):
            held[a[at : at + RENUMBER_IDS]] = True
    held[lo:hi] = False
    ghosts = m.flatnonzero(held).astype(m.int32)
    del held
    size = hi - lo
    local = m.empty(n, m.int32)  # read at the ids held only
    local[lo:hi] = m.arange(size, dtype=m.int32)
    local[ghosts] = m.arange(size, size + ghosts.size, dtype=m.int32)
    for a in named:
        for at in range(0, a.size, RENUMBER_IDS):
            a[at : at + RENUMBER_IDS] = local[a[at : at + RENUMBER_IDS]]
    return ghosts


# -- the programs' steps -----------------------------------------------------------------------

#: SSSP's offer: the lowest distance by an atomic minimum of its bits; true at a target's first
_OFFER = """
__device__ __forceinline__ bool offer_once(long long* best, int* seen, double offer) {
    atomicMin(best, __double_as_longlong(offer));
    return atomicExch(seen, 1) == 0;
}
"""


class DeviceSteps:
    """The per-part programs' steps (:func:`gravel.distributed.programs.steps`) on a
    :class:`DevicePart`, each an operator call over ``part.graph``."""

    #: PageRank's contributions travel and are gathered in float32, as the single GPU's are
    contributions_dtype = np.float32

    @staticmethod
    def claims(part):
        """BFS's claim array: one slot per vertex of the part's graph, each -1.

        Parameters
        ----------
        part : DevicePart

        Returns
        -------
        cupy.ndarray of int32
        """
        import cupy

        return cupy.full(part.graph.n, -1, cupy.int32)

    @staticmethod
    def found(part, frontier, depth, claim):
        """Top-down: the targets of the frontier's out-arcs that may be new (sorted global ids),
        each once, with a parent (global id). One advance whose functor claims each target by
        compare-and-swap, the part's own targets already reached left out.

        Parameters
        ----------
        part : DevicePart
        frontier : cupy.ndarray of int
            Own vertices.
        depth : cupy.ndarray of int32
            Per own vertex, its level or -1.
        claim : cupy.ndarray of int32
            :meth:`claims`, all -1; left so.

        Returns
        -------
        found, parents : cupy.ndarray of int32
        """
        import cupy

        from ..frontier import Frontier
        from ..operators import advance

        g = part.graph
        if frontier.size == 0:
            return cupy.zeros(0, cupy.int32), cupy.zeros(0, cupy.int32)
        front = Frontier(g.n, ids=frontier.astype(cupy.int32), length=int(frontier.size))
        out = advance(
            g,
            front,
            "(dst >= size || depth[dst] < 0) && atomicCAS(&claim[dst], -1, src) == -1",
            params={"depth": depth, "claim": claim, "size": np.int32(part.size)},
            capacity=g.n,
        ).ids
        parents = claim[out] + np.int32(part.lo)
        claim[out] = -1
        found = part.ids[out]
        order = cupy.argsort(found)
        return found[order], parents[order]

    @staticmethod
    def bottom_up(part, depth, seen):
        """Bottom-up: each unvisited own vertex with an in-neighbour in `seen` (global ids), with
        that neighbour (global id). A neighbor_reduce "any" over their in-lists, which stops a
        short list at its first hit.

        Parameters
        ----------
        part : DevicePart
        depth : cupy.ndarray of int32
        seen : cupy.ndarray of bool
            Every vertex of the graph: whether it is in the frontier.

        Returns
        -------
        ids : cupy.ndarray of int32
            Own vertices.
        parents : cupy.ndarray of int32
            Global ids.
        """
        import cupy

        from ..frontier import Frontier
        from ..operators import neighbor_reduce

        unvisited = cupy.flatnonzero(depth < 0).astype(cupy.int32)
        if unvisited.size == 0:
            return unvisited, unvisited
        g = part.graph
        front = Frontier(g.n, ids=unvisited, length=int(unvisited.size))
        mine = seen[part.ids]
        hit = neighbor_reduce(
            g, front, f"seen[u] ? u : {_NONE}", "any", dtype=np.int32, params={"seen": mine}
        )
        got = hit < _NONE
        return unvisited[got], part.ids[hit[got]]

    @staticmethod
    def offers(part, near, dist):
        """SSSP: each target's lowest offer (distance) over the out-arcs of the own vertices
        `near`, with its predecessor (global id; the lowest own id among equal offers). Two
        advances: one lowers each target's offer by an atomic minimum and emits the target
        once, the next names the predecessors whose arc made the lowest.

        Parameters
        ----------
        part : DevicePart
            Unit weights where it has none.
        near : cupy.ndarray of int
            Own vertices.
        dist : cupy.ndarray of float64
            Per own vertex.

        Returns
        -------
        ids : cupy.ndarray of int32
            Sorted global ids.
        offer : cupy.ndarray of float64
        via : cupy.ndarray of int32
        """
        import cupy

        from ..frontier import Frontier
        from ..operators import advance

        g = part.graph
        if near.size == 0:
            return cupy.zeros(0, cupy.int32), cupy.zeros(0), cupy.zeros(0, cupy.int32)
        best, seen, via = g.cached("distributed.offers", lambda: _offer_state(g.n))
        front = Frontier(g.n, ids=near.astype(cupy.int32), length=int(near.size))
        offer = "dist[src] + (double)weight"
        params = {"dist": dist, "best": best, "seen": seen}
        t = advance(
            g, front, f"offer_once(&best[dst], &seen[dst], {offer})", params=params,
            capacity=g.n, preamble=_OFFER,
        ).ids  # fmt: skip
        lowest = f"{offer} == __longlong_as_double(best[dst]) && (atomicMin(&via[dst], src), true)"
        advance(g, front, lowest, params={"dist": dist, "best": best, "via": via}, output=None)
        offers, who = best[t].view(cupy.float64), via[t] + np.int32(part.lo)
        best[t], seen[t], via[t] = _NO_OFFER, 0, _NONE
        ids = part.ids[t]
        order = cupy.argsort(ids)
        return ids[order], offers[order], who[order]

    @staticmethod
    def pagerank(part, weighted):
        """PageRank's steps on `part`: ``contributions(rank, out_weight, contrib)`` (returns
        the dangling rank) and ``pull(everyone, base, alpha, rank, new_rank)`` (returns the L1
        change), the pull a neighbor_reduce sweep over the part's in-lists as the single GPU's
        plan_sweep blocks it.

        Parameters
        ----------
        part : DevicePart
        weighted : bool

        Returns
        -------
        object
        """
        return _PageRank(part, weighted)

    @staticmethod
    def neighbour_min(part, everyone, labels):
        """``labels[v] = min(labels[v], the smallest label among v's out- and in-neighbours)``:
        neighbor_reduce "min" sweeps over the in-lists and (directed) the out-lists.

        Parameters
        ----------
        part : DevicePart
        everyone : cupy.ndarray of int32
            Every vertex's label, by global id.
        labels : cupy.ndarray of int32
            The own vertices' labels, lowered in place.
        """
        import cupy

        from ..operators import neighbor_reduce

        mine = everyone[part.ids]
        g = part.graph
        for view in (g, g.reverse()) if part.directed else (g,):
            plan = view.cached("distributed.min_plan", lambda v=view: _plan(v, True))
            low = neighbor_reduce(view, None, mine, "min", dtype=np.int32, blocking=plan)
            cupy.minimum(labels, low[: part.size], out=labels)


def _offer_state(n):
    """SSSP's per-vertex offer state, kept with the part's graph and left as it starts after each
    step: the lowest offer's bits, whether a target was emitted, its predecessor."""
    import cupy

    return (
        cupy.full(n, _NO_OFFER, cupy.int64),
        cupy.zeros(n, cupy.int32),
        cupy.full(n, _NONE, cupy.int32),
    )


def _plan(graph, stageable):
    from ..operators import plan_sweep

    return plan_sweep(graph, "auto", stageable=stageable)


class _PageRank:
    def __init__(self, part, weighted):
        self.part, self.weighted = part, weighted
        key = f"distributed.pagerank_plan.{weighted}"
        # staged as the single GPU's PageRank stages it: unweighted only (a weighted value
        # reads each arc's weight, so its blocks go through the L2)
        self.plan = part.graph.cached(key, lambda: _plan(part.graph, not weighted))

    @staticmethod
    def contributions(rank, out_weight, contrib):
        import cupy

        has = out_weight > 0
        contrib[...] = cupy.where(has, rank / cupy.where(has, out_weight, 1), 0.0)
        return float(cupy.where(has, 0.0, rank).sum())

    def pull(self, everyone, base, alpha, rank, new_rank):
        import cupy

        from ..operators import neighbor_reduce

        if everyone.dtype != cupy.float32:
            raise TypeError(f"PageRank's contributions must be float32, not {everyone.dtype}")
        p = self.part
        combine = "*" if self.weighted else None
        x = everyone[p.ids]
        sums = neighbor_reduce(p.graph, None, x, "sum", combine=combine, blocking=self.plan)
        new_rank[...] = base + alpha * sums[: p.size]
        return float(cupy.abs(new_rank - rank).sum())
