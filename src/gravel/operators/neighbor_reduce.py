"""Neighbor reduce: a reduction over each vertex's neighbour list, pull (in-edges) or push
(atomics).

A pull over every vertex follows a :class:`~gravel.operators.sweep_plan.SweepPlan`: plain, blocked
through the L2 or staged in shared memory (the launches are in :mod:`gravel.operators.sweeps` and
:mod:`gravel.operators.staged_sweep`). A push is an advance whose functor folds each edge's value
into its destination atomically, load-balanced as advance is; blocked, it runs over the rows of the
blocked push layout, so that a block's atomics stay in its L2-sized slice.
"""

import numpy as np

from ..backends.cuda import runtime
from ..errors import GraphTooLargeError, UnknownNameError
from ..frontier import Frontier
from ..layouts.blocked import push_layout
from .advance import advance_lists
from .codegen import (
    CTYPES,
    NR_APPLY,
    NR_FIRST,
    NR_REDUCE,
    NR_SUMS,
    NR_VALUE,
    NRS_APPLY,
    NRS_VALUE,
    NRS_WHERE,
    Lists,
    dummy,
    functor,
    items,
    sums_op,
)
from .load_balance import choose_load_balance
from .staged_sweep import COMBINE, staged_sweep
from .steps import (
    PULL_STEPS_BLOCKS_PER_SM,
    PULL_STEPS_MAX,
    STEPS_BLOCK,
    check_steps,
    launch_pull_steps,
)
from .sweep_plan import plan_sweep
from .sweeps import (
    Reduction,
    blocked_sweep,
    plain_sweep,
    pull_items,
    streamed_sweep,
)

_REDUCE = {
    "sum": ("(a) + (b)", 0),
    "min": ("min((a), (b))", 1),
    "max": ("max((a), (b))", 2),
    "any": ("min((a), (b))", 1),  # folds as min; a pull's lanes stop at their first value
}
_IDENTITY = {
    "sum": lambda dt: 0,
    "min": lambda dt: np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max,
    "max": lambda dt: np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min,
}
_IDENTITY["any"] = _IDENTITY["min"]
#: the staged merge folds with shared-memory atomics, which these types have for sum, min and max
_STAGED_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32))
#: the parameter names under which a value array, the apply's sums (neighbor_reduce.cuh:
#: gravel_nr_sums_put), a push's output and a blocked push's row sources reach the kernels
VALUE_ARRAY, SUMS_ARRAY = "gravel_value_array", "gravel_sums_array"
_PUSH_OUT, _ROW_SOURCE = "gravel_push_out", "gravel_row_source"


