"""GraphCage's cache blocking (TOCAB, ../shared/seeds/000; DESIGN.md section 5), pull direction.

A pull sweep gathers x[u] over every in-edge u -> v. When x is larger than the L2, those gathers miss.
The blocked layout cuts the in-edges by source range into blocks of `width` vertices, so that one
block's slice of x fits in a fraction of the L2, and lists each block's destinations that have an edge
there under dense local row ids (the rows of all blocks back to back, block after block). One reduction
over those rows, in block order, writes a partial sum per row; the merge then adds each vertex's partials,
itself a pull over a small "merge" CSR whose rows are the vertices and whose entries are their rows.

The layout is built with the array module of the graph it is given (CuPy on the device, NumPy for tests).
"""

from dataclasses import dataclass

import numpy as np

#: share of the L2 a block's vertex data may take (GraphCage's best: 1 MB of a 2.75 MB L2)
L2_FRACTION = 0.5


def block_width(bytes_per_vertex=4, *, l2_bytes=None, fraction=L2_FRACTION):
    """Vertices per block: `fraction` of the L2 (the running card's unless given) over the bytes of
    vertex data each gathered vertex brings."""
    if l2_bytes is None:
        from .backends.cuda import runtime

        l2_bytes = runtime.props().l2_bytes
    return max(1, int(fraction * l2_bytes) // int(bytes_per_vertex))


@dataclass
class BlockedPull:
    """In-edges blocked by source range.

    ``offsets``/``sources`` are a CSR over the rows (one per block and destination with an edge in that
    block, block-major, destinations ascending inside a block); ``row_vertex[r]`` is row r's destination.
    ``merge_offsets``/``merge_rows`` list, for each vertex v, the rows whose destination is v.
    """

    n: int
    width: int
    blocks: int
    offsets: object
    sources: object
    row_vertex: object
    merge_offsets: object
    merge_rows: object

    @property
    def rows(self):
        return self.row_vertex.size


def blocked_pull(in_offsets, in_sources, n, width):
    """The blocked layout of the in-edges given as a CSR over destinations (in_offsets, in_sources)."""
    xp = _module(in_offsets)
    if width < 1:
        raise ValueError(f"the block width must be at least 1 vertex, not {width}")
    nnz = int(in_sources.size)
    blocks = max(1, -(-n // width))
    if nnz and blocks * n >= 2**62:
        raise ValueError(f"{blocks} blocks of {n} vertices overflow the 64-bit sort keys")
    dst = xp.searchsorted(in_offsets, xp.arange(nnz, dtype=xp.int64), side="right") - 1
    key = (in_sources.astype(xp.int64) // width) * n + dst  # (block, destination)
    order = xp.argsort(key, kind="stable")
    key = key[order]
    sources = in_sources[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(min(nnz, 1), bool), key[1:] != key[:-1]]))
    offsets = xp.concatenate([starts, xp.array([nnz], dtype=starts.dtype)]).astype(xp.int64)
    row_vertex = (key[starts] % n).astype(xp.int32)
    by_vertex = xp.argsort(row_vertex, kind="stable").astype(xp.int32)
    merge_offsets = xp.searchsorted(row_vertex[by_vertex], xp.arange(n + 1, dtype=xp.int32)).astype(xp.int64)
    return BlockedPull(n=n, width=int(width), blocks=blocks, offsets=offsets, sources=sources,
                       row_vertex=row_vertex, merge_offsets=merge_offsets, merge_rows=by_vertex)


def _module(a):
    if isinstance(a, np.ndarray):
        return np
    import cupy

    return cupy.get_array_module(a)
