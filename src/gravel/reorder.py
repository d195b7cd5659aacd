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
    """The out- or in-degrees of `G` where it lives: on the device when it has a device copy.

    Parameters
    ----------
    G : Graph
    by : {"out", "in"}, default "out"
        Which degrees.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        One degree per vertex: ``G.out_degree`` or ``G.in_degree`` (NumPy, int32) where `G` has
        no device copy, else the differences of the device graph's CSR or CSC offsets (CuPy,
        int64).

    Raises
    ------
    UnknownNameError
        `by` is neither ``"out"`` nor ``"in"``.

    Examples
    --------
    >>> import gravel
    >>> from gravel.reorder import degrees
    >>> degrees(gravel.generate.grid(2, 3)).tolist()
    [2, 3, 2, 2, 3, 2]
    """
    if by not in ("out", "in"):
        raise UnknownNameError(f"by must be 'out' or 'in', not {by!r}")
    dg = G.device_graph
    if dg is None:
        return G.out_degree if by == "out" else G.in_degree
    offsets = dg.offsets if by == "out" else dg.csc()[0]
    return offsets[1:] - offsets[:-1]


def permutation(G, method, by="out"):
    """The permutation (``perm[v]``: the new id of v) of the order `method`.

    Parameters
    ----------
    G : Graph
    method : {"degree", "hub_sort", "hub_cluster", "dbg", "rcm"}
        One of :data:`METHODS`: an order of the degrees (:mod:`gravel.layouts.orders`), or
        reverse Cuthill-McKee of the structure (SciPy's, on the host; a directed graph's
        adjacency is symmetrised first).
    by : {"out", "in"}, default "out"
        The degrees an order of the degrees sorts by (:func:`degrees`); ignored by ``"rcm"``.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        int32, one new id per vertex: a CuPy array where `G` has a device copy and `method`
        orders the degrees, else a NumPy one.

    Raises
    ------
    UnknownNameError
        `method` is not one of :data:`METHODS` (``"auto"`` included: see :func:`reorder`), or
        an order of the degrees is given a `by` that is neither ``"out"`` nor ``"in"``.

    Examples
    --------
    >>> import gravel
    >>> from gravel.reorder import permutation
    >>> permutation(gravel.generate.grid(2, 3), "degree").tolist()  # the two of degree 3 first
    [2, 0, 3, 4, 1, 5]
    """
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
    where `G` lives.

    Parameters
    ----------
    G : Graph
    by : {"out", "in"}, default "out"
        The degrees that make a vertex a hub (:func:`degrees`).
    line_bytes : int, default 64
        The bytes of a cache line.
    value_bytes : int, default 4
        The bytes of a vertex's value: a line holds ``line_bytes // value_bytes`` vertices.

    Returns
    -------
    float
        The cache lines holding at least one hub in the current order, over the fewest lines the
        hubs could fill; 1.0 where the hubs are already packed or there are none. Large values
        predict gains from reordering.

    Raises
    ------
    UnknownNameError
        `by` is neither ``"out"`` nor ``"in"``.

    Examples
    --------
    >>> import gravel
    >>> from gravel.reorder import packing_factor
    >>> packing_factor(gravel.generate.grid(2, 3))
    1.0
    """
    return orders.packing_factor(degrees(G, by), line_bytes=line_bytes, value_bytes=value_bytes)


def predicted_gain(pf, *, staged=False):
    """The share of a PageRank iteration that reordering should save on the GPU at packing factor
    `pf`: a hub sort's (GPU_GAIN), or a degree sort's where the sweeps stage (STAGED_GAIN).

    Parameters
    ----------
    pf : float
        The packing factor (:func:`packing_factor`).
    staged : bool, default False
        Whether the sweeps stage in shared memory (:func:`sweeps_stage`).

    Returns
    -------
    float
        The share, interpolated linearly between the measured points (docs/tuning.md,
        "Reordering"): 0.0 up to a packing factor of 4, the last point's share beyond it.

    Examples
    --------
    >>> from gravel.reorder import predicted_gain
    >>> predicted_gain(5.2), predicted_gain(2.0), predicted_gain(9.3, staged=True)
    (0.14, 0.0, 0.33)
    """
    xs, ys = zip(*(STAGED_GAIN if staged else GPU_GAIN))
    return float(np.interp(pf, xs, ys))


def sweeps_stage(G):
    """Whether `G` is on the GPU with its pull sweeps staged in shared memory.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    bool
        True where `G` has a device copy whose sweep plan under ``blocking="auto"``
        (:func:`gravel.operators.sweep_plan.plan_sweep`) stages; False for a graph on the host.
    """
    from .operators.sweep_plan import plan_sweep

    dg = G.device_graph
    return dg is not None and plan_sweep(dg, "auto", stageable=True).kind == "staged"


def auto_method(G):
    """The order ``reorder(G, "auto")`` applies where it reorders: a degree sort where the sweeps
    stage (:func:`sweeps_stage`), else a hub sort, the thesis's.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    str
        ``"degree"`` or ``"hub_sort"``.

    Examples
    --------
    >>> import gravel
    >>> from gravel.reorder import auto_method
    >>> auto_method(gravel.generate.grid(2, 3))  # on the host: the thesis's hub sort
    'hub_sort'
    """
    return "degree" if sweeps_stage(G) else "hub_sort"


def worth_reordering(G, sweeps=None, *, by="out", threshold=None):
    """Whether `G` should be reordered (by :func:`auto_method`).

    Its packing factor must exceed `threshold`. On the GPU, given `sweeps`, the iterations they
    should save (:func:`predicted_gain` of each) must also pay for the reordering
    (GPU_REORDER_SWEEPS, or STAGED_REORDER_SWEEPS where the sweeps stage). A graph on the GPU
    whose sweeps stage though its vertex data fits the L2's share is never worth reordering: a
    hub-first order would make them plain (:data:`gravel.operators.sweep_plan.STAGE_FROM`).

    Parameters
    ----------
    G : Graph
    sweeps : int or float, optional
        The sweeps over the edges the caller will run, in PageRank iterations (at least 0).
        Weighed only where `G` is on the GPU; None: the packing factor alone decides.
    by : {"out", "in"}, default "out"
        The degrees of the packing factor (:func:`packing_factor`).
    threshold : float, optional
        The packing factor to exceed; default the thesis's 4 (PF_THRESHOLD) on the host,
        GPU_PF_THRESHOLD where the graph is on the GPU.

    Returns
    -------
    bool

    Raises
    ------
    InvalidArgumentError
        `sweeps` is given but is not a real number at least 0.
    UnknownNameError
        `by` is neither ``"out"`` nor ``"in"``.

    Examples
    --------
    >>> import gravel
    >>> from gravel.reorder import worth_reordering
    >>> worth_reordering(gravel.generate.grid(2, 3))  # packing factor 1: nothing to pack
    False
    """
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
    """`G` relabelled by `method`, transparently: algorithms on the result return the caller's
    ids.

    Parameters
    ----------
    G : Graph
    method : {"auto", "degree", "hub_sort", "hub_cluster", "dbg", "rcm"}, default "auto"
        An order of :data:`METHODS` (:func:`permutation`), or ``"auto"``: :func:`auto_method`'s
        order where :func:`worth_reordering` says so, else none.
    by : {"out", "in"}, default "out"
        The degrees the orders of the degrees, and "auto"'s packing factor, read: out-degrees for
        pull code (its gathers read sources), in-degrees for push code.
    threshold : float, optional
        For ``"auto"``: the packing factor to exceed (:func:`worth_reordering`).
    sweeps : int or float, optional
        For ``"auto"`` on the GPU: the sweeps the caller will run, in PageRank iterations
        (:func:`worth_reordering`).

    Returns
    -------
    Graph
        The relabelled graph (on the device where `G` has a device copy), keeping the
        permutation in its ``order``; or `G` itself where ``"auto"`` does not reorder.

    Raises
    ------
    UnknownNameError
        `method` is unknown, or `by` is neither ``"out"`` nor ``"in"`` (where it is read: not
        by ``"rcm"``).
    InvalidArgumentError
        `sweeps` is given but is not a real number at least 0 (with ``"auto"``).

    Examples
    --------
    >>> import gravel
    >>> from gravel.reorder import reorder
    >>> G = gravel.generate.grid(2, 3)
    >>> H = reorder(G, "degree")
    >>> H.order.tolist()  # the caller's vertex v is stored as H.order[v]
    [2, 0, 3, 4, 1, 5]
    >>> gravel.bfs(H, 0, device="cpu").depth.tolist()  # in the caller's ids
    [0, 1, 2, 1, 2, 3]
    >>> reorder(G) is G  # "auto": not worth it
    True
    """
    if method == "auto":
        if not worth_reordering(G, sweeps, by=by, threshold=threshold):
            return G
        method = auto_method(G)
    return relabel(G, permutation(G, method, by), transparent=True)
