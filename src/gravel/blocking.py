"""GraphCage's cache blocking (TOCAB, ../shared/seeds/000; DESIGN.md section 5).

A pull sweep gathers x[u] over every in-edge u -> v; a push sweep scatters into y[v] over every out-edge.
When x or y is larger than the L2, those accesses miss. The blocked layouts cut the edges by the range
of the irregular endpoint (pull: the source; push: the destination) into blocks of `width` vertices, so
that one block's slice of the vertex data fits in a fraction of the L2, and list each block's regular
endpoints that have an edge there as dense local rows (the rows of all blocks back to back, block after
block). Pull: one reduction over those rows, in block order, writes a partial result per row; the merge
then takes the vertices in tiles of MERGE_TILE: a tile's rows form one run in each block (rows ascend
by vertex inside a block), so a CTA folds each run into the tile's accumulators in shared memory and
writes the tile once, every read and write coalesced. Push: the rows scatter with atomics that stay
inside their block's range.

The layouts are built with the array module of the graph given (CuPy on the device, NumPy for tests).
"""

from dataclasses import dataclass

from .arrays import entry_rows, xp as _module

#: share of the L2 a block's vertex data may take. GraphCage's best was 1 MB of a 2.75 MB L2; on an H200
#: (60 MB) a quarter beat a half on kron:25 (9.3 against 10.7 ms per PageRank iteration) and urand:24
#: (5.3 against 6.1), lost on kron:24 (5.3 against 4.8): the gathered values share the L2 with the
#: streamed lists (benchmarks/results/2026-11-26-h200-final-blocking.json)
L2_FRACTION = 0.25
#: "auto" blocks vertex data over this share of the L2 (H200, PageRank per iteration: kron:23's 34 MB,
#: 0.56 of the L2, 3.26 ms plain, 2.71 blocked; kron:22's 17 MB, 0.28 of it, 1.96 ms blocked in one
#: run, 1.53 plain in another)
AUTO_L2_SHARE = 0.5
#: vertices per merge tile: its accumulators live in shared memory (8 KB of float)
MERGE_TILE = 2048
#: a graph whose first 1/HUB_FRONT_PART of the ids source over HUB_FRONT_SHARE of the edges has its
#: hubs in front (degree-sorted kron: about 0.8; as generated, uniform graphs and grids: about 0.06)
HUB_FRONT_PART, HUB_FRONT_SHARE = 16, 0.25