def neighbor_reduce(
    graph,
    frontier,
    value,
    reduce="sum",
    *,
    dtype=np.float32,
    identity=None,
    combine=None,
    direction="pull",
    apply=None,
    sums=None,
    params=None,
    preamble="",
    blocking=None,
    arcs=None,
):
    """Reduce `value` over neighbour lists: pulled over each vertex's in-edges, or pushed along
    out-edges into their destinations.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU (``G.to("cuda")``).
    frontier : Frontier or None
        Pull: the vertices v whose in-edges (u -> v) are reduced, ``out[i]`` for item i; None:
        every vertex, a sweep run by its plan (`blocking`). Push: the vertices u whose out-edges
        (u -> v) fold into ``out[v]``; None: every vertex.
    value : str or array
        A CUDA C++ expression over ``v, u, edge, weight`` (the edge u -> v) and the `params`,
        converted to `dtype`; or a device array x of n values, which means ``x[u]``.
    reduce : {"sum", "min", "max", "any"} or str, default "sum"
        The reduction, or an expression over ``a`` and ``b`` (pull only; then `identity` is
        required). "any" gives one of the values unlike the identity where there is one (a
        value equal to it counts as none): a pull's short lists stop once each of their lanes
        has one (a bottom-up BFS step) and fold the lanes' by min; long lists and pushes fold
        every value by min.
    dtype : numpy dtype, default numpy.float32
        The type of the values and of the output.
    identity : scalar, optional
        The reduction's identity, where each result starts. Default: 0 for "sum", the dtype's
        largest value for "min" and "any", its lowest for "max".
    combine : {None, "+", "*"}, default None
        With a value array: ``x[u] + weight`` or ``x[u] * weight`` (x[u] taken as `dtype`; the
        arc's weight, 1 on an unweighted graph): a generalized SpMV's multiply, min-plus for
        shortest paths, that a staged sweep can take (the weights in its layout's order, 4
        bytes an arc, built on first use) where an expression cannot.
    direction : {"pull", "push"}, default "pull"
        Pull: a reduction per vertex over its in-edges. Push: every out-edge (u -> v) of a
        frontier item folds into ``out[v]`` with an atomic; `reduce` must be named. Blocked
        (over every vertex), the edges come grouped by destination range, and the value's
        ``edge`` is the position in that layout.
    apply : str, optional
        Pull only: a statement over ``v, i, acc`` and the params that replaces the write of
        ``out[i] = acc`` (then no array is returned): the vertex update fused into the
        reduction.
    sums : sequence of str, optional
        Pull only, with `apply`: expressions over the same names and the locals of `apply`,
        summed in float64 over every applied item in the same pass. Each CTA adds its share
        (shuffles, a barrier, an atomic), which on a plain sweep over a large graph, millions
        of short CTAs, costs more than a :func:`compute_sums` pass of its own (docs/tuning.md).
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name: a CuPy array is a pointer, a NumPy scalar a value.
    preamble : str, default ""
        CUDA C++ source put before the kernels (helper functions).
    blocking : None, "auto", "streamed", int or SweepPlan, optional
        A pull over every vertex: the plan of the sweep (see
        :func:`~gravel.operators.plan_sweep`). A width in vertices, or "auto", gives GraphCage's
        cache-blocked sweep, a reduction per (source block, vertex) row and a merge in shared
        memory, whose ``edge`` is the position in that layout. With a value array and a sum, min
        or max in float32, float64 or int32, widths up to :func:`gravel.layouts.shared_width`
        stage each block's slice of x in shared memory. Layouts are built on first use and kept
        with the graph; under "auto", a sweep whose staged layouts do not fit beside what the
        device holds runs plainly instead (an explicit width raises). A push whose plan is
        blocked or staged runs over the blocked push layout, so that a block's atomics stay in
        its L2-sized slice.
    arcs : int, optional
        Push only: the frontier's out-arcs where the caller knows them, sparing the push its
        read-back of their count.

    Returns
    -------
    cupy.ndarray or None
        Pull without `apply`: an array of `dtype`, one result per item (n over every vertex).
        Pull with `apply`: a float64 array of the `sums` (no sync), or None without them.
        Push: an array of `dtype` of length n, the identity where nothing folded.

    Raises
    ------
    GraphTooLargeError
        A staged sweep of an explicit width whose layout does not fit in the free device
        memory.
    UnknownNameError
        An unknown `combine` or `direction`; a parameter of a dtype with no C type.
    ValueError
        A value array not of shape (n,); `combine` with an expression; a reduce expression
        without `identity`; a push with `apply`, `sums` or a reduce expression; `sums` without
        `apply`; `blocking` with a pull's frontier, or a blocked push with a frontier; a
        `blocking` that :func:`~gravel.operators.plan_sweep` refuses; a parameter name that is
        not a C identifier.
    TypeError
        A parameter that is neither a CuPy array nor a NumPy scalar.

    See Also
    --------
    neighbor_reduce_steps : pull steps in one launch.
    plan_sweep : how a sweep over every vertex runs.

    Notes
    -----
    A pull over every vertex follows a :class:`~gravel.operators.sweep_plan.SweepPlan`: plain,
    blocked through the L2, staged in shared memory, or streamed from host memory for a graph
    whose lists live there.
    """
    import cupy

    dt = np.dtype(dtype)
    x = None
    if combine not in COMBINE:
        raise UnknownNameError(f"unknown combine {combine!r} (expected None, '+' or '*')")
    if not isinstance(value, str):
        x = cupy.asarray(value)
        if x.shape != (graph.n,):
            raise ValueError(
                f"a value array holds one value per vertex ({graph.n}), not shape {x.shape}"
            )
        # x[u] as dtype, then combined: the staged sweep's arithmetic, which stages x as dtype
        read = f"{VALUE_ARRAY}[u]" if combine is None else f"(({CTYPES[dt]}){VALUE_ARRAY}[u])"
        weighed = "" if combine is None else f" {combine} weight"
        params, value = {**(params or {}), VALUE_ARRAY: x}, f"{read}{weighed}"
    elif combine is not None:
        raise ValueError("combine joins a value array's x[u] to the weight: pass an array")
    if reduce in _REDUCE:
        expr, op = _REDUCE[reduce]
        identity = _IDENTITY[reduce](dt) if identity is None else identity
    elif identity is None:
        raise ValueError("a custom reduce expression needs an identity")
    else:
        expr, op = reduce, None
    macros = {NR_VALUE: f"(({CTYPES[dt]})({value}))", NR_REDUCE: f"({expr})"}
    if reduce == "any":
        macros[NR_FIRST] = "1"
    if direction == "push":
        if apply is not None or sums:
            raise ValueError("apply and sums are supported by pull neighbor_reduce")
        if op is None:
            raise ValueError("push neighbor_reduce supports sum, min, max and any (atomics)")
        red = Reduction(dt, identity, op, macros, params or {}, preamble)
        return _push(graph, frontier, red, blocking, arcs)
    if direction != "pull":
        raise UnknownNameError(f"unknown direction {direction!r} (expected pull or push)")
    if sums and apply is None:
        raise ValueError("sums are taken over what apply computes: pass apply too")
    totals = None
    if apply is not None:
        macros[NR_APPLY] = f"{{ {apply}; {sums_op(sums or ())} }}"
    if sums:
        totals = cupy.zeros(len(sums), dtype=cupy.float64)
        params, macros[NR_SUMS] = {**(params or {}), SUMS_ARRAY: totals}, str(len(sums))
    if blocking is not None and frontier is not None:
        raise ValueError("blocking applies to a sweep over every vertex (frontier=None)")
    red = Reduction(dt, identity, op, macros, params or {}, preamble)
    out = (
        cupy.empty(graph.n if frontier is None else len(frontier), dtype=dt)
        if apply is None
        else dummy(dt)
    )
    if frontier is not None:
        pull_items(
            Lists(*graph.csc()), red, out, red.functor(), ids=frontier.ids, count=len(frontier)
        )
        return out if apply is None else totals
    stageable = x is not None and op is not None and dt in _STAGED_TYPES
    plan = plan_sweep(graph, blocking, bytes_per_vertex=dt.itemsize, stageable=stageable)
    if plan.kind == "staged":
        try:
            staged_sweep(graph, plan.width, x.astype(dt, copy=False), red, out, combine)
        except GraphTooLargeError:  # raised by a layout's build, before any kernel ran
            if blocking != "auto":
                raise
            plain_sweep(graph, red, out)  # the plan saw the ids fit, not the weights beside them
    elif plan.kind == "blocked":
        blocked_sweep(graph, plan.width, red, out)
    elif plan.kind == "streamed":
        streamed_sweep(graph, red, out)
    else:
        plain_sweep(graph, red, out)
    return out if apply is None else totals


