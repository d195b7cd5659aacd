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

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..errors import GraphTooLargeError, UnknownNameError
from .partition import PartRange

#: where a part's lists may live: "device", or "host" (pinned, read over the bus); "auto" takes
#: the device where the lists and the part's vertex state fit in its free memory
PLACEMENTS = ("auto", "device", "host")


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


def to_device(part, placement="auto"):
    """`part` on this process's GPU, as gravel's operators take it.

    Parameters
    ----------
    part : Part
        Its arrays on the host or on this GPU.
    placement : {"auto", "device", "host"}, default "auto"
        Where the lists go: device memory, or pinned host memory read over the bus. A part built
        on the GPU stays there unless "host" is asked for; "auto" takes the device for a part in
        host memory where its lists, offsets and vertex state
        (``gravel.placement.STATE_BYTES_PER_VERTEX`` a vertex) fit in the free device memory and
        the budget (``GRAVEL_DEVICE_MEMORY``), else the host.

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

    def arrays(offsets, ids, weights):
        def on(a, dtype):
            return None if a is None else m.ascontiguousarray(m.asarray(_to(m, a), dtype=dtype))

        return on(offsets, np.int64), on(ids, np.int32), on(weights, np.float32)

    out = arrays(part.out_offsets, part.out_targets, part.out_weights)
    inn = arrays(part.in_offsets, part.in_sources, part.in_weights) if part.directed else out
    lo, hi = part.lo, part.hi
    ghosts = _ghosts(m, lo, hi, out[1], *((inn[1],) if part.directed else ()))

    def lists(offsets, named, weights):
        offsets = m.concatenate([offsets, m.full(ghosts.size, int(offsets[-1]), m.int64)])
        named = _renumbered(m, named, lo, hi, ghosts)
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
    need = sum(a.nbytes for a in arrays if a is not None) + part.size * STATE_BYTES_PER_VERTEX
    limit, budget = free_bytes(), resolve_budget()
    limit = limit if budget is None else min(limit, budget)
    if need <= limit:
        return "device"
    if placement == "device":
        raise GraphTooLargeError(
            f"part {part.index}: placement 'device': its lists and vertex state need "
            f"{format_bytes(need)} of device memory, and {format_bytes(limit)} are free or "
            "budgeted: use 'host' or more GPUs"
        )
    return "host"


def _ghosts(m, lo, hi, *named):
    """The global ids outside ``lo .. hi - 1`` that the arrays `named` hold, sorted, once each."""
    outside = [a[(a < lo) | (a >= hi)] for a in named]
    return m.unique(m.concatenate(outside)).astype(m.int32)


def _renumbered(m, named, lo, hi, ghosts):
    """Global ids `named` in the part's own numbering: ``lo .. hi - 1`` from 0, then `ghosts`."""
    local = (named - lo).astype(m.int32)
    outside = (named < lo) | (named >= hi)
    local[outside] = (hi - lo) + m.searchsorted(ghosts, named[outside])
    return local
