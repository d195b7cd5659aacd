"""The reordering planner: which order pays, and applying it transparently (Balaji's thesis).

The orders themselves are pure functions of the degrees (:mod:`gravel.layouts.orders`). This module
takes them where the graph lives (on the device when it has a device copy: the permutation and the
relabelling then stay there; RCM is SciPy's, on the host), predicts with the packing factor whether
reordering pays, and relabels transparently: the Graph keeps the permutation, results stay in the
caller's ids. Sort by out-degree for pull code (its gathers read sources), by in-degree for push
code.

``reorder(G, "auto")`` reorders above the packing-factor threshold measured for where the graph
lives: a hub sort, or a degree sort where the graph's sweeps stage in shared memory (never a graph
whose sweeps stage though its vertex data fits half the L2: hubs first, they would not); on the GPU,
told how many sweeps the caller will run, it also weighs their predicted saving against the cost of
reordering, which there takes as long as tens of PageRank iterations. The constants' figures are in
docs/tuning.md."""

import numpy as np

from .arguments import is_real
from .errors import InvalidArgumentError, UnknownNameError
from .layouts import orders
from .transform import relabel

#: the thesis's threshold on its CPUs: below it, hub sorting cost up to 37 % end to end
PF_THRESHOLD = 4.0
#: on the GPU the gain starts at about the same packing factor
GPU_PF_THRESHOLD = 4.0
#: the share of a PageRank iteration a hub sort saves on the GPU, by packing factor (interpolated)
GPU_GAIN = ((4.0, 0.0), (5.2, 0.14), (7.7, 0.25))
#: a hub sort on the GPU costs, end to end, about this many PageRank iterations of the given graph
GPU_REORDER_SWEEPS = 35
#: the share a degree sort saves where the sweeps stage (it lets the gather combine more edges)
STAGED_GAIN = ((4.0, 0.0), (5.7, 0.23), (9.3, 0.33))
#: there a reordering costs about this many staged iterations as given
STAGED_REORDER_SWEEPS = 60

#: the orders of the degrees by name; "rcm" orders the structure
_BY_DEGREE = {
    "degree": orders.degree_sort,
    "hub_sort": orders.hub_sort,
    "hub_cluster": orders.hub_cluster,
    "dbg": orders.dbg,
}
#: every order by name (besides "auto")
METHODS = (*_BY_DEGREE, "rcm")


def degrees(G, by="out"):
    """The out- or in-degrees of `G` where it lives: on the device when it has a device copy."""
    if by not in ("out", "in"):
        raise UnknownNameError(f"by must be 'out' or 'in', not {by!r}")
    dg = G.device_graph
    if dg is None:
        return G.out_degree if by == "out" else G.in_degree
    offsets = dg.offsets if by == "out" else dg.csc()[0]
    return offsets[1:] - offsets[:-1]


def permutation(G, method, by="out"):
    """The permutation (``perm[v]``: the new id of v) of the order `method` (one of METHODS)."""
    if method not in METHODS:
        raise UnknownNameError(
            f"unknown reordering {method!r} (expected auto or one of {', '.join(METHODS)})"
        )
    if method == "rcm":
        A = G.to_scipy()
        return orders.rcm((A + A.T) if G.directed else A)
    return _BY_DEGREE[method](degrees(G, by))


def packing_factor(G, by="out", *, line_bytes=64, value_bytes=4):
    """The packing factor of `G`'s hubs (:func:`gravel.layouts.orders.packing_factor`), computed
    where `G` lives."""
    return orders.packing_factor(degrees(G, by), line_bytes=line_bytes, value_bytes=value_bytes)


def predicted_gain(pf, *, staged=False):
    """The share of a PageRank iteration that reordering should save on the GPU at packing factor
    `pf`: a hub sort's (GPU_GAIN), or a degree sort's where the sweeps stage (STAGED_GAIN)."""
    xs, ys = zip(*(STAGED_GAIN if staged else GPU_GAIN))
    return float(np.interp(pf, xs, ys))


def sweeps_stage(G):
    """Is `G` on the GPU, with its pull sweeps staged in shared memory (``blocking="auto"``)?"""
    from .operators.sweep_plan import plan_sweep

    dg = G.device_graph
    return dg is not None and plan_sweep(dg, "auto", stageable=True).kind == "staged"


def auto_method(G):
    """The order ``reorder(G, "auto")`` applies where it reorders: a degree sort where the sweeps
    stage (:func:`sweeps_stage`), else a hub sort, the thesis's."""
    return "degree" if sweeps_stage(G) else "hub_sort"


def worth_reordering(G, sweeps=None, *, by="out", threshold=None):
    """Should `G` be reordered (by :func:`auto_method`)? Its packing factor must exceed `threshold`
    (default: the thesis's 4 on the host, GPU_PF_THRESHOLD where the graph is on the GPU). On the
    GPU, given `sweeps` (the sweeps over the edges the caller will run, in PageRank iterations), the
    iterations they should save (:func:`predicted_gain` of each) must also pay for the reordering
    (GPU_REORDER_SWEEPS, or STAGED_REORDER_SWEEPS where the sweeps stage). A graph on the GPU
    whose sweeps stage though its vertex data fits the L2's share is never worth reordering: a
    hub-first order would make them plain (:data:`gravel.operators.sweep_plan.STAGE_FROM`)."""
    from .operators.sweep_plan import fits_l2_share

    count = is_real(sweeps)
    if sweeps is not None and not (count and sweeps >= 0):
        raise InvalidArgumentError(f"sweeps must be a count of sweeps, at least 0, not {sweeps!r}")
    on_gpu = G.device_graph is not None
    if threshold is None:
        threshold = GPU_PF_THRESHOLD if on_gpu else PF_THRESHOLD
    pf = packing_factor(G, by)
    if pf <= threshold:
        return False
    staged = on_gpu and sweeps_stage(G)
    if staged and fits_l2_share(G.device_graph):
        # staged under the L2's share, as given: a degree or hub sort of a graph past the
        # threshold puts its hubs first, where such a graph sweeps plainly and slower (kron:22:
        # 0.38 ms/it staged as given, 0.75 degree-sorted)
        return False
    if sweeps is None or not on_gpu:
        return True
    cost = STAGED_REORDER_SWEEPS if staged else GPU_REORDER_SWEEPS
    return sweeps * predicted_gain(pf, staged=staged) > cost


def reorder(G, method="auto", *, by="out", threshold=None, sweeps=None):
    """`G` relabelled by `method` (one of METHODS), transparently: algorithms on the result return
    the caller's ids. ``"auto"`` applies :func:`auto_method` where :func:`worth_reordering` says so
    (`threshold`, `sweeps`), else returns `G` itself."""
    if method == "auto":
        if not worth_reordering(G, sweeps, by=by, threshold=threshold):
            return G
        method = auto_method(G)
    return relabel(G, permutation(G, method, by), transparent=True)