def _push(graph, frontier, red, blocking, arcs):
    """Push: an advance whose functor folds the edge's value into out[dst] atomically (the value's
    function takes the edge as neighbor_reduce names it: v the destination, u the source)."""
    import cupy

    out = cupy.full(graph.n, red.identity, dtype=red.dtype)
    plan = plan_sweep(graph, blocking) if blocking is not None else None
    if plan is not None and plan.kind in ("blocked", "staged"):  # a push over host lists reads them
        if frontier is not None:
            raise ValueError("a blocked push runs over every vertex (frontier=None)")
        layout = push_layout(graph, plan.width)
        lists = Lists(layout.offsets, layout.targets, layout.weights)
        rows = graph.cached(("push_rows", plan.width), lambda: Frontier.all(layout.rows))
        source, params = f"{_ROW_SOURCE}[src]", {**red.params, _ROW_SOURCE: layout.row_vertex}
        strategy = choose_load_balance(layout.rows, layout.targets.size)
    else:
        lists = Lists(graph.offsets, graph.indices, graph.weights)
        rows = (
            frontier
            if frontier is not None
            else graph.cached("every_vertex", lambda: Frontier.all(graph.n))
        )
        source, params = "src", red.params
        strategy = choose_load_balance(graph.n, graph.nnz)
    params = {**params, _PUSH_OUT: out}
    names = "".join(f", {name}" for name in params)
    value_fn = (
        f"__device__ __forceinline__ {red.ctype} gravel_push_value(int v, int u, long long edge, "
        f"float weight GRAVEL_USER_FN_PARAMS) {{ return {red.macros[NR_VALUE]}; }}\n"
    )
    fold = (
        f"(gravel_atomic_fold<{red.ctype}, {red.op}>(&{_PUSH_OUT}[dst], "
        f"gravel_push_value(dst, {source}, edge, weight{names})), false)"
    )
    advance_lists(
        lists,
        graph.n,
        rows,
        fold,
        params=params,
        output=None,
        strategy=strategy,
        visited=None,
        capacity=None,
        preamble=red.preamble + "\n" + value_fn,
        every_list=rows.every_vertex,
        total=arcs,
    )
    return out


