"""Gunrock's operators on the GPU: advance, filter_frontier (Gunrock's filter), compute,
neighbor_reduce, intersect.

Each operator takes a DeviceGraph (``G.to("cuda")``) and frontiers, plus a user functor: a CUDA C++
expression over named variables, as CuPy's ElementwiseKernel takes them, spliced into the operator's
kernel. Extra device arrays and scalars are passed by name in ``params`` and appear under those
names in the expression; ``preamble`` may define helper functions. Example (a BFS step)::

    advance(dg, front, "atomicCAS(&depth[dst], -1, level) == -1",
            params={"depth": depth, "level": np.int32(d)})

User names must not repeat the functor's own names (src, dst, edge, weight, step; v, i; u) nor start
with ``gravel_``. One module per operator family, mirroring kernels/: advance (push, pull) and
load_balance (the push's strategies and their choice), steps (multi-step advances and replay),
buckets (delta-stepping's buckets kept on the device),
compute (filter_frontier, split, compute, sums), neighbor_reduce (pull, push; a pull over every
vertex is a sweep, planned by sweep_plan and launched by sweeps, or staged_sweep for the staged one)
and intersect (pairs, or summed along every arc).

``filter``, the operator's old name (it shadowed the builtin), still imports, with a
DeprecationWarning.
"""

import warnings

from .advance import advance, advance_pull
from .buckets import Buckets, advance_buckets
from .compute import compute, compute_sums, filter_frontier, split
from .intersect import intersect, intersect_arcs
from .load_balance import LoadBalance, choose_load_balance
from .neighbor_reduce import neighbor_reduce, neighbor_reduce_steps
from .steps import (
    THIN_BLOCKS_PER_SM,
    advance_pull_steps,
    advance_replay,
    advance_steps,
    steps_width,
    thin_frontier_limit,
)
from .sweep_plan import SweepPlan, plan_sweep

__all__ = [
    "Buckets",
    "LoadBalance",
    "SweepPlan",
    "THIN_BLOCKS_PER_SM",
    "advance",
    "advance_buckets",
    "advance_pull",
    "advance_pull_steps",
    "advance_replay",
    "advance_steps",
    "choose_load_balance",
    "compute",
    "compute_sums",
    "filter_frontier",
    "intersect",
    "intersect_arcs",
    "neighbor_reduce",
    "neighbor_reduce_steps",
    "plan_sweep",
    "split",
    "steps_width",
    "thin_frontier_limit",
]


def __getattr__(name):
    """The deprecated ``filter``: :func:`filter_frontier`, with a DeprecationWarning."""
    if name == "filter":
        warnings.warn(
            "gravel.operators.filter is deprecated: use gravel.operators.filter_frontier",
            DeprecationWarning,
            stacklevel=2,
        )
        return filter_frontier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
