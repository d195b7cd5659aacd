"""Segmented intersection: the common neighbours of pairs of vertices, four strategies by
length."""

import numpy as np

from ..backends.cuda import runtime
from ._functor import BLOCK, counter, read_count

#: lists up to this long are "small": merged by one thread
SMALL = 128
#: a pair with a long list whose shorter list exceeds this is searched by a warp, not one thread
#: (docs/tuning.md, WARP_FROM)
WARP_FROM = 32
#: a pair whose shorter list exceeds this is intersected by a whole block
LARGE = 1024


def intersect(graph, us, vs):
    """|N(u) ∩ N(v)| for every pair (us[i], vs[i]) of sorted out-neighbour lists.

    Pairs are split four ways: both lists short (one thread merges), one long and the other up to
    WARP_FROM (one thread binary-searches the shorter list's elements in the longer one), the
    shorter up to LARGE (a warp per pair searches them), both long (one block per pair). Returns
    (per-pair counts as int64, total).
    """
    import cupy

    us = cupy.ascontiguousarray(cupy.asarray(us, dtype=cupy.int32))
    vs = cupy.ascontiguousarray(cupy.asarray(vs, dtype=cupy.int32))
    deg = graph.out_degree
    du, dv = deg[us], deg[vs]
    lo, hi = cupy.minimum(du, dv), cupy.maximum(du, dv)
    counts = cupy.empty(us.size, dtype=cupy.int64)  # every pair falls in one class and is written
    total = counter()
    classes = {
        "two_small": hi <= SMALL,
        "small_large": (hi > SMALL) & (lo <= WARP_FROM),
        "warp_search": (hi > SMALL) & (lo > WARP_FROM) & (lo <= LARGE),
        "large_large": lo > LARGE,
    }
    for name, mask in classes.items():
        pairs = cupy.flatnonzero(mask).astype(cupy.int64)
        if not pairs.size:
            continue
        args = (graph.offsets, graph.indices, us, vs, pairs, np.int64(pairs.size), counts, total)
        if name == "large_large":
            k = runtime.kernel(
                "intersect/large_large.cu", "gravel_intersect_large_large", templates=(BLOCK,)
            )
            k(min(pairs.size, 64 * runtime.props().sm_count), BLOCK, args)
        elif name == "warp_search":
            k = runtime.kernel("intersect/warp_search.cu", "gravel_intersect_warp_search")
            k(runtime.blocks_for(32 * pairs.size, BLOCK, resident=8), BLOCK, args)
        else:
            k = runtime.kernel(f"intersect/{name}.cu", f"gravel_intersect_{name}")
            k(runtime.blocks_for(pairs.size, BLOCK, resident=8), BLOCK, args)
    return counts, read_count(total)
