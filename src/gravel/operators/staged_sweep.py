"""The staged sweep of a pull neighbor_reduce (:class:`gravel.layouts.StagedPull`): the gather of
each edge's x[u] through its block's slice in shared memory, then the merge of the pairs by
destination tiles (kernels/neighbor_reduce/staged.cu). It takes a
:class:`~gravel.operators.sweeps.Reduction`, as the other sweeps of :mod:`gravel.operators.sweeps`.
"""

import numpy as np

from ..backends.cuda import runtime
from ..layouts.staged import (
    KERNEL_DEFINES,
    STAGED_GATHER_BLOCK,
    STAGED_MERGE_BLOCK,
    STAGED_SPAN,
    STAGED_STAGE,
    STAGED_TILE_BYTES,
    staged_layout,
    staged_weights,
)
from .codegen import NR_REDUCE, dummy, prelude

#: staged.cu's COMBINE of each neighbor_reduce `combine`: how x[u] meets the arc's weight
COMBINE = {None: 0, "+": 1, "*": 2}


def staged_sweep(graph, width, x, red, out, combine=None):
    """The staged sweep (:class:`gravel.layouts.StagedPull`): the gather of each edge's x[u] through
    its block's slice in shared memory (combined with the arc's weight where `combine` is "+" or
    "*"), reduced to one value per (block, destination) pair or copied per edge, then the merge of
    the pairs by destination tiles (the vertex update fused there).

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-lists are read.
    width : int
        Source vertices a block, at most :func:`gravel.layouts.shared_width`; the layout is built
        on first use and kept with the graph.
    x : cupy.ndarray
        The values, one per vertex, of the reduction's dtype.
    red : Reduction
        The call's reduction.
    out : cupy.ndarray
        One result per vertex, of the reduction's dtype (a stand-in where the reduction's apply
        writes instead).
    combine : {None, "+", "*"}, default None
        How x[u] meets the arc's weight (:data:`COMBINE`).

    Raises
    ------
    ValueError
        From :func:`staged_gather`: a layout of another span.
    """
    import cupy

    L = staged_layout(graph, width, STAGED_TILE_BYTES // red.dtype.itemsize)
    weight = None if combine is None else staged_weights(graph, L)
    value = staged_gather(L, x, red, weight, COMBINE[combine])
    # sums of tiles cut into pieces and their pieces done: the merge leaves them as it found them,
    # the sums at this reduction's identity (which is part of the key: min's is FLT_MAX or inf)
    identity = red.dtype.type(red.identity)
    total, done = graph.cached(
        ("staged_merge", red.dtype, red.op, identity.tobytes(), L.tiles),
        lambda: (
            cupy.full(graph.n, red.identity, dtype=red.dtype),
            cupy.zeros(L.tiles, cupy.uint32),
        ),
    )
    source, extra = red.functor()
    k = runtime.kernel(
        "neighbor_reduce/staged.cu",
        "gravel_staged_merge",
        templates=(red.ctype, red.op),
        prelude=source,
        defines=KERNEL_DEFINES,
    )
    k(
        runtime.blocks_for(L.pieces * STAGED_MERGE_BLOCK, STAGED_MERGE_BLOCK, resident=8),
        STAGED_MERGE_BLOCK,
        (
            L.piece_first,
            L.piece_tile,
            L.tile_pieces,
            np.int64(L.pieces),
            L.seg_start,
            L.seg_end,
            L.target,
            value,
            np.int32(L.tile),
            np.int64(graph.n),
            identity,
            total,
            done,
            out,
        )
        + extra,
        shared_mem=L.tile * red.dtype.itemsize,
    )


def staged_gather(L, x, red, weight=None, combine=0):
    """The staged sweep's first pass over layout `L`: x[u] of each edge, reduced by the
    reduction's operator over each pair, or copied where each edge is its own pair.

    Parameters
    ----------
    L : gravel.layouts.StagedPull
        The staged layout.
    x : cupy.ndarray
        The values, one per vertex, of the reduction's dtype.
    red : Reduction
        The call's reduction.
    weight : cupy.ndarray of float32, optional
        The arcs' weights in the layout's order, where `combine` is not 0.
    combine : int, default 0
        staged.cu's COMBINE: 0 x[u] alone, 1 ``x[u] + weight``, 2 ``x[u] * weight``.

    Returns
    -------
    cupy.ndarray
        One value per pair of the layout, of the reduction's dtype.

    Raises
    ------
    ValueError
        A layout whose span is not STAGED_SPAN.
    """
    import cupy

    value = cupy.empty(L.pairs, dtype=red.dtype)
    if not L.edges:
        return value
    if weight is None:
        weight = dummy(np.float32)  # COMBINE 0 reads no weight
    chunks = (L.chunk_edges, L.chunk_block, np.int64(L.chunk_block.size), L.local, weight)
    if L.copies:
        k = runtime.kernel(
            "neighbor_reduce/staged.cu",
            "gravel_staged_copy",
            templates=(red.ctype, combine),
            defines=KERNEL_DEFINES,
        )
        k(
            int(L.chunk_block.size),
            STAGED_GATHER_BLOCK,
            chunks + (x, np.int64(L.n), np.int32(L.width), value),
            shared_mem=L.width * red.dtype.itemsize,
        )
        return value
    if L.span != STAGED_SPAN:
        raise ValueError(f"the staged gather takes spans of {STAGED_SPAN} edges, not {L.span}")
    k = runtime.kernel(
        "neighbor_reduce/staged.cu",
        "gravel_staged_gather",
        templates=(red.ctype, combine),
        prelude=prelude([], {NR_REDUCE: red.macros[NR_REDUCE]}),
        defines=KERNEL_DEFINES,
    )
    warps = STAGED_GATHER_BLOCK // 32
    k(
        int(L.chunk_block.size),
        STAGED_GATHER_BLOCK,
        chunks
        + (
            L.ends,
            L.span_pair,
            x,
            np.int64(L.n),
            np.int32(L.width),
            red.dtype.type(red.identity),
            value,
        ),
        shared_mem=(L.width + warps * STAGED_STAGE) * red.dtype.itemsize,
    )
    return value
