"""GraphCage's cache blocking (TOCAB, ../shared/seeds/000; DESIGN.md section 5).

A pull sweep gathers x[u] over every in-edge u -> v; a push sweep scatters into y[v] over every out-edge.
When x or y is larger than the L2, those accesses miss. The blocked layouts cut the edges by the range
of the irregular endpoint (pull: the source; push: the destination) into blocks of `width` vertices, so
that one block's slice of the vertex data fits in a fraction of the L2, and list each block's regular
endpoints that have an edge there as dense local rows (the rows of all blocks back to back, block after
block). Pull: one reduction over those rows, in block order, writes a partial sum per row, and the merge
adds each vertex's partials, itself a pull over a small "merge" CSR whose rows are the vertices and
whose entries are their rows. Push: the rows scatter with atomics that stay inside their block's range.

The layouts are built with the array module of the graph given (CuPy on the device, NumPy for tests).
"""

from dataclasses import dataclass

from .arrays import xp as _module

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


@dataclass
class BlockedPush:
    """Out-edges blocked by destination range: ``offsets``/``targets`` are a CSR over the rows (one per
    block and source with an edge into that block, block-major, sources ascending inside a block);
    ``row_vertex[r]`` is row r's source."""

    n: int
    width: int
    blocks: int
    offsets: object
    targets: object
    row_vertex: object

    @property
    def rows(self):
        return self.row_vertex.size


def blocked_pull(in_offsets, in_sources, n, width):
    """The blocked layout of the in-edges given as a CSR over destinations (in_offsets, in_sources)."""
    xp = _module(in_offsets)
    blocks, offsets, sources, row_vertex = _segment(in_offsets, in_sources, n, width)
    by_vertex = xp.argsort(row_vertex, kind="stable").astype(xp.int32)
    merge_offsets = xp.searchsorted(row_vertex[by_vertex], xp.arange(n + 1, dtype=xp.int32)).astype(xp.int64)
    return BlockedPull(n=n, width=int(width), blocks=blocks, offsets=offsets, sources=sources,
                       row_vertex=row_vertex, merge_offsets=merge_offsets, merge_rows=by_vertex)


def blocked_push(out_offsets, out_targets, n, width):
    """The blocked layout of the out-edges given as a CSR over sources (out_offsets, out_targets)."""
    blocks, offsets, targets, row_vertex = _segment(out_offsets, out_targets, n, width)
    return BlockedPush(n=n, width=int(width), blocks=blocks, offsets=offsets, targets=targets,
                       row_vertex=row_vertex)


def _segment(offsets, others, n, width):
    """A CSR's entries regrouped by (block of the entry, row): the rows of block 0, then of block 1, ...
    Returns (blocks, row offsets, entries, row vertex of each row)."""
    xp = _module(offsets)
    if width < 1:
        raise ValueError(f"the block width must be at least 1 vertex, not {width}")
    nnz = int(others.size)
    blocks = max(1, -(-n // width))
    if nnz and blocks * n >= 2**62:
        raise ValueError(f"{blocks} blocks of {n} vertices overflow the 64-bit sort keys")
    row = xp.searchsorted(offsets, xp.arange(nnz, dtype=xp.int64), side="right") - 1
    key = (others.astype(xp.int64) // width) * n + row  # (block, row)
    order = xp.argsort(key, kind="stable")  # stable: entries stay sorted inside a row
    key = key[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(min(nnz, 1), bool), key[1:] != key[:-1]]))
    row_offsets = xp.concatenate([starts, xp.array([nnz], dtype=starts.dtype)]).astype(xp.int64)
    return blocks, row_offsets, others[order], (key[starts] % n).astype(xp.int32)