def neighbor_reduce_steps(
    graph,
    candidates,
    value,
    apply,
    *,
    where=None,
    reduce="sum",
    dtype=np.float32,
    identity=None,
    params=None,
    max_steps=PULL_STEPS_MAX,
    preamble="",
):
    """Pull :func:`neighbor_reduce` steps repeated in one cooperative launch, with a grid-wide
    barrier in between: a run of levels that each gather from the one before costs one launch and
    one read-back.

    Each step, every vertex v of `candidates` for which `where` holds reduces `value` over its
    in-edges (u -> v) by `reduce`, then `apply` updates it. The expressions also see ``step``
    (0, 1, ... within this call) and the `params`, which they may read and write: a step sees
    the writes of the steps before it. Stops after a step in which no apply was true, or after
    `max_steps` steps.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-edges are read.
    candidates : Frontier or None
        The vertices that pull; None: every vertex.
    value : str
        A CUDA C++ expression over ``v, u, edge, weight, step`` and the `params`, converted to
        `dtype`.
    apply : str
        A CUDA C++ boolean expression over ``v, acc, step`` and the `params` that updates v and
        is true where it changed v.
    where : str, optional
        A CUDA C++ boolean expression over ``v, step`` and the `params`: a vertex for which it
        is false skips the step. None: true.
    reduce : {"sum", "min", "max"}, default "sum"
        The reduction.
    dtype : numpy dtype, default numpy.float32
        The type of the values.
    identity : scalar, optional
        Where each reduction starts; default as for :func:`neighbor_reduce`.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name.
    max_steps : int, default PULL_STEPS_MAX
        The most steps this launch runs, at least 1; a caller launches again past them.
    preamble : str, default ""
        CUDA C++ source put before the kernel.

    Returns
    -------
    list of int
        Each step's count of true applies (the last one 0 unless `max_steps` ran out); one
        read-back.

    Raises
    ------
    UnknownNameError
        An unknown `reduce`; a parameter of a dtype with no C type.
    ValueError
        `max_steps` below 1; a parameter name that is not a C identifier.
    TypeError
        A parameter that is neither a CuPy array nor a NumPy scalar.
    """
    if reduce not in ("sum", "min", "max"):
        raise UnknownNameError(f"unknown reduce {reduce!r} (expected sum, min or max)")
    max_steps = check_steps(max_steps)
    dt = np.dtype(dtype)
    identity = _IDENTITY[reduce](dt) if identity is None else identity
    macros = {
        NRS_VALUE: f"(({CTYPES[dt]})({value}))",
        NR_REDUCE: f"({_REDUCE[reduce][0]})",
        NRS_APPLY: f"({apply})",
        NRS_WHERE: f"({where or 'true'})",
    }
    source, extra = functor(params, macros, preamble)
    ids, count, all_ = items(candidates, graph.n)
    k = runtime.kernel(
        "neighbor_reduce/pull_steps.cu",
        "gravel_neighbor_reduce_pull_steps",
        templates=(CTYPES[dt], STEPS_BLOCK, PULL_STEPS_BLOCKS_PER_SM),
        prelude=source,
        cooperative=True,
    )
    run = (ids, np.int32(all_), np.int64(count), dt.type(identity))
    return launch_pull_steps(k, graph, run, max_steps, extra)
