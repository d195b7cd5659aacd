"""The placement planner: where each of a graph's arrays goes on the GPU, decided with NumPy alone
before anything is allocated (:mod:`gravel.placement`)."""

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .. import config
from ..errors import GraphTooLargeError, UnknownNameError
from .budget import format_bytes, host_free_bytes, resolve_budget

#: the placements ``G.to("cuda", placement=...)`` takes; "auto" resolves to "device" or "tiered"
PLACEMENTS = ("auto", "device", "host", "managed", "tiered")

#: device bytes set aside per vertex for an algorithm's state: the built-in algorithms' per-vertex
#: arrays (BFS: depth, parent, two queues, unvisited list) take up to about 24; 32 leaves scratch
STATE_BYTES_PER_VERTEX = 32


@dataclass(frozen=True, eq=False)
class Plan:
    """Where each of a graph's arrays goes on the GPU: what :func:`plan` returns.

    Attributes
    ----------
    placement : str
        What to build: "device", "host", "managed" or "tiered" ("auto" resolved).
    requested : str
        The placement asked for, "auto" included.
    limit : int or None
        Device bytes the plan kept within: the smaller of the budget and the card's free memory,
        where known; None when neither is.
    device : Mapping[str, int]
        Bytes per array in device memory: "offsets", "hot_offsets", "indices", "weights".
    host : Mapping[str, int]
        Bytes per array in pinned host memory mapped into the GPU: "indices", "weights".
    state : int
        Device bytes left free for an algorithm's per-vertex arrays,
        :data:`STATE_BYTES_PER_VERTEX` a vertex; the graph does not allocate them.
    hot : ndarray of bool, shape (n,), or None
        For "tiered": the vertices whose lists are copied to the device; None otherwise.
    nnz : int
        Arcs of the graph.
    hot_arcs : int
        Arcs whose neighbour ids sit in device memory (all for "device" and "managed", none for
        "host").
    bus_bytes : int
        Bytes a sweep over every arc reads over the bus: those of the lists left in host memory.

    Notes
    -----
    What the CUDA backend builds for each placement:

    - "device": offsets, indices and weights copied to device memory.
    - "managed": the three arrays in managed memory, advised read-mostly and prefetched to the
      device (EMOGI's UVM baseline); counted as device bytes, and planned only where they fit.
    - "host": offsets on the device; indices and weights stay in the Graph's own buffers, pinned
      in place (cudaHostRegister: no second host copy) and read by the kernels over the bus.
    - "tiered": "host", plus the lists of the vertices in `hot` copied to the device, in vertex
      order, into device arrays of `hot_arcs` indices (and weights), with ``hot_offsets`` (int64,
      n + 1: the running sum of ``out_degree * hot``, starting at 0) locating them. Vertex v's
      list is ``[hot_offsets[v], hot_offsets[v + 1])`` of the device arrays when that range is not
      empty, else ``[offsets[v], offsets[v + 1])`` of the host arrays. `hot` holds the vertices
      chosen by ``tier`` (:data:`TIERS`): by default those that spare the bus the most lines per
      device byte, else the longest lists first.
    """

    placement: str
    requested: str
    limit: int | None
    device: MappingProxyType
    host: MappingProxyType
    state: int
    hot: np.ndarray | None
    nnz: int
    hot_arcs: int
    bus_bytes: int

    @property
    def device_total(self):
        """Device bytes the graph's arrays take (the vertex state not counted)."""
        return sum(self.device.values())

    @property
    def host_total(self):
        """Pinned host bytes the graph's arrays take."""
        return sum(self.host.values())

    @property
    def hot_vertices(self):
        """How many vertices have their list copied to the device ("tiered"; else None)."""
        return None if self.hot is None else int(np.count_nonzero(self.hot))

    def summary(self):
        """The plan as a dict for JSON: bytes as ints, `hot` as its count.

        Returns
        -------
        dict
            Keys "placement", "requested", "limit", "device" and "host" (dicts of bytes per
            array), "state", "hot_vertices" (None unless "tiered"), "hot_arcs", "bus_bytes".

        Examples
        --------
        >>> import gravel
        >>> from gravel.placement import plan
        >>> summary = plan(gravel.generate.grid(2, 3), "host").summary()
        >>> summary["placement"], summary["device"]["offsets"], summary["bus_bytes"]
        ('host', 56, 56)
        """
        return {
            "placement": self.placement,
            "requested": self.requested,
            "limit": self.limit,
            "device": dict(self.device),
            "host": dict(self.host),
            "state": self.state,
            "hot_vertices": self.hot_vertices,
            "hot_arcs": self.hot_arcs,
            "bus_bytes": self.bus_bytes,
        }


