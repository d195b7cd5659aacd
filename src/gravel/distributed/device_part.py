"""A part of a 1-D partition on a GPU, as gravel's operators take a graph (its programs' steps,
operator calls on it, are :mod:`.device_steps`).

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

from dataclasses import dataclass, replace

import numpy as np

from ..arrays import host, xp
from ..errors import GraphTooLargeError, UnknownNameError
from .partition import PartRange

#: where a part's lists may live: "device", or "host" (pinned, read over the bus); "auto" takes
#: the device where the lists, the vertex state and the loading's temporaries fit in its free memory
PLACEMENTS = ("auto", "device", "host")

#: ids renumbered at a time when a part is loaded: bounds the temporaries of each step
RENUMBER_IDS = 1 << 26


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

    def local_ids(self, at):
        """Global ids in the part's numbering (its own vertices from 0, then its ghosts).

        Parameters
        ----------
        at : array of int
            Global vertex ids, on the device of the part's arrays.

        Returns
        -------
        array of int64
            Each id's vertex in ``graph``, -1 where the part holds none.
        """
        m = xp(at)
        size, ghosts = self.size, self.ids[self.size :]
        local = m.full(at.size, -1, m.int64)
        own = (at >= self.lo) & (at < self.hi)
        local[own] = at[own] - self.lo
        if ghosts.size:
            j = m.minimum(m.searchsorted(ghosts, at), ghosts.size - 1)
            hit = ~own & (ghosts[j] == at)
            local[hit] = size + j[hit]
        return local

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

    if placement == "device":
        return made(part, cupy, consume=consume)

    def pinned_lists(offsets, named, weights):  # read over the bus; the offsets on the device
        return cupy.asarray(offsets), pinned.mapped(named), pinned.mapped(weights)

    made_part = made(part, np, consume=consume, place=pinned_lists)
    made_part.graph.placement = "host"
    return replace(made_part, ids=cupy.asarray(made_part.ids))


def made(part, m, *, consume=False, place=None):
    """`part` renumbered into its own ids as a :class:`DevicePart` whose arrays are of module `m`
    (what :func:`to_device` builds; NumPy stands in for CuPy in tests, as
    :class:`~gravel.backends.cuda.graph.DeviceGraph` lets it).

    Parameters
    ----------
    part : Part
    m : module
        NumPy or CuPy: where the renumbering runs and the arrays live.
    consume : bool, default False
        As :func:`to_device` takes it.
    place : callable, optional
        ``place(offsets, ids, weights)`` gives each set of lists as the graph keeps them
        (pinned and mapped, say); default: as they are.

    Returns
    -------
    DevicePart
        Its graph's placement "device" (:func:`to_device` says otherwise where it places the
        lists elsewhere), its `ids` of module `m`.
    """
    from ..backends.cuda.graph import DeviceGraph

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
        return (offsets, named, weights) if place is None else place(offsets, named, weights)

    csr = lists(*out)
    csc = lists(*inn) if part.directed else csr
    graph = DeviceGraph.from_arrays(*csr, directed=part.directed, csc=csc)
    ids = m.concatenate([m.arange(lo, hi, dtype=m.int32), ghosts])
    return DevicePart(part.index, part.bounds, part.n, part.directed, graph, ids)


def _to(m, a):
    return host(a) if m is np else a


def _placement(part, placement):
    """The placement of `part`'s lists that `placement` asks for (:func:`to_device`)."""
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
