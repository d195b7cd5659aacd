"""Advance: visit the out-edges of a frontier (push) or the in-edges of candidates (pull).

Load balancing is a strategy of the push advance (:class:`~gravel.operators.LoadBalance`, one kernel
file each under kernels/advance/); ``"auto"`` picks one from the graph
(:func:`~gravel.operators.choose_load_balance`); both are in :mod:`gravel.operators.load_balance`.
"""

import numpy as np

from ..backends.cuda import runtime
from ..frontier import Frontier
from .codegen import (
    ADVANCE_OP,
    BLOCK,
    CTYPES,
    Lists,
    PendingCount,
    counter,
    dummy,
    functor,
    pull_functor,
    read_count,
)
from .load_balance import (
    LoadBalance,
    Output,
    _output,
    choose_load_balance,
    degree_scan,
    line_scan,
)

#: edges per merge-path tile (4 per thread)
MERGE_PATH_TILE = 4 * BLOCK
#: consecutive 128-byte lines a warp loads at once under LINE_BALANCED (docs/tuning.md)
LINES_PER_WARP = 8


def advance(
    graph,
    frontier,
    op="true",
    *,
    params=None,
    output="vertex",
    strategy="auto",
    visited=None,
    capacity=None,
    preamble="",
    lines=None,
    arcs=None,
    count_arcs=False,
):
    """Visit every out-edge (src -> dst) of the frontier's vertices.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU (``G.to("cuda")``).
    frontier : Frontier
        The vertices whose out-edges are visited (a dense one is made sparse).
    op : str, default "true"
        A CUDA C++ boolean expression over ``src, dst`` (int), ``edge`` (the arc's id, long
        long), ``weight`` (float; 1 unweighted), ``step`` (0 here) and the `params`. Where it
        is true, ``dst`` (``output="vertex"``) or ``edge`` (``"edge"``) joins the output.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name: a CuPy array is a pointer, a NumPy scalar a value.
    output : {"vertex", "edge", None}, default "vertex"
        What the output frontier holds; None returns None (a pure visit, with no host sync but
        merge path's, which `arcs` spares).
    strategy : LoadBalance or str, default "auto"
        The load balance, or "auto" (:func:`choose_load_balance` of the graph's sizes and
        placement).
    visited : cupy.ndarray of uint32, optional
        A bitmap of vertices; with MERGE_PATH_CULL each destination whose bit this advance sets
        is emitted once.
    capacity : int, optional
        A bound on the output's size when the caller knows one (n, for a functor that claims
        each vertex once): the frontier's degrees then need no scan and no sync, except under
        merge-path load balancing. Default: the frontier's out-arcs.
    preamble : str, default ""
        CUDA C++ source put before the kernel (helper functions).
    lines : cupy.ndarray of uint64, shape (1,), optional
        A counter to which the WARP_ALIGNED and LINE_BALANCED strategies add the 128-byte lines
        of ids they read from ``graph.indices`` (over the bus, for a graph in host memory).
    arcs : int, optional
        The frontier's out-arcs where the caller knows them: spares merge path's read-back of
        their count.
    count_arcs : bool, default False
        With ``output="vertex"``: the output's own out-arcs are summed on the device and read
        back with its length, as its ``arcs`` (what the next step's `arcs` and a direction test
        need).

    Returns
    -------
    Frontier or None
        A sparse frontier of `graph.n` ids: destinations (int32) or arc ids (int64), in no
        particular order and repeated where several arcs emit one (unless `op` or
        MERGE_PATH_CULL lets each through once). Its length is read back (a sync). None for
        ``output=None``.

    Raises
    ------
    UnknownNameError
        An unknown `strategy` or `output`; a parameter of a dtype with no C type.
    ValueError
        `count_arcs` with an output other than vertices; MERGE_PATH_CULL without `visited`;
        a parameter name that is not a C identifier.
    TypeError
        A parameter that is neither a CuPy array nor a NumPy scalar.
    RuntimeError
        More output than `capacity` (the items past it are lost).

    See Also
    --------
    advance_pull : the pull over in-edges.
    advance_steps : many advance steps in one launch.

    Examples
    --------
    A BFS step (GPU)::

        advance(dg, front, "atomicCAS(&depth[dst], -1, level) == -1",
                params={"depth": depth, "level": np.int32(d)})
    """
    lists = Lists(graph.offsets, graph.indices, graph.weights)
    placement = getattr(graph, "placement", "device")
    strategy = LoadBalance.parse(strategy) or choose_load_balance(graph.n, graph.nnz, placement)
    return advance_lists(
        lists,
        graph.n,
        frontier,
        op,
        params=params,
        output=output,
        strategy=strategy,
        visited=visited,
        capacity=capacity,
        preamble=preamble,
        every_list=frontier.every_vertex and frontier.n == graph.n,
        tier=getattr(graph, "hot", None),
        lines=lines,
        total=arcs,
        count_arcs=count_arcs,
    )