#: how a tiered plan picks the lists for device memory: "lines", those that spare the bus the most
#: 128-byte lines per device byte (a short list costs a whole line for a few ids), or "degree",
#: the longest first
TIERS = ("lines", "degree")


def plan(G, placement="auto", budget=None, *, free_device=None, free_host=None, tier=None):
    """Decide where each of `G`'s arrays goes on the GPU, before anything is allocated.

    Parameters
    ----------
    G : Graph
        Read for ``n``, ``nnz``, ``offsets``, ``indices``, ``weights`` and ``out_degree``.
    placement : {"auto", "device", "host", "managed", "tiered"}, default "auto"
        "auto" is "device" where the CSR and the vertex state fit the device limit, else
        "tiered". :class:`Plan` says what each one builds.
    budget : int, str or None
        Device memory the graph and its vertex state may take (:func:`parse_bytes`); None: the
        configured budget (:func:`resolve_budget`), if any.
    free_device : int, optional
        The card's free memory in bytes (``Graph.to`` passes it); None: no limit but the budget.
    free_host : int, optional
        Host memory the pinned arrays may take; default: :func:`host_free_bytes` plus the size of
        G's indices and weights, which are pinned where they are.
    tier : {"lines", "degree"}, optional
        Which lists a tiered plan puts on the device (:data:`TIERS`); default
        ``gravel.config.tier``.

    Returns
    -------
    Plan

    Examples
    --------
    >>> import gravel
    >>> from gravel.placement import plan
    >>> G = gravel.generate.grid(3, 3)  # 9 vertices, 24 arcs: 80 bytes of offsets, 96 of ids
    >>> plan(G).placement
    'device'
    >>> p = plan(G, "tiered", budget=2 * 80 + 9 * 32 + 4 * 4)  # offsets twice, state, a list
    >>> p.placement, p.hot_vertices, p.hot_arcs, p.bus_bytes  # two lists of 2 ids spare 2 lines
    ('tiered', 2, 4, 80)

    Notes
    -----
    The device limit is the smaller of the budget and `free_device`. The offsets and the vertex
    state go on the device whatever the budget; the budget decides where the arcs go ("tiered"
    with a budget of 0 keeps every list in host memory). Lists over the bus are read in whole
    128-byte lines, so "lines" (the default) ranks each list by the lines it spares per byte it
    takes on the device and takes the best that fit, in O(n log n); "degree" takes the longest
    lists, in O(n) from a histogram of the degrees (docs/tuning.md, "Tiered lists").

    Raises
    ------
    UnknownNameError
        An unknown placement.
    InvalidArgumentError
        A budget that is not a size.
    GraphTooLargeError
        "device" or "managed" beyond the device limit (managed memory is never asked for beyond
        it: oversubscribed, it can hang a shared GPU); or a graph that fits nowhere: its offsets
        and vertex state beyond `free_device`, or its pinned arrays beyond `free_host`. The
        message gives the sizes.
    """
    if placement not in PLACEMENTS:
        raise UnknownNameError(
            f"unknown placement {placement!r} (expected {', '.join(PLACEMENTS)})"
        )
    tier = config.tier if tier is None else tier
    if tier not in TIERS:
        raise UnknownNameError(f"unknown tier {tier!r} (expected {', '.join(TIERS)})")
    budget = resolve_budget(budget)
    known = [(b, by) for b, by in ((budget, "budget"), (free_device, "free")) if b is not None]
    limit, limited_by = min(known) if known else (None, None)
    sizes = _Sizes(G)
    fits = limit is None or sizes.csr + sizes.state <= limit
    resolved = ("device" if fits else "tiered") if placement == "auto" else placement
    if resolved in ("device", "managed"):
        if not fits:
            hint = ": use 'tiered' or 'host'" if resolved == "managed" else ""
            raise GraphTooLargeError(
                f"placement {placement!r}: {sizes.need()} of device memory, but "
                f"{_limit_text(limit, limited_by)}{hint}"
            )
        return sizes.plan(resolved, placement, limit)
    _refuse_if_nowhere(sizes, placement, (limit, limited_by), free_device, free_host)
    if resolved == "host":
        return sizes.plan(resolved, placement, limit)
    room = None if limit is None else (limit - sizes.tier_base) // sizes.arc_bytes
    choose = _longest_lists if tier == "degree" else _line_saving_lists
    return sizes.plan(resolved, placement, limit, *choose(G.offsets, room))


