"""Where a graph's arrays live on the GPU, and the device-memory budget: the map of gravel's
graphs larger than the GPU (EMOGI), whose pieces live in several layers and point back here.

EMOGI keeps the offsets and the vertex state in device memory and lets kernels read the neighbour
lists straight from pinned host memory mapped into the GPU's address space. gravel's "tiered"
placement goes past the paper: the lists that spare the bus the most, as many as the budget holds,
are copied to the device, and only the rest are read over the bus. README.md, "Graphs larger than
the GPU", says it for users; docs/tuning.md ("Tiered lists", "Reads over the bus", "Streamed
sweeps") gives the measurements behind each choice.

Placements (``G.to("cuda", placement=...)``, :data:`PLACEMENTS`; :class:`Plan` says what each
builds):

- "device": the CSR in device memory.
- "host": the offsets on the device; the ids and weights stay in the Graph's own buffers, pinned
  in place and read by the kernels over the bus (a directed graph's in-lists too, transposed on the
  host: never in device memory).
- "tiered": "host", plus a device copy of the hot vertices' lists, which the line-aligned
  advances (below) read there instead of over the bus.
- "managed": EMOGI's UVM baseline, the CSR in managed memory advised read-mostly and prefetched;
  planned only where it fits (oversubscribed, it can hang a shared GPU).
- "auto": "device" where the CSR and :data:`STATE_BYTES_PER_VERTEX` a vertex fit the device
  limit (the smaller of the budget and the card's free memory), else "tiered".

Where each piece lives:

- Planning, with NumPy alone, before anything is allocated: :func:`plan` and the tier's choice of
  lists (:mod:`.planner`: "lines", by default, ranks lists by the 128-byte lines they spare the bus
  per device byte, :data:`LINE_IDS` ids a line; "degree" takes the longest), the budget
  (:mod:`.budget`), the table ``gravel info`` prints (:mod:`.text`).
- Building: ``Graph.to`` plans, then :class:`gravel.backends.cuda.graph.DeviceGraph` builds the
  plan: :mod:`gravel.backends.cuda.pinned` pins host arrays in place (``mapped``: a failed pin is a
  PinnedMemoryError naming the locked-memory limit) or copies them to managed memory
  (``managed``); :mod:`gravel.backends.cuda.tiers` gathers the hot lists (``DeviceGraph.hot``).
  Views of a tiered graph (``reverse``, ``with_weights``) read every list from the host ("host").
- Reading over the bus: the bus moves whole 128-byte lines, however few of a line's ids a warp
  uses. So :func:`gravel.operators.choose_load_balance` gives an advance over a "host" or "tiered"
  graph ``LoadBalance.LINE_BALANCED`` (kernels/advance/line_balanced.cu): lists cut into whole
  lines, ``LINES_PER_WARP`` consecutive lines to a warp, every load issued before any is used, so
  that a hub's list spreads over many warps, short lists share one and each warp keeps many
  requests in flight. EMOGI's own ``WARP_ALIGNED`` (a warp per list, whole lines) and the naive
  ``THREAD_MAPPED`` stay as baselines (:mod:`gravel.operators.load_balance`). BFS and SSSP step
  top-down there, each frontier sorted so that neighbouring lists share lines and pages. Other
  kernels read the mapped lists as they read device memory, a request per load.
- Streamed sweeps: a pull over every vertex of a "host" or "tiered" graph (neighbor_reduce,
  PageRank) is planned "streamed" (:func:`gravel.operators.plan_sweep`, ``AUTO_STREAM``; never
  blocked or staged): :mod:`gravel.operators.stream` copies the in-lists to the device in chunks
  of whole lists (``STREAM_CHUNK_BYTES`` of ids at least) on a copy stream, into two buffers by
  turns, so that the copy engines bring the next chunk while the kernels
  (``gravel.operators.sweeps.streamed_sweep``) reduce this one.
- The bus ceilings: :func:`gravel.bench.bus_ceilings` times mapped reads
  (kernels/bus/read.cu) and the copy engines; benchmarks/emogi.py sets each placement against them.

Settings (:mod:`gravel.config`): ``placement`` (what ``G.to`` takes by default), ``device_memory``
(the budget, also ``GRAVEL_DEVICE_MEMORY`` and ``--device-memory``: a smaller card emulated, as the
paper throttled its GPU, so that every placement can be measured on graphs that would fit),
``tier`` ("lines" or "degree") and ``bus_load_balance`` (the advance's strategy over the bus).
"""

from .budget import BUDGET_ENV, format_bytes, host_free_bytes, parse_bytes, resolve_budget
from .planner import (
    LINE_IDS,
    PLACEMENTS,
    STATE_BYTES_PER_VERTEX,
    TIERS,
    Plan,
    budget_for,
    plan,
)
from .text import render

__all__ = [
    "BUDGET_ENV",
    "LINE_IDS",
    "PLACEMENTS",
    "STATE_BYTES_PER_VERTEX",
    "TIERS",
    "Plan",
    "budget_for",
    "format_bytes",
    "host_free_bytes",
    "parse_bytes",
    "plan",
    "render",
    "resolve_budget",
]
