"""Where a graph's arrays live on the GPU, and the device-memory budget.

EMOGI (DESIGN.md, "EMOGI") keeps the offsets and the vertex state in device memory and lets kernels
read the neighbour lists straight from pinned host memory mapped into the GPU's address space.
gravel's "tiered" placement goes past the paper: the longest lists, as many as the budget holds, are
copied to the device, and only the rest are read over the bus.

:func:`plan` decides, with NumPy alone and before anything is allocated, how many bytes of each
array go where; the CUDA backend builds the device graph from the :class:`Plan` it returns. The
budget (:func:`resolve_budget`) emulates a smaller card, as the paper throttled its GPU, so that
every placement can be measured on graphs that would fit.
"""

import math
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType

import numpy as np

from . import config
from .arguments import is_integer
from .errors import GraphTooLargeError, InvalidArgumentError, UnknownNameError

#: the placements ``G.to("cuda", placement=...)`` takes; "auto" resolves to "device" or "tiered"
PLACEMENTS = ("auto", "device", "host", "managed", "tiered")

#: device bytes set aside per vertex for an algorithm's state: the built-in algorithms' per-vertex
#: arrays (BFS: depth, parent, two queues, unvisited list) take up to about 24; 32 leaves scratch
STATE_BYTES_PER_VERTEX = 32

#: the environment variable that sets the budget where ``gravel.config.device_memory`` is None
BUDGET_ENV = "GRAVEL_DEVICE_MEMORY"

_UNITS = {"b": 1} | {
    p + s: base**i for i, p in enumerate("kmgt", start=1) for s, base in (("b", 1000), ("ib", 1024))
}
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+) *([a-z]*)", re.IGNORECASE | re.ASCII)
_SIZE_HELP = (
    "give bytes (8000000000) or a number and a unit: B, KB, MB, GB, TB (powers of 1000) or KiB, "
    "MiB, GiB, TiB (powers of 1024), e.g. 8GB or 1.5GiB"
)


def parse_bytes(size):
    """The number of bytes a size names.

    Parameters
    ----------
    size : int or str
        A whole number of bytes, or a string: digits, optionally with a decimal point, then a
        unit, case-insensitive: ``B``; ``KB``, ``MB``, ``GB``, ``TB`` (powers of 1000); ``KiB``,
        ``MiB``, ``GiB``, ``TiB`` (powers of 1024). Without a unit the string is a whole number of
        bytes.

    Returns
    -------
    int
        Bytes, rounded down where a decimal size names a fraction of one.

    Raises
    ------
    InvalidArgumentError
        (a ValueError) naming `size`, when it is none of these: negative, a unit without the
        ``B`` ("8G": powers of 1000 or 1024?), a fraction of a byte ("1.5B").

    Examples
    --------
    >>> from gravel.placement import parse_bytes
    >>> parse_bytes("8GB"), parse_bytes("1.5 GiB"), parse_bytes("512kib"), parse_bytes(4096)
    (8000000000, 1610612736, 524288, 4096)
    """
    if is_integer(size) and size >= 0:
        return int(size)
    if isinstance(size, str) and (m := _SIZE.fullmatch(size.strip())):
        number, unit = m.group(1), m.group(2).lower()
        whole = "." not in number
        if unit in _UNITS and (whole or unit != "b"):
            return int(Decimal(number) * _UNITS[unit])
        if not unit and whole:
            return int(number)
    raise InvalidArgumentError(f"{size!r} is not a size: {_SIZE_HELP}")


def format_bytes(nbytes):
    """`nbytes` for people: ``"512 B"``, ``"1.50 KiB"``, ``"12.0 GiB"`` (three significant
    digits, powers of 1024)."""
    if nbytes < 1024:
        return f"{nbytes} B"
    i = min(int(math.log(nbytes, 1024)), 4)
    value = nbytes / 1024**i
    digits = 2 if value < 10 else 1 if value < 100 else 0
    return f"{value:.{digits}f} {'KMGT'[i - 1]}iB"


def resolve_budget(budget=None):
    """The device-memory budget in bytes, or None for none.

    The first that is set: `budget`, ``gravel.config.device_memory``, the environment variable
    ``GRAVEL_DEVICE_MEMORY`` (empty counts as unset). None means the card's free memory is the
    only limit. A value that is not a size (:func:`parse_bytes`) is an
    :class:`~gravel.errors.InvalidArgumentError` naming where it came from.
    """
    sources = (
        (budget, "budget"),
        (config.device_memory, "gravel.config.device_memory"),
        (os.environ.get(BUDGET_ENV) or None, BUDGET_ENV),
    )
    for value, where in sources:
        if value is not None:
            try:
                return parse_bytes(value)
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"{where}: {e}") from None
    return None


def host_free_bytes():
    """Host memory available to new data, in bytes: psutil's figure where psutil is installed,
    else ``MemAvailable`` from /proc/meminfo, else the free pages ``os.sysconf`` counts."""
    try:
        import psutil
    except ImportError:
        pass
    else:
        return int(psutil.virtual_memory().available)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


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
        """The plan as a dict for JSON: bytes as ints, `hot` as its count."""
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
    """The device budget under which a tiered plan of G keeps `arcs` arcs (ids, and weights where
    G has them) on the device: its offsets, the tier's offsets and the vertex state besides.

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


def render(plan):
    """`plan` as a short table for people: the bytes of each array on the device and in pinned
    host memory, then the vertex state set aside and what a sweep reads over the bus.

    Examples
    --------
    >>> import gravel
    >>> from gravel.placement import plan, render
    >>> print(render(plan(gravel.generate.grid(3, 3), "host")))
    placement host (asked: host), no device limit known
    array               device   host (pinned)
    offsets               80 B             0 B
    indices                0 B            96 B
    total                 80 B            96 B
    vertex state: 288 B set aside on the device
    lists on the device: none; a sweep reads 96 B over the bus
    """
    limit = "no device limit known" if plan.limit is None else "device limit "
    if plan.limit is not None:
        limit += format_bytes(plan.limit)
    rows = [(name, plan.device[name], plan.host.get(name, 0)) for name in plan.device]
    rows = [r for r in rows if r[0] == "offsets" or r[1] or r[2]]
    rows.append(("total", plan.device_total, plan.host_total))
    lines = [
        f"placement {plan.placement} (asked: {plan.requested}), {limit}",
        f"{'array':<12}{'device':>14}{'host (pinned)':>16}",
    ]
    lines += [f"{a:<12}{format_bytes(d):>14}{format_bytes(h):>16}" for a, d, h in rows]
    lines.append(f"vertex state: {format_bytes(plan.state)} set aside on the device")
    if plan.hot_arcs == plan.nnz:
        lists = "all"
    elif plan.hot_arcs == 0:
        lists = "none"
    else:
        lists = (
            f"{plan.hot_vertices:,} vertices', {plan.hot_arcs:,} of {plan.nnz:,} arcs "
            f"({plan.hot_arcs / plan.nnz:.0%})"
        )
    lines.append(
        f"lists on the device: {lists}; a sweep reads {format_bytes(plan.bus_bytes)} over the bus"
    )
    return "\n".join(lines)