def budget_for(G, arcs):
    """The device budget under which a tiered plan of G keeps `arcs` arcs on the device.

    Parameters
    ----------
    G : Graph
        Read for ``n``, ``offsets``, ``indices`` and ``weights``.
    arcs : int
        Arcs whose ids (and weights, where G has them) the budget holds.

    Returns
    -------
    int
        Bytes: those arcs, G's offsets, the tier's offsets and the vertex state.

    Examples
    --------
    >>> import gravel
    >>> from gravel.placement import budget_for, plan
    >>> G = gravel.generate.grid(3, 3)
    >>> plan(G, "tiered", budget_for(G, 4)).hot_arcs
    4
    """
    sizes = _Sizes(G)
    return sizes.tier_base + int(arcs) * sizes.arc_bytes


def _refuse_if_nowhere(sizes, placement, limit, free_device, free_host):
    """Raise GraphTooLargeError, naming the sizes, when the offsets and the vertex state exceed
    the free device memory or the pinned arcs the free host memory. `limit`: (bytes, which)."""
    on_device = sizes.offsets + sizes.state
    short_of_device = free_device is not None and on_device > free_device
    if short_of_device:
        problem = (
            f"its offsets and vertex state alone need {format_bytes(on_device)} of device "
            f"memory, and {_limit_text(free_device, 'free')}"
        )
    else:
        if free_host is None:
            free_host = host_free_bytes() + sizes.arcs
        if sizes.arcs <= free_host:
            return
        problem = (
            f"its arcs need {format_bytes(sizes.arcs)} of pinned host memory, and "
            f"{format_bytes(free_host)} are free on the host"
        )
    if placement != "auto":  # the graph may fit another placement
        head = f"placement {placement!r}: "
    elif short_of_device:
        head = f"the graph fits nowhere: {sizes.need()}; "
    else:
        head = (
            f"the graph fits nowhere: {sizes.need()} of device memory, but {_limit_text(*limit)}; "
        )
    raise GraphTooLargeError(head + problem)


def _limit_text(limit, limited_by):
    if limited_by == "budget":
        return f"the device-memory budget is {format_bytes(limit)}"
    return f"{format_bytes(limit)} are free on the device"


class _Sizes:
    """The byte counts of a graph's arrays that a plan adds up."""

    def __init__(self, G):
        self.n, self.nnz = G.n, G.nnz
        self.offsets = G.offsets.nbytes
        self.id_bytes = G.indices.itemsize
        self.weight_bytes = 0 if G.weights is None else G.weights.itemsize
        self.arc_bytes = self.id_bytes + self.weight_bytes
        self.arcs = self.nnz * self.arc_bytes
        self.csr = self.offsets + self.arcs
        self.state = self.n * STATE_BYTES_PER_VERTEX
        #: a tiered plan's device bytes before any list: offsets, the tier's offsets, the state
        self.tier_base = 2 * self.offsets + self.state

    def need(self):
        return (
            f"its CSR needs {format_bytes(self.csr)} and its vertex state "
            f"{format_bytes(self.state)}"
        )

    def plan(self, placement, requested, limit, hot=None, hot_arcs=0):
        if placement in ("device", "managed"):
            hot_arcs = self.nnz
        pinned = self.nnz if placement in ("host", "tiered") else 0
        device = {
            "offsets": self.offsets,
            "hot_offsets": self.offsets if placement == "tiered" and hot_arcs else 0,
            "indices": hot_arcs * self.id_bytes,
            "weights": hot_arcs * self.weight_bytes,
        }
        host = {"indices": pinned * self.id_bytes, "weights": pinned * self.weight_bytes}
        if hot is not None:
            hot.flags.writeable = False
        return Plan(
            placement=placement,
            requested=requested,
            limit=limit,
            device=MappingProxyType(device),
            host=MappingProxyType(host),
            state=self.state,
            hot=hot,
            nnz=self.nnz,
            hot_arcs=hot_arcs,
            bus_bytes=(self.nnz - hot_arcs) * self.arc_bytes,
        )


