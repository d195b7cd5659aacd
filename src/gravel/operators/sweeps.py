"""The launches of a pull neighbor_reduce: by items, a plain sweep by list bins and GraphCage's
blocked sweep (kernels/neighbor_reduce/); the staged sweep is in
:mod:`gravel.operators.staged_sweep`. Each takes a :class:`Reduction`, what every launch of one
neighbor_reduce call shares."""

from dataclasses import dataclass

import numpy as np

from ..backends.cuda import runtime
from ..layouts.blocked import pull_layout
from .codegen import (
    BLOCK,
    CTYPES,
    LONG_LIST,
    NR_APPLY,
    NR_SUMS,
    Lists,
    dummy,
    functor,
)
from .sweep_plan import hub_front

#: how the pull kernel's CTAs cover the items: (passes, resident). A CTA takes `passes` consecutive
#: stretches of items; `resident` caps the grid at that many waves of CTAs, which then stride over
#: the items (None: one pass over them, in order). Striding wins where the gathered values fit in
#: the L2 or the hubs come first; one pass on larger graphs as given (docs/tuning.md).
STRIDING, ONE_PASS = (1, 8), (1, None)
#: the blocked rows pass keeps its rows in flight inside one block's range (docs/tuning.md)
ROWS_SHAPE = (16, None)
#: a sweep takes its lists in bins by length, each with its own lanes per list: those below BINS[0]
#: entries, those below BINS[1], ...; lists of LONG_LIST entries or more get a CTA each
#: (pull_long.cu)
BINS = (8, LONG_LIST)


@dataclass(frozen=True)
class Reduction:
    """What every launch of one neighbor_reduce call shares: the value type and identity, the reduce
    (`op` 0 sum, 1 min, 2 max, None for an expression), the functor's macros, params and
    preamble."""

    dtype: np.dtype
    identity: object
    op: int | None
    macros: dict
    params: dict
    preamble: str

    @property
    def ctype(self):
        """The C type of the values (``"float"``, say)."""
        return CTYPES[self.dtype]

    def functor(self, *, rows=False):
        """The functor's prelude source and extra kernel arguments.

        Parameters
        ----------
        rows : bool, default False
            For passes that write partial results: without the vertex update and its sums.

        Returns
        -------
        tuple of (str, tuple)
            :func:`~gravel.operators.codegen.functor` of the params and macros.
        """
        macros = self.macros
        if rows:
            macros = {k: v for k, v in macros.items() if k not in (NR_APPLY, NR_SUMS)}
        return functor(self.params, macros, self.preamble)


def lanes_per_item(mean_degree):
    """Lanes that share one neighbour list: the power of two nearest above the mean degree, at most
    a warp (cuSPARSE's CSR-vector rule).

    Parameters
    ----------
    mean_degree : float
        The lists' mean length.

    Returns
    -------
    int
        1, 2, 4, 8, 16 or 32.

    Examples
    --------
    >>> from gravel.operators.sweeps import lanes_per_item
    >>> lanes_per_item(0.5), lanes_per_item(5.2), lanes_per_item(100.0)
    (1, 8, 32)
    """
    return int(min(32, max(1, 1 << int(np.ceil(np.log2(max(mean_degree, 1.0)))))))


def pull_shape(graph, bytes_per_vertex=4):
    """The pull kernel's launch shape for a sweep over every vertex of `graph` (see STRIDING).

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-lists are read.
    bytes_per_vertex : int, default 4
        Bytes of the values a sweep gathers, a vertex.

    Returns
    -------
    tuple of (int, int or None)
        STRIDING where the gathered values fit the L2 or the hubs come first, else ONE_PASS.
    """
    fits = graph.n * bytes_per_vertex <= runtime.props().l2_bytes
    return STRIDING if fits or hub_front(graph) else ONE_PASS


