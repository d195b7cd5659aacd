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

A sweep whose value is an array x (value x[u]) can go further: the staged layout cuts the in-edges by
source blocks narrow enough for one block's slice of x to sit in a CTA's shared memory (about 54 K
floats). A gather pass reads each edge's x[u] out of shared memory and reduces the edges of one block
into one destination (a pair, cut where a warp's span of STAGED_SPAN edges ends) to one value, and a
merge pass folds the pairs' values into tiles of destinations with shared-memory atomics: 2 bytes and an
end bit an edge and 10 bytes a pair of coalesced traffic, and no random read of the L2, whose request
rate (one sector per gathered 4-byte value) bounds the sweeps above. Combining costs the gather a scan,
which pays unless nearly every edge is a pair of its own: kron:25 holds 0.48 pairs an edge as generated,
0.17 degree-sorted, urand:24 0.95. Above STAGED_PAIRS_SHARE each edge is its own pair and the gather
copies (12 bytes an edge). The width comes from the card's shared memory per block, the tile from 16-bit
local ids.

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
#: 0.56 of the L2, 2.43 ms plain, 2.70 blocked, 1.67 staged; kron:22's 17 MB, 0.28 of it, one sweep
#: 1.07 ms plain and 0.93 staged as given, but 0.73 and 0.86 degree-sorted: kept plain;
#: benchmarks/results/2026-11-26-h200-session5-run{4,6}-*)
AUTO_L2_SHARE = 0.5
#: vertices per merge tile: its accumulators live in shared memory (8 KB of float)
MERGE_TILE = 2048
#: a graph whose first 1/HUB_FRONT_PART of the ids source over HUB_FRONT_SHARE of the edges has its
#: hubs in front (degree-sorted kron: about 0.8; as generated, uniform graphs and grids: about 0.06)
HUB_FRONT_PART, HUB_FRONT_SHARE = 16, 0.25
#: the staged layout's local ids (sources in a block, destinations in a tile) are 16-bit
STAGED_MAX = 2**16
#: bytes of accumulators a staged merge tile keeps in shared memory (4,096 floats: several CTAs per SM)
STAGED_TILE_BYTES = 16 * 1024
#: the staged merge's work: a warp takes segments of up to STAGED_SEGMENT pairs of one block's run into
#: a tile; a CTA takes a piece of up to STAGED_PIECE pairs of one tile (a hub tile is cut into several,
#: which fold their sums through the device memory)
STAGED_SEGMENT, STAGED_PIECE = 4096, 131072
#: edges a warp of the staged gather takes at once (16 a lane): pairs are cut at multiples of it, so
#: each warp's span begins a pair and reduces its own without waiting on another
STAGED_SPAN = 512
#: pair values a warp of the staged gather collects in shared memory before writing them side by side
#: (32 warps: 16 KB of floats beside the slice)
STAGED_STAGE = 128
#: pairs per edge above which the staged layout keeps each edge its own pair and the gather copies
#: values instead of combining them. A sweep combining / copying, H200, session 8 runs 3 and 4 (one
#: warm machine): kron:23 0.93 / 1.54 ms (0.33 pairs an edge), kron:24 2.03 / 3.01 (0.41), kron:25
#: 4.38 / 6.20 and 4.51 / 6.36 (0.48), urand:24 3.36 / 3.14 (0.95): the two meet near 0.85
STAGED_PAIRS_SHARE = 0.8
#: edges per CTA of the staged gather, in block widths: a CTA copies its block's slice (4 bytes a
#: vertex) once for this many times as many edges (2 to 6 bytes each); kron:25 (H200, session 7): 8 as
#: fast as 16 and 3-6 % faster than 4 or 32
STAGED_CHUNK = 8


def block_width(bytes_per_vertex=4, *, l2_bytes=None, fraction=L2_FRACTION):
    """Vertices per block: `fraction` of the L2 (the running card's unless given) over the bytes of
    vertex data each gathered vertex brings."""
    if l2_bytes is None:
        from .backends.cuda import runtime

        l2_bytes = runtime.props().l2_bytes
    return max(1, int(fraction * l2_bytes) // int(bytes_per_vertex))


def shared_width(bytes_per_vertex=4, *, smem_bytes=None):
    """Vertices per block of the staged layout: the values one CTA can hold in shared memory (the
    running card's opt-in maximum per block unless given) beside the stages of the gather's warps (32:
    operators.STAGED_GATHER_BLOCK, a CTA's most), at most STAGED_MAX."""
    if smem_bytes is None:
        from .backends.cuda import runtime

        smem_bytes = runtime.props().smem_optin
    return max(1, min(STAGED_MAX, int(smem_bytes) // int(bytes_per_vertex) - 32 * STAGED_STAGE))


def stages(width, bytes_per_vertex=4):
    """Does a pull over a value array, blocked by `width` vertices (None: not blocked), stage each
    block's values in shared memory? Widths up to :func:`shared_width` do; wider ones read the L2."""
    return width is not None and width <= shared_width(bytes_per_vertex)


def resolve_width(blocking, dg, bytes_per_vertex=4, *, staged=False):
    """The block width a ``blocking=`` argument asks for (None, "auto" or an int of vertices) for the
    DeviceGraph `dg`, or None where no blocking is wanted. "auto" blocks where the vertex data
    outgrows AUTO_L2_SHARE of the L2: for a sweep that can stage its values (`staged`, a value array),
    by :func:`shared_width`; else by :func:`block_width`, unless the hubs come first
    (:func:`hub_front`): there the plain sweep's gathers already hit (degree-sorted kron:25 on an
    H200: 9.6 ms plain, 17.1 blocked)."""
    if blocking is None:
        return None
    if blocking == "auto":
        from .backends.cuda import runtime

        if dg.n * bytes_per_vertex <= AUTO_L2_SHARE * runtime.props().l2_bytes:
            return None
        if staged:
            return shared_width(bytes_per_vertex)
        return None if hub_front(dg) else block_width(bytes_per_vertex)
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


@dataclass
class StagedPull:
    """In-edges blocked by source range (block-major, destinations ascending inside a block), for the
    staged sweep, whose gather combines the edges of one block into one destination (a *pair*, cut
    where a span of `span` edges ends) to one value per pair, or keeps each edge its own pair where
    few edges share one. ``local[e]`` is edge e's source less its block's first vertex (uint16), bit e
    of ``ends`` (uint32 words) marks the last edge of its pair (both padded to whole spans),
    ``span_pair[k]`` is the pair that begins span k (at edge k * span), and ``target[p]`` is pair p's
    destination less its tile's first vertex (uint16). The gather's CTAs take chunks: edges
    ``chunk_edges[c]`` to ``chunk_edges[c + 1]``, all in block ``chunk_block[c]``, beginning at a
    block's first edge or a span's. The merge's CTAs take pieces: piece p is segments
    ``piece_first[p]`` to ``piece_first[p + 1]``, all into tile ``piece_tile[p]``, which has
    ``tile_pieces[t]`` pieces (at least one); segment s is pairs ``seg_start[s]`` to ``seg_end[s]`` of
    one block's run into that tile.
    """

    n: int
    width: int
    blocks: int
    edges: int
    span: int
    local: object
    ends: object
    span_pair: object
    chunk_edges: object
    chunk_block: object
    target: object
    tile: int
    tiles: int
    seg_start: object
    seg_end: object
    piece_first: object
    piece_tile: object
    tile_pieces: object

    @property
    def pairs(self):
        return self.target.size

    @property
    def pieces(self):
        return self.piece_tile.size


def blocked_pull(in_offsets, in_sources, n, width, weights=None, *, tile=MERGE_TILE):
    """The blocked layout of the in-edges given as a CSR over destinations (in_offsets, in_sources,
    and their weights if any)."""
    xp = _module(in_offsets)
    blocks, offsets, order, row_key = _segment(in_offsets, in_sources, n, width)
    tiles, tile_rows = _tile_runs(row_key, blocks, n, tile)
    return BlockedPull(n=n, width=int(width), blocks=blocks, offsets=offsets, sources=in_sources[order],
                       weights=None if weights is None else weights[order],
                       row_vertex=(row_key % n).astype(xp.int32), tile=int(tile), tiles=tiles,
                       tile_rows=tile_rows.astype(xp.int64))


def blocked_push(out_offsets, out_targets, n, width):
    """The blocked layout of the out-edges given as a CSR over sources (out_offsets, out_targets)."""
    blocks, offsets, order, row_key = _segment(out_offsets, out_targets, n, width)
    return BlockedPush(n=n, width=int(width), blocks=blocks, offsets=offsets, targets=out_targets[order],
                       row_vertex=(row_key % n).astype(_module(row_key).int32))


def staged_pull(in_offsets, in_sources, n, width, *, tile=STAGED_TILE_BYTES // 4, chunk=STAGED_CHUNK,
                segment=STAGED_SEGMENT, piece=STAGED_PIECE, span=STAGED_SPAN, pairs_share=None):
    """The staged layout of the in-edges given as a CSR over destinations (in_offsets, in_sources):
    blocks of `width` sources, tiles of `tile` destinations, pairs cut at spans of `span` edges (a
    multiple of 32), gather chunks of about `chunk` * width edges (a block's edges cut into equal runs,
    each cut moved on to the next span), merge segments of up to `segment` pairs (a block's run of
    pairs into a tile cut likewise) and pieces of whole segments of one tile, a new one each time
    `piece` more pairs have begun. Where the pairs outnumber `pairs_share` (default
    STAGED_PAIRS_SHARE) of the edges, each edge is its own pair."""
    xp = _module(in_offsets)
    for name, size in (("block width", width), ("tile", tile)):
        if not 1 <= size <= STAGED_MAX:
            raise ValueError(f"the staged layout's {name} must be 1 to {STAGED_MAX} vertices, not {size}")
    if not 1 <= segment <= piece:
        raise ValueError(f"merge segments ({segment}) must be 1 to `piece` ({piece}) pairs")
    if span < 32 or span % 32:
        raise ValueError(f"the gather's span must be a positive multiple of 32 edges, not {span}")
    blocks, nnz, order, key = _segment_edges(in_offsets, in_sources, n, width)
    spans = -(-nnz // span)
    local = xp.zeros(spans * span, xp.uint16)  # whole spans: a lane loads its edges' ids at once
    local[:nnz] = in_sources[order] % width
    del order
    e = xp.arange(1, nnz, dtype=xp.int64)
    pair_start = xp.flatnonzero(xp.concatenate([xp.ones(min(nnz, 1), bool), (key[1:] != key[:-1]) | (e % span == 0)]))
    del e
    if pair_start.size > (STAGED_PAIRS_SHARE if pairs_share is None else pairs_share) * nnz:
        pair_start = xp.arange(nnz, dtype=xp.int64)
    pair_key = key[pair_start]
    last = xp.concatenate([pair_start[1:] - 1, xp.full(min(nnz, 1), nnz - 1, xp.int64)])
    # bit e of word e // 32 is edge e's; the bits of one word are distinct, so their sum is their OR
    bits = xp.bincount(last >> 5, weights=xp.left_shift(xp.ones_like(last), last & 31).astype(xp.float64),
                       minlength=spans * span // 32)
    block_edges = xp.searchsorted(key, xp.arange(blocks + 1, dtype=xp.int64) * n)
    chunk_block, cuts, _ = _cut(block_edges[:-1], block_edges[1:], chunk * width, xp)
    # each cut but a block's first moved on to the next span, within its block; empties dropped
    first = cuts == block_edges[chunk_block]
    cuts = xp.where(first, cuts, xp.minimum(-(-cuts // span) * span, block_edges[chunk_block + 1]))
    starts = xp.unique(cuts)
    starts = starts[starts < nnz]
    tiles, runs = _tile_runs(pair_key, blocks, n, tile)
    runs = runs.reshape(blocks, tiles + 1)
    run_start, run_end = runs[:, :-1].T.ravel(), runs[:, 1:].T.ravel()  # tile-major: t * blocks + b
    seg_run, seg_start, seg_end = _cut(run_start, run_end, segment, xp)
    seg_tile = seg_run // blocks
    # pieces: a tile's segments in order, a new piece each time `piece` more pairs have begun
    length = seg_end - seg_start
    begun = xp.cumsum(length) - length
    every = xp.arange(tiles, dtype=xp.int64)
    head, tail = xp.searchsorted(seg_tile, every), xp.searchsorted(seg_tile, every, side="right") - 1
    nth = (begun - xp.concatenate([begun, xp.zeros(1, xp.int64)])[head][seg_tile]) // piece
    tile_pieces = xp.where(tail >= head, xp.concatenate([nth, xp.zeros(1, xp.int64)])[tail] + 1, 1)
    tile_end = xp.cumsum(tile_pieces)  # each tile's pieces end there
    seg_piece = (tile_end - tile_pieces)[seg_tile] + nth
    piece_tile = xp.searchsorted(tile_end, xp.arange(int(tile_end[-1]), dtype=xp.int64), side="right")
    return StagedPull(n=n, width=int(width), blocks=blocks, edges=nnz, span=int(span), local=local,
                      ends=bits.astype(xp.int64).astype(xp.uint32),
                      span_pair=xp.searchsorted(pair_start, xp.arange(spans, dtype=xp.int64) * span),
                      chunk_edges=xp.concatenate([starts, xp.array([nnz], xp.int64)]),
                      chunk_block=(key[starts] // n).astype(xp.int32),
                      target=(pair_key % n % tile).astype(xp.uint16), tile=int(tile), tiles=tiles,
                      seg_start=seg_start, seg_end=seg_end,
                      piece_first=xp.searchsorted(seg_piece, xp.arange(piece_tile.size + 1, dtype=xp.int64)),
                      piece_tile=piece_tile.astype(xp.int32), tile_pieces=tile_pieces.astype(xp.int32))


def _tile_runs(keys, blocks, n, tile):
    """(tiles, where each block's run into each tile begins among `keys`, ascending block * n +
    vertex): entry b * (tiles + 1) + t is the first key of block b whose vertex is t * tile or more."""
    xp = _module(keys)
    tiles = -(-n // tile)
    first = xp.minimum(xp.arange(tiles + 1, dtype=xp.int64) * tile, n)
    return tiles, xp.searchsorted(keys, (xp.arange(blocks, dtype=xp.int64)[:, None] * n + first[None, :]).ravel())


def _cut(starts, ends, most, xp):
    """Cut each range [starts[i], ends[i]) (empty ones dropped) into as few runs of at most `most` as
    can be, as even as whole entries allow. Returns (the range of each run, its start, its end), in
    order."""
    size = (ends - starts).astype(xp.int64)
    count = -(-size // most)
    total = xp.cumsum(count)
    of = xp.searchsorted(total, xp.arange(int(total[-1]) if total.size else 0, dtype=xp.int64), side="right")
    nth = xp.arange(of.size, dtype=xp.int64) - (total - count)[of]
    start = starts[of].astype(xp.int64)
    return of, start + size[of] * nth // count[of], start + size[of] * (nth + 1) // count[of]


def pull_layout(dg, width):
    """The blocked pull layout of a DeviceGraph's in-edges, built on first use and kept with the graph."""
    layouts = dg.derived.setdefault("blocked_pull", {})
    if width not in layouts:
        offsets, sources, weights = dg.csc()
        layouts[width] = blocked_pull(offsets, sources, dg.n, width, weights)
    return layouts[width]


def staged_layout(dg, width, tile):
    """The staged layout of a DeviceGraph's in-edges, built on first use and kept with the graph."""
    from .backends.cuda import runtime

    layouts = dg.derived.setdefault("staged_pull", {})
    if (width, tile) not in layouts:
        # transient: the int64 sort keys, their order and sorted copy, the sources in that order (28
        # bytes an edge), then with the sorted keys the pairs' first edges, keys and last edges (8 bytes
        # each, at most one pair an edge)
        runtime.check_fits(48 * dg.nnz, f"the staged layout of {dg.nnz:,} in-edges")
        offsets, sources, _ = dg.csc()
        layouts[(width, tile)] = staged_pull(offsets, sources, dg.n, width, tile=tile)
    return layouts[(width, tile)]


def push_layout(dg, width):
    """The blocked push layout of a DeviceGraph's out-edges, built on first use and kept with the graph."""
    layouts = dg.derived.setdefault("blocked_push", {})
    if width not in layouts:
        layouts[width] = blocked_push(dg.offsets, dg.indices, dg.n, width)
    return layouts[width]


def _segment_edges(offsets, others, n, width):
    """A CSR's entries sorted by (block of the entry, row), stable. Returns (blocks, nnz, the entries'
    order, their keys block * n + row, ascending)."""
    xp = _module(offsets)
    if width < 1:
        raise ValueError(f"the block width must be at least 1 vertex, not {width}")
    nnz = int(others.size)
    blocks = max(1, -(-n // width))
    if nnz and blocks * n >= 2**62:
        raise ValueError(f"{blocks} blocks of {n} vertices overflow the 64-bit sort keys")
    key = (others.astype(xp.int64) // width) * n + entry_rows(offsets, nnz)  # (block, row)
    order = xp.argsort(key, kind="stable")  # stable: entries stay sorted inside a row
    return blocks, nnz, order, key[order]


def _segment(offsets, others, n, width):
    """A CSR's entries regrouped by (block of the entry, row): the rows of block 0, then of block 1, ...
    Returns (blocks, row offsets, the entries' order, block * n + vertex of each row, ascending)."""
    xp = _module(offsets)
    blocks, nnz, order, key = _segment_edges(offsets, others, n, width)
    starts = xp.flatnonzero(xp.concatenate([xp.ones(min(nnz, 1), bool), key[1:] != key[:-1]]))
    row_offsets = xp.concatenate([starts, xp.array([nnz], dtype=starts.dtype)]).astype(xp.int64)
    return blocks, row_offsets, order, key[starts]
