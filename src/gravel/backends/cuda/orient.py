"""The forward triangle count's graph on the GPU: each edge {u, v} once, as an arc from the lower to
the higher (degree, id) rank, by two passes of a warp per row (kernels/orient/warp_rows.cu): count
each row's kept arcs, then place them behind the scan of those counts. Whole-array operations
(each arc's row, the rank test, a scan over every arc and a masked copy) took most of urand:22's
triangle count outside the intersection (docs/performance.md at 197cbaf, issue 23's GPU cells)."""

import numpy as np

from . import runtime

#: threads a block: 8 warps, a row each at a time
BLOCK = 256


def orient(offsets, indices, degree):
    """(offsets, indices) of the arcs u -> v of the CSR (`offsets`, `indices`) where u ranks below v
    by (degree, id), each row's in its order; CuPy arrays (`degree`: the rows' int32 lengths)."""
    import cupy

    n = offsets.size - 1
    kept = cupy.zeros(n + 1, cupy.int64)
    grid = runtime.blocks_for(32 * max(n, 1), BLOCK, resident=8)
    rows = (offsets, indices, degree, np.int64(n))
    if n:
        count = runtime.kernel("orient/warp_rows.cu", "gravel_orient_count")
        count(grid, BLOCK, (*rows, kept[1:]))
    starts = cupy.cumsum(kept)  # kept[0] is 0: row u's first slot, and the arcs at the end
    out = cupy.empty(int(starts[-1]), cupy.int32)  # sync: the kept arcs, to size the result
    if out.size:
        write = runtime.kernel("orient/warp_rows.cu", "gravel_orient_write")
        write(grid, BLOCK, (*rows, starts, out))
    return starts, out