def pull_items(
    lists,
    red,
    out,
    fn,
    *,
    ids,
    count,
    all_items=False,
    by_item=False,
    bin_of_sweep=False,
    shape=STRIDING,
    lanes=None,
):
    """The pull kernel over `count` items of `lists`, `lanes` per list.

    Parameters
    ----------
    lists : Lists
        The lists pulled (in-lists, or a layout's rows).
    red : Reduction
        The call's reduction.
    out : cupy.ndarray
        One result per vertex, of the reduction's dtype (a stand-in where the reduction's apply
        writes instead).
    fn : tuple of (str, tuple)
        The functor's prelude and extra arguments (:meth:`Reduction.functor`).
    ids : cupy.ndarray of int32
        The items (a stand-in when `all_items`).
    count : int
        How many items; nothing is launched for 0.
    all_items : bool, default False
        The items are every list, 0..count-1.
    by_item : bool, default False
        Results by position (a layout's rows), else by vertex.
    bin_of_sweep : bool, default False
        The items are a bin of a sweep.
    shape : tuple of (int, int or None), default STRIDING
        The launch's (passes, resident).
    lanes : int, optional
        Lanes per list; default :func:`lanes_per_item` of the mean list.
    """
    if not count:
        return
    source, extra = fn
    passes, resident = shape
    vec = lanes or lanes_per_item(lists.indices.size / max(lists.offsets.size - 1, 1))
    grid = -(-count // (BLOCK // vec * passes))
    if resident is not None:
        grid = min(grid, runtime.blocks_for(grid * BLOCK, BLOCK, resident=resident))
    k = runtime.kernel(
        "neighbor_reduce/pull.cu",
        "gravel_neighbor_reduce_pull",
        templates=(red.ctype, vec),
        prelude=source,
    )
    flags = (
        np.int32(all_items),
        np.int32(by_item),
        np.int32(bin_of_sweep),
        np.int64(count),
        np.int32(passes),
    )
    k(grid, BLOCK, lists.args() + (ids,) + flags + (red.dtype.type(red.identity), out) + extra)


def list_bins(graph):
    """The bins of a sweep over the graph's in-lists, found once and kept with the graph.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-lists are read.

    Returns
    -------
    list of (cupy.ndarray or None, int or None)
        ``(items, lanes)`` by bin of BINS: items None for every item (where one bin holds them
        all); lanes None for the long lists' CTAs.
    """
    import cupy

    def find():
        offsets = graph.csc()[0]
        degree = offsets[1:] - offsets[:-1]
        cls = cupy.searchsorted(cupy.asarray(BINS, degree.dtype), degree, side="right")
        bins = []
        for c in range(len(BINS) + 1):
            ids = cupy.flatnonzero(cls == c).astype(cupy.int32)
            if ids.size:
                long_ = BINS[c - 1] >= LONG_LIST if c else False
                bins.append((ids, None if long_ else lanes_per_item(float(degree[ids].mean()))))
        if len(bins) == 1 and bins[0][1] is not None:
            bins = [(None, bins[0][1])]
        return bins

    return graph.cached(("in_list_bins", BINS), find)


def pull_long(lists, red, out, fn, ids):
    """The pull over the long lists of the vertices `ids` of a sweep, a CTA each (pull_long.cu).

    Parameters
    ----------
    lists : Lists
        The in-lists.
    red : Reduction
        The call's reduction.
    out : cupy.ndarray
        One result per vertex, of the reduction's dtype (a stand-in where the reduction's apply
        writes instead).
    fn : tuple of (str, tuple)
        The functor's prelude and extra arguments.
    ids : cupy.ndarray of int32
        The vertices, one CTA each.
    """
    source, extra = fn
    k = runtime.kernel(
        "neighbor_reduce/pull_long.cu",
        "gravel_neighbor_reduce_pull_long",
        templates=(red.ctype, BLOCK),
        prelude=source,
    )
    k(int(ids.size), BLOCK, lists.args() + (ids, red.dtype.type(red.identity), out) + extra)


def streamed_sweep(graph, red, out):
    """Pull over every vertex's in-edges, chunk by chunk as the copy engines bring the lists from
    host memory (:func:`gravel.operators.stream.streamed_lists`).

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        A graph whose lists live in host memory.
    red : Reduction
        The call's reduction.
    out : cupy.ndarray
        One result per vertex, of the reduction's dtype (a stand-in where the reduction's apply
        writes instead).
    """
    from .stream import streamed_lists

    fn = red.functor()
    for chunk in streamed_lists(graph, Lists(*graph.csc())):
        if chunk.short.size:
            lanes = lanes_per_item(chunk.mean_degree)
            pull_items(
                chunk.lists,
                red,
                out,
                fn,
                ids=chunk.short,
                count=chunk.short.size,
                bin_of_sweep=True,
                shape=ONE_PASS,
                lanes=lanes,
            )
        if chunk.long.size:
            pull_long(chunk.lists, red, out, fn, chunk.long)


def plain_sweep(graph, red, out):
    """Pull over every vertex's in-edges, bin by bin (list_bins).

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-lists are read.
    red : Reduction
        The call's reduction.
    out : cupy.ndarray
        One result per vertex, of the reduction's dtype (a stand-in where the reduction's apply
        writes instead).
    """
    lists = Lists(*graph.csc())
    shape = pull_shape(graph, red.dtype.itemsize)
    fn = red.functor()
    for ids, lanes in list_bins(graph):
        if lanes is None:
            pull_long(lists, red, out, fn, ids)
        elif ids is None:
            pull_items(
                lists,
                red,
                out,
                fn,
                ids=dummy(np.int32),
                count=graph.n,
                all_items=True,
                shape=shape,
                lanes=lanes,
            )
        else:
            pull_items(
                lists,
                red,
                out,
                fn,
                ids=ids,
                count=ids.size,
                bin_of_sweep=True,
                shape=shape,
                lanes=lanes,
            )


def blocked_sweep(graph, width, red, out):
    """GraphCage's blocked sweep: the rows pass (the pull kernel over the layout's rows, each
    writing its partial result) and the merge of each vertex's partials by tiles in shared
    memory.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-lists are read.
    width : int
        Source vertices a block; the layout (:func:`gravel.layouts.blocked.pull_layout`) is built
        on first use and kept with the graph.
    red : Reduction
        The call's reduction.
    out : cupy.ndarray
        One result per vertex, of the reduction's dtype (a stand-in where the reduction's apply
        writes instead).
    """
    import cupy

    L = pull_layout(graph, width)
    partial = cupy.empty(L.rows, dtype=red.dtype)
    pull_items(
        Lists(L.offsets, L.sources, L.weights),
        red,
        partial,
        red.functor(rows=True),
        ids=L.row_vertex,
        count=L.rows,
        by_item=True,
        shape=ROWS_SHAPE,
    )
    source, extra = red.functor()
    k = runtime.kernel(
        "neighbor_reduce/blocked_merge.cu",
        "gravel_neighbor_reduce_merge",
        templates=(red.ctype, L.tile),
        prelude=source,
    )
    k(
        runtime.blocks_for(L.tiles * BLOCK, BLOCK, resident=8),
        BLOCK,
        (
            L.tile_rows,
            np.int32(L.blocks),
            np.int64(L.tiles),
            L.row_vertex,
            partial,
            np.int64(graph.n),
            red.dtype.type(red.identity),
            out,
        )
        + extra,
    )