def block_width(bytes_per_vertex=4, *, l2_bytes=None, fraction=L2_FRACTION):
    """Vertices per block: `fraction` of the L2 (the running card's unless given) over the bytes of
    vertex data each gathered vertex brings."""
    if l2_bytes is None:
        from .backends.cuda import runtime

        l2_bytes = runtime.props().l2_bytes
    return max(1, int(fraction * l2_bytes) // int(bytes_per_vertex))


def resolve_width(blocking, dg, bytes_per_vertex=4):
    """The block width a ``blocking=`` argument asks for (None, "auto" or an int of vertices) for the
    DeviceGraph `dg`, or None where no blocking is wanted. "auto" blocks where the vertex data
    outgrows AUTO_L2_SHARE of the L2, unless the hubs come first (:func:`hub_front`): there the plain
    sweep's gathers already hit (degree-sorted kron:25 on an H200: 9.6 ms plain, 17.1 blocked)."""
    if blocking is None:
        return None
    if blocking == "auto":
        from .backends.cuda import runtime

        small = dg.n * bytes_per_vertex <= AUTO_L2_SHARE * runtime.props().l2_bytes
        return None if small or hub_front(dg) else block_width(bytes_per_vertex)
    if isinstance(blocking, str) or int(blocking) < 1:
        raise ValueError(f"blocking must be None, 'auto' or a width of at least 1 vertex, not {blocking!r}")
    return int(blocking)


def hub_front(dg):
    """Do the first 1/HUB_FRONT_PART of the ids source over HUB_FRONT_SHARE of the edges (hubs first,
    as after a degree sort)? One read of the offsets, kept with the graph."""
    if "hub_front" not in dg.derived:
        head = int(dg.offsets[dg.n // HUB_FRONT_PART])
        dg.derived["hub_front"] = dg.nnz > 0 and head > HUB_FRONT_SHARE * dg.nnz
    return dg.derived["hub_front"]


@dataclass
class BlockedPull:
    """In-edges blocked by source range.

    ``offsets``/``sources`` (and ``weights``, if given) are a CSR over the rows (one per block and
    destination with an edge in that block, block-major, destinations ascending inside a block);
    ``row_vertex[r]`` is row r's destination. ``tile_rows[b * (tiles + 1) + t]`` is block b's first row
    whose destination is at least ``t * tile``: block b's rows for tile t are ``tile_rows[..t]`` to
    ``tile_rows[..t + 1]``.
    """

    n: int
    width: int
    blocks: int
    offsets: object
    sources: object
    weights: object
    row_vertex: object
    tile: int
    tiles: int
    tile_rows: object

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


def blocked_pull(in_offsets, in_sources, n, width, weights=None, *, tile=MERGE_TILE):
    """The blocked layout of the in-edges given as a CSR over destinations (in_offsets, in_sources,
    and their weights if any)."""
    xp = _module(in_offsets)
    blocks, offsets, order, row_key = _segment(in_offsets, in_sources, n, width)
    tiles = -(-n // tile)
    first = xp.minimum(xp.arange(tiles + 1, dtype=xp.int64) * tile, n)
    bounds = (xp.arange(blocks, dtype=xp.int64)[:, None] * n + first[None, :]).ravel()
    return BlockedPull(n=n, width=int(width), blocks=blocks, offsets=offsets, sources=in_sources[order],
                       weights=None if weights is None else weights[order],
                       row_vertex=(row_key % n).astype(xp.int32), tile=int(tile), tiles=tiles,
                       tile_rows=xp.searchsorted(row_key, bounds).astype(xp.int64))


def blocked_push(out_offsets, out_targets, n, width):
    """The blocked layout of the out-edges given as a CSR over sources (out_offsets, out_targets)."""
    blocks, offsets, order, row_key = _segment(out_offsets, out_targets, n, width)
    return BlockedPush(n=n, width=int(width), blocks=blocks, offsets=offsets, targets=out_targets[order],
                       row_vertex=(row_key % n).astype(_module(row_key).int32))


def pull_layout(dg, width):
    """The blocked pull layout of a DeviceGraph's in-edges, built on first use and kept with the graph."""
    layouts = dg.derived.setdefault("blocked_pull", {})
    if width not in layouts:
        offsets, sources, weights = dg.csc()
        layouts[width] = blocked_pull(offsets, sources, dg.n, width, weights)
    return layouts[width]


def push_layout(dg, width):
    """The blocked push layout of a DeviceGraph's out-edges, built on first use and kept with the graph."""
    layouts = dg.derived.setdefault("blocked_push", {})
    if width not in layouts:
        layouts[width] = blocked_push(dg.offsets, dg.indices, dg.n, width)
    return layouts[width]


def _segment(offsets, others, n, width):
    """A CSR's entries regrouped by (block of the entry, row): the rows of block 0, then of block 1, ...
    Returns (blocks, row offsets, the entries' order, block * n + vertex of each row, ascending)."""
    xp = _module(offsets)
    if width < 1:
        raise ValueError(f"the block width must be at least 1 vertex, not {width}")
    nnz = int(others.size)
    blocks = max(1, -(-n // width))
    if nnz and blocks * n >= 2**62:
        raise ValueError(f"{blocks} blocks of {n} vertices overflow the 64-bit sort keys")
    key = (others.astype(xp.int64) // width) * n + entry_rows(offsets, nnz)  # (block, row)
    order = xp.argsort(key, kind="stable")  # stable: entries stay sorted inside a row
    key = key[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(min(nnz, 1), bool), key[1:] != key[:-1]]))
    row_offsets = xp.concatenate([starts, xp.array([nnz], dtype=starts.dtype)]).astype(xp.int64)
    return blocks, row_offsets, order, key[starts]