#: ids of 4 bytes in a 128-byte line, the unit of a read over the bus
LINE_IDS = 32


def _line_saving_lists(offsets, room):
    """The vertices whose lists go on the device, and their arcs: by the 128-byte lines each list
    spans (where it starts in the host array) per id, the most first (ties by vertex id), as long
    as they fit in `room` arcs (None: no limit).

    A list of d ids spans ceil(d / 32) lines, or one more where it starts late in its first line:
    its saving is one of two values per degree. So the few distinct (degree, extra line) pairs are
    ranked, not the vertices, and the vertices are then taken by rank in O(n)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    degree = np.diff(offsets)
    if room is None or room >= degree.sum():
        return degree > 0, int(degree.sum())
    hot = np.zeros(degree.shape, dtype=bool)
    if room <= 0:
        return hot, 0
    # key 2d + extra (in place where it can be: at 2**30 vertices an array takes 8 GiB); 0: no list
    key = offsets[:-1] % LINE_IDS
    key += degree + LINE_IDS - 1
    key //= LINE_IDS
    key -= (degree + LINE_IDS - 1) // LINE_IDS
    key += 2 * degree
    key[degree == 0] = 0
    present = np.flatnonzero(np.bincount(key))
    present = present[present > 0]
    d = present // 2
    saving = ((d + LINE_IDS - 1) // LINE_IDS + present % 2) / d
    order = np.argsort(-saving, kind="stable")
    ranks = np.zeros(present.size, np.int32)  # equal savings share a rank
    np.cumsum(saving[order][1:] != saving[order][:-1], out=ranks[1:])
    unlisted = ranks[-1] + 1
    rank_of_key = np.full(present[-1] + 1, unlisted, np.int32)
    rank_of_key[present[order]] = ranks
    rank = rank_of_key[key]
    del key
    whole = np.cumsum(np.bincount(rank, weights=degree, minlength=unlisted + 1)[:unlisted])
    fit = int(np.searchsorted(whole, room, side="right"))  # ranks taken whole
    hot = rank < fit
    if fit < unlisted:  # then the first lists of the next rank, in vertex order, while they fit
        at = np.flatnonzero(rank == fit)
        left = room - (int(whole[fit - 1]) if fit else 0)
        hot[at[np.cumsum(degree[at]) <= left]] = True
    return hot, int(degree[hot].sum())


def _longest_lists(offsets, room):
    """The vertices whose lists go on the device, and their arcs: the longest lists first (ties
    by vertex id) until the next one does not fit in `room` arcs (None: no limit)."""
    degree = np.diff(np.asarray(offsets, dtype=np.int64))
    if room is None:
        return degree > 0, int(degree.sum())
    hot = np.zeros(degree.shape, dtype=bool)
    if room <= 0 or not degree.size:
        return hot, 0
    arcs = np.bincount(degree) * np.arange(degree.max() + 1)  # arcs in the lists of each degree
    at_least = np.cumsum(arcs[::-1])[::-1]  # arcs in the lists of each degree and longer
    fit = np.flatnonzero(at_least[1:] <= room)
    d = int(fit[0]) + 1 if fit.size else arcs.size  # every list of degree >= d fits
    hot[degree >= d] = True
    taken = int(at_least[d]) if d < arcs.size else 0
    if d > 1:  # and the first lists of degree d - 1 that still fit
        ties = np.flatnonzero(degree == d - 1)[: (room - taken) // (d - 1)]
        hot[ties] = True
        taken += ties.size * (d - 1)
    return hot, taken
