"""Where a graph's arrays live on the GPU, and the device-memory budget.

EMOGI (DESIGN.md, "EMOGI") keeps the offsets and the vertex state in device memory and lets kernels
read the neighbour lists straight from pinned host memory mapped into the GPU's address space.
gravel's "tiered" placement goes past the paper: the longest lists, as many as the budget holds, are
copied to the device, and only the rest are read over the bus.

:func:`plan` decides, with NumPy alone and before anything is allocated, how many bytes of each
array go where; the CUDA backend builds the device graph from the :class:`Plan` it returns. The
budget (:func:`resolve_budget`) emulates a smaller card, as the paper throttled its GPU, so that
every placement can be measured on graphs that would fit.

Modules: :mod:`.budget` (sizes in bytes, the budget, the host's free memory), :mod:`.planner`
(:func:`plan`, :class:`Plan`, the tier's choice of lists) and :mod:`.text` (:func:`render`).
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