def advance_lists(
    lists,
    n,
    frontier,
    op,
    *,
    params,
    output,
    strategy,
    visited,
    capacity,
    preamble,
    every_list=False,
    tier=None,
    lines=None,
    total=None,
    count_arcs=False,
):
    """:func:`advance` over the lists `lists`, of which the frontier holds items.

    Parameters
    ----------
    lists : Lists
        The neighbour lists (a CSR on the device).
    n : int
        The size of the output frontier's id space.
    frontier : Frontier
        The items: indexes of `lists`.
    op, params, output, visited, capacity, preamble, lines, count_arcs
        As for :func:`advance` (`count_arcs` sums the output's out-arcs in `lists`, returned
        as :attr:`Frontier.arcs`).
    strategy : LoadBalance
        The load balance, already chosen (no "auto").
    every_list : bool, default False
        The frontier is every list, in order: the offsets are the scan (no scan, no sync).
    tier : gravel.backends.cuda.tiers.HotLists, optional
        A tiered graph's device lists: WARP_ALIGNED and LINE_BALANCED read the lists it holds
        there, and count only the other lines in `lines`.
    total : int, optional
        The frontier's out-arcs where the caller knows them (no read-back of the scan's).

    Returns
    -------
    Frontier or None
        As :func:`advance` returns it.

    Raises
    ------
    UnknownNameError, ValueError, TypeError, RuntimeError
        As :func:`advance` raises them.
    """
    import cupy

    out_kind = _output(output, (None, "vertex", "edge"))
    if count_arcs and out_kind is not Output.VERTEX:
        raise ValueError("count_arcs counts the out-arcs of an output of vertices")
    ids = frontier.ids
    nf = ids.size
    if strategy is LoadBalance.MERGE_PATH_CULL and visited is None:
        raise ValueError("MERGE_PATH_CULL needs a visited bitmap")
    merge = strategy in (LoadBalance.MERGE_PATH, LoadBalance.MERGE_PATH_CULL)
    scan = None
    if merge or (out_kind is not Output.NONE and capacity is None):
        if every_list:
            scan, total = lists.offsets, int(lists.indices.size)  # no scan, no sync
        else:
            scan = degree_scan(lists.offsets, ids)
            # sync unless given: sizes the output (and the merge-path grid)
            total = int(scan[-1]) if total is None else int(total)
        if not total:
            nf = 0
    out_t = cupy.int64 if out_kind is Output.EDGE else cupy.int32
    cap = 0 if out_kind is Output.NONE else (total if capacity is None else int(capacity))
    out = cupy.empty(max(cap, 1), dtype=out_t)
    counts = cupy.zeros(2 if count_arcs else 1, dtype=cupy.uint64)  # the length, then the arcs
    length = counts[:1]
    source, extra = functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    templates = (out_kind.value, CTYPES[np.dtype(out_t)])
    common = lists.args() + (ids, np.int64(nf), out, length, np.uint64(cap))
    if nf and merge:
        tiles = -(-total // MERGE_PATH_TILE)
        part = cupy.empty(tiles + 1, dtype=cupy.int64)
        runtime.kernel("advance/merge_path.cu", "gravel_merge_path_partition")(
            runtime.blocks_for(tiles + 1, BLOCK, resident=4),
            BLOCK,
            (scan, np.int64(nf), np.int64(total), np.int64(MERGE_PATH_TILE), np.int64(tiles), part),
        )
        k = runtime.kernel(
            "advance/merge_path.cu",
            "gravel_advance_merge_path",
            templates=templates + (BLOCK, MERGE_PATH_TILE // BLOCK),
            prelude=source,
        )
        cull = strategy is LoadBalance.MERGE_PATH_CULL
        bitmap = visited if cull else dummy(cupy.uint32)
        k(
            min(tiles, 64 * runtime.props().sm_count),
            BLOCK,
            common + (scan, np.int64(total), part, bitmap, np.int32(cull)) + extra,
        )
    elif nf and strategy in (LoadBalance.WARP_ALIGNED, LoadBalance.LINE_BALANCED):
        tiered = np.int32(tier is not None)
        stand_in = Lists(dummy(cupy.int64), dummy(cupy.int32), None)
        tier_args = Lists(*(tier if tier is not None else stand_in)).args()[:3]
        count = lines if lines is not None else np.uint64(0)  # a null pointer: no count
        if strategy is LoadBalance.WARP_ALIGNED:
            k = runtime.kernel(
                "advance/warp_aligned.cu",
                "gravel_advance_warp_aligned",
                templates=templates,
                prelude=source,
            )
            grid, scan_arg = runtime.blocks_for(32 * nf, BLOCK, resident=8), ()
        else:
            k = runtime.kernel(
                "advance/line_balanced.cu",
                "gravel_advance_line_balanced",
                templates=templates + (LINES_PER_WARP,),
                prelude=source,
            )
            # the total is on the device: a grid of resident warps strides over it, no sync
            grid = runtime.blocks_for(1 << 62, BLOCK, resident=8)
            scan_arg = (line_scan(lists.offsets, ids, tier),)
        k(grid, BLOCK, common + tier_args + (tiered,) + scan_arg + (count,) + extra)
    elif nf:
        name = strategy.value
        shape = (BLOCK,) if strategy is LoadBalance.BLOCK_MAPPED else ()
        k = runtime.kernel(
            f"advance/{name}.cu",
            f"gravel_advance_{name}",
            templates=templates + shape,
            prelude=source,
        )
        k(runtime.blocks_for(nf, BLOCK, resident=8), BLOCK, common + extra)
    if out_kind is Output.NONE:
        return None
    arcs = None
    if count_arcs and nf:
        # one wave strides over the output, which holds at most min(cap, total) ids
        most = cap if total is None else min(cap, total)
        k = runtime.kernel("frontier/arc_sum.cu", "gravel_frontier_arc_sum")
        grid = runtime.blocks_for(max(most, 1), BLOCK, resident=1)
        k(grid, BLOCK, (lists.offsets, out, length, np.uint64(cap), counts[1:]))
    if count_arcs:
        n_out, arcs = (int(c) for c in counts.get())  # sync: the length and the arcs at once
    else:
        n_out = read_count(length)
    if n_out > cap:
        raise RuntimeError(f"advance produced {n_out} items, more than capacity={cap}")
    return Frontier(n, ids=out, length=n_out, arcs=arcs)


def advance_pull(
    graph,
    frontier,
    candidates=None,
    op="true",
    *,
    where=None,
    params=None,
    output="vertex",
    preamble="",
):
    """Pull step: each candidate vertex v scans its in-edges (src -> v) for a src in `frontier`
    and stops at the first for which `op` holds; v then joins the output.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-edges (``graph.csc()``) are read.
    frontier : Frontier
        The sources (made dense: membership is a bit test).
    candidates : Frontier, optional
        The vertices that pull; None: every vertex.
    op : str, default "true"
        A CUDA C++ boolean expression over ``src``, ``dst`` (v), ``edge`` (the in-arc's
        position in the CSC), ``weight``, ``step`` and the `params`, tested on in-arcs from
        the frontier.
    where : str, optional
        A CUDA C++ boolean expression over ``v`` and the `params`: a candidate for which it is
        false does not pull. None: true.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, as for :func:`advance`.
    output : {"vertex", "edge", "bitmap", None}, default "vertex"
        What the output holds: the vertices v (int32) or the in-arcs found (int64), each
        once; "bitmap" returns a dense frontier, counted as it is made, its length read when
        asked, waiting for this step only (a caller may launch the next step first).
    preamble : str, default ""
        CUDA C++ source put before the kernel.

    Returns
    -------
    Frontier or None
        Of `graph.n` vertices: sparse (its length read back: a sync) or, for "bitmap", dense.
        None for ``output=None``.

    Raises
    ------
    UnknownNameError
        An unknown `output`; a parameter of a dtype with no C type.
    ValueError, TypeError
        User parameters that :func:`advance` refuses too.

    See Also
    --------
    advance : the push over out-edges.
    advance_pull_steps : many pull steps in one launch.
    """
    import cupy

    front = frontier.to_dense().bitmap
    ids, count, all_, source, extra = pull_functor(candidates, graph.n, op, where, params, preamble)
    out_kind = _output(output, (None, "vertex", "edge", "bitmap"))
    if out_kind is Output.BITMAP:
        out = cupy.zeros((graph.n + 31) // 32, dtype=cupy.uint32)
    else:
        out = cupy.empty(max(count, 1), dtype=cupy.int64 if out_kind is Output.EDGE else cupy.int32)
    length = counter()
    k = runtime.kernel(
        "advance/pull.cu",
        "gravel_advance_pull",
        templates=(out_kind.value, CTYPES[out.dtype]),
        prelude=source,
    )
    if count:
        k(
            runtime.blocks_for(count, BLOCK, resident=8),
            BLOCK,
            Lists(*graph.csc()).args()
            + (ids, np.int32(all_), np.int64(count), front, out, length, np.uint64(out.size))
            + extra,
        )
    if out_kind is Output.NONE:
        return None
    if out_kind is Output.BITMAP:
        return Frontier(graph.n, bitmap=out, length=PendingCount(length))
    return Frontier(graph.n, ids=out, length=read_count(length))
