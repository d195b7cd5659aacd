"""Segmented intersection: the common neighbours of pairs of vertices, four strategies by
length; summed along every arc of a graph, a fifth where every list is short."""

import numpy as np

from ..arrays import entry_rows
from ..backends.cuda import runtime
from .codegen import BLOCK, counter, read_count

#: lists up to this long are "small": merged by one thread
SMALL = 128
#: a pair with a long list whose shorter list exceeds this is searched by a warp, not one thread
#: (docs/tuning.md, WARP_FROM)
WARP_FROM = 32
#: a pair whose shorter list exceeds this is intersected by a whole block
LARGE = 1024


#: the strategies, in the order of their class numbers (kernels/intersect/classify.cu)
CLASSES = ("two_small", "small_large", "warp_search", "large_large")
#: the kernels' null `items`: a class that holds every pair reads them in order
EVERY_PAIR = np.uint64(0)


def classify(degree, us, vs):
    """Each pair's class, an index into CLASSES, from its lists' lengths.

    Parameters
    ----------
    degree : cupy.ndarray of int32
        Each vertex's list length.
    us, vs : cupy.ndarray of int32
        The pairs' vertices.

    Returns
    -------
    classes : cupy.ndarray of uint8
        Each pair's class.
    sizes : numpy.ndarray of uint64, shape (len(CLASSES),)
        How many pairs each class holds (one read-back).
    """
    import cupy

    classes = cupy.empty(us.size, cupy.uint8)
    sizes = cupy.zeros(len(CLASSES), cupy.uint64)
    k = runtime.kernel("intersect/classify.cu", "gravel_intersect_classify")
    limits = (np.int64(SMALL), np.int64(WARP_FROM), np.int64(LARGE))
    grid = runtime.blocks_for(us.size, BLOCK, resident=8)
    k(grid, BLOCK, (degree, us, vs, np.int64(us.size), *limits, classes, sizes))
    return classes, sizes.get()


def intersect(graph, us, vs):
    """The size of N(u) ∩ N(v) for every pair (us[i], vs[i]) of sorted out-neighbour lists.

    Pairs are split four ways: both lists short (one thread merges), one long and the other up to
    WARP_FROM (one thread binary-searches the shorter list's elements in the longer one), the
    shorter up to LARGE (a warp per pair searches them), both long (one block per pair); a class
    that holds every pair reads them in order, unlisted.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its rows are sorted, as every Graph's are.
    us, vs : array_like of int
        The pairs, on the host or the device (copied to int32 device arrays where they are
        not).

    Returns
    -------
    counts : cupy.ndarray of int64
        The common neighbours of each pair.
    total : int
        Their sum (read back: a sync).
    """
    import cupy

    us = cupy.ascontiguousarray(cupy.asarray(us, dtype=cupy.int32))
    vs = cupy.ascontiguousarray(cupy.asarray(vs, dtype=cupy.int32))
    counts = cupy.empty(us.size, dtype=cupy.int64)  # every pair falls in one class and is written
    total = counter()
    if not us.size:
        return counts, read_count(total)
    classes, sizes = classify(graph.out_degree, us, vs)
    for c, name in enumerate(CLASSES):
        size = int(sizes[c])
        if not size:
            continue
        items = EVERY_PAIR if size == us.size else cupy.flatnonzero(classes == c)
        args = (graph.offsets, graph.indices, us, vs, items, np.int64(size), counts, total)
        if name == "large_large":
            k = runtime.kernel(
                "intersect/large_large.cu", "gravel_intersect_large_large", templates=(BLOCK,)
            )
            k(min(size, 64 * runtime.props().sm_count), BLOCK, args)
        elif name == "warp_search":
            k = runtime.kernel("intersect/warp_search.cu", "gravel_intersect_warp_search")
            k(runtime.blocks_for(32 * size, BLOCK, resident=8), BLOCK, args)
        else:
            k = runtime.kernel(f"intersect/{name}.cu", f"gravel_intersect_{name}")
            k(runtime.blocks_for(size, BLOCK, resident=8), BLOCK, args)
    return counts, read_count(total)


def intersect_arcs(graph):
    """The sum over every arc u -> v of the size of N(u) ∩ N(v) (out-neighbour lists, sorted):
    the triangles of a graph oriented by rank. Where no list passes SMALL, a warp per row streams
    its neighbours' lists against the row held in shared memory (kernels/intersect/rows.cu); else
    every arc is a pair of :func:`intersect`.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU (oriented: :func:`gravel.transform.orient_by_degree`).

    Returns
    -------
    int
        The sum; 0 without arcs.
    """
    import cupy

    if not graph.nnz:
        return 0
    if int(graph.out_degree.max()) <= SMALL:  # sync: the longest list
        total = counter()
        k = runtime.kernel("intersect/rows.cu", "gravel_intersect_rows", templates=(BLOCK, SMALL))
        grid = runtime.blocks_for(32 * graph.n, BLOCK, resident=8)
        k(grid, BLOCK, (graph.offsets, graph.indices, np.int64(graph.n), total))
        return read_count(total)
    rows = entry_rows(graph.offsets, graph.nnz).astype(cupy.int32)
    return intersect(graph, rows, graph.indices)[1]
