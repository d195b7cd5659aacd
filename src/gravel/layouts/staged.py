"""The staged layout: in-edges blocked narrowly enough for a block's slice of x to sit in shared
memory.

A pull sweep whose value is an array x (value x[u]) cuts the in-edges by source blocks of about 54 K
floats, one CTA's shared memory. A gather pass reads each edge's x[u] out of shared memory and
reduces the edges of one block into one destination (a pair, cut where a warp's span of STAGED_SPAN
edges ends) to one value, and a merge pass folds the pairs' values into tiles of destinations with
shared-memory atomics: 2 bytes and an end bit an edge and 10 bytes a pair of coalesced traffic, and
no random read of the L2. Where nearly every edge is a pair of its own (above STAGED_PAIRS_SHARE
pairs an edge) each edge stays its own pair and the gather copies (12 bytes an edge). The block
width comes from the card's shared memory per block, the tile from 16-bit local ids.

The geometry the kernels share reaches neighbor_reduce/staged.cu as the defines of KERNEL_DEFINES.
"""

from dataclasses import dataclass

from ..arrays import xp
from ._segments import block_counts, block_groups, segment_group
from ._staged_parts import group_part, pair_starts, pieces

#: the staged layout's local ids (sources in a block, destinations in a tile) are 16-bit
STAGED_MAX = 2**16
#: bytes of accumulators a staged merge tile keeps in shared memory (4,096 floats; CTAs share SMs)
STAGED_TILE_BYTES = 16 * 1024
#: the merge's work: a warp takes segments of up to STAGED_SEGMENT pairs of one block's run into a
#: tile; a CTA takes a piece of up to STAGED_PIECE pairs of one tile (a hub tile is cut into
#: several, which fold their sums through the device memory)
STAGED_SEGMENT, STAGED_PIECE = 4096, 131072
#: edges a warp of the gather takes at once (16 a lane, loaded as two 16-byte vectors): pairs are
#: cut at multiples of it, so each warp's span begins a pair and reduces its own, waiting on none
STAGED_SPAN = 512
#: pair values a warp of the gather collects in shared memory before writing them side by side
STAGED_STAGE = 128
#: threads per CTA of the gather: one CTA per SM, its block's slice filling the shared memory
STAGED_GATHER_BLOCK = 1024
#: threads per CTA of the merge: 8 warps sharing a piece's segments, 8 CTAs an SM (docs/tuning.md)
STAGED_MERGE_BLOCK = 256
#: pairs per edge above which each edge stays its own pair and the gather copies (docs/tuning.md)
STAGED_PAIRS_SHARE = 0.8
#: edges per CTA of the gather, in block widths: a CTA copies its block's slice once for this many
#: times as many edges (docs/tuning.md)
STAGED_CHUNK = 8
#: the geometry staged.cu is compiled with
KERNEL_DEFINES = {
    "GRAVEL_STAGED_SPAN": STAGED_SPAN,
    "GRAVEL_STAGED_STAGE": STAGED_STAGE,
    "GRAVEL_STAGED_GATHER_BLOCK": STAGED_GATHER_BLOCK,
    "GRAVEL_STAGED_MERGE_BLOCK": STAGED_MERGE_BLOCK,
}


def shared_width(bytes_per_vertex=4, *, smem_bytes=None):
    """Vertices per block of the staged layout: the values one CTA can hold in shared memory (the
    running card's opt-in maximum per block unless given) beside the stages of the gather's warps,
    at most STAGED_MAX.

    Parameters
    ----------
    bytes_per_vertex : int, default 4
        Bytes of each staged value (4 for float32).
    smem_bytes : int, optional
        Shared memory of one CTA; None reads the current GPU's opt-in maximum (which needs one).

    Returns
    -------
    int
        Between 1 and STAGED_MAX (65,536).

    Examples
    --------
    >>> from gravel.layouts import shared_width
    >>> shared_width(smem_bytes=227 * 1024)  # an H100 or H200: about 54 K floats
    54016
    """
    if smem_bytes is None:
        from ..backends.cuda import runtime

        smem_bytes = runtime.props().smem_optin
    stages = STAGED_GATHER_BLOCK // 32 * STAGED_STAGE
    return max(1, min(STAGED_MAX, int(smem_bytes) // int(bytes_per_vertex) - stages))


@dataclass
class StagedPull:
    """In-edges blocked by source range (block-major, destinations ascending inside a block), for
    the staged sweep, whose gather combines the edges of one block into one destination (a *pair*,
    cut where a span of `span` edges ends) to one value per pair, or keeps each edge its own pair
    where few edges share one. ``local[e]`` is edge e's source less its block's first vertex
    (uint16), bit e of ``ends`` (uint32 words) marks the last edge of its pair (both padded to whole
    spans), ``span_pair[k]`` is the pair that begins span k (at edge k * span), and ``target[p]`` is
    pair p's destination less its tile's first vertex (uint16). The gather's CTAs take chunks: edges
    ``chunk_edges[c]`` to ``chunk_edges[c + 1]``, all in block ``chunk_block[c]``, beginning at a
    block's first edge or a span's. The merge's CTAs take pieces: piece p is segments
    ``piece_first[p]`` to ``piece_first[p + 1]``, all into tile ``piece_tile[p]``, which has
    ``tile_pieces[t]`` pieces (at least one); segment s is pairs ``seg_start[s]`` to ``seg_end[s]``
    of one block's run into that tile. The arrays are NumPy or CuPy arrays, as the builder was
    given.

    Attributes
    ----------
    n : int
        The graph's vertices.
    width : int
        Sources per block.
    blocks : int
        ``ceil(n / width)``, at least 1.
    edges : int
        The in-edges.
    span : int
        Edges per span of the gather (a multiple of 32).
    local : array
        uint16 per edge, padded to whole spans: its source less its block's first vertex.
    ends : array
        uint32 words: bit e marks the last edge of its pair.
    span_pair : array
        int64 per span: the pair that begins it.
    chunk_edges : array
        int64 bounds of the gather's chunks, one more than the chunks.
    chunk_block : array
        int32 per chunk: its block.
    target : array
        uint16 per pair: its destination less its tile's first vertex.
    tile : int
        Destinations per tile of the merge.
    tiles : int
        ``ceil(n / tile)``.
    seg_start, seg_end : array
        int64 per segment of the merge: its first pair and the pair past its last.
    piece_first : array
        int64 bounds of the merge's pieces in segments, one more than the pieces.
    piece_tile : array
        int32 per piece: its tile.
    tile_pieces : array
        int32 per tile: its pieces, at least one.
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
        """The number of pairs (int): each block's runs of edges into one destination, cut at
        spans; the edges where :attr:`copies`."""
        return self.target.size

    @property
    def pieces(self):
        """The number of the merge's pieces (int)."""
        return self.piece_tile.size

    @property
    def copies(self):
        """Is each edge its own pair (the gather copies instead of combining)?"""
        return self.pairs == self.edges


def staged_pull(
    in_offsets,
    in_sources,
    n,
    width,
    *,
    tile=STAGED_TILE_BYTES // 4,
    chunk=STAGED_CHUNK,
    segment=STAGED_SEGMENT,
    piece=STAGED_PIECE,
    span=STAGED_SPAN,
    pairs_share=None,
    group_edges=None,
):
    """The staged layout of the in-edges given as a CSR over destinations (in_offsets, in_sources):
    blocks of `width` sources, tiles of `tile` destinations, pairs cut at spans of `span` edges (a
    multiple of 32), gather chunks of about `chunk` * width edges (a block's edges cut into equal
    runs, each cut moved on to the next span), merge segments of up to `segment` pairs (a block's
    run of pairs into a tile cut likewise) and pieces of whole segments of one tile, a new one each
    time `piece` more pairs have begun. Where the pairs outnumber `pairs_share` (default
    STAGED_PAIRS_SHARE) of the edges, each edge is its own pair.

    Parameters
    ----------
    in_offsets : numpy.ndarray or cupy.ndarray
        int64 offsets (n + 1) of the in-edges' CSR; its array module builds the layout.
    in_sources : numpy.ndarray or cupy.ndarray
        int32 source of each in-edge, row by row.
    n : int
        The graph's vertices.
    width : int
        Sources per block, 1 to STAGED_MAX (:func:`shared_width`).
    tile : int, default STAGED_TILE_BYTES // 4 (4,096)
        Destinations per tile of the merge, 1 to STAGED_MAX.
    chunk : int, default STAGED_CHUNK (8)
        Edges per chunk of the gather, in block widths.
    segment : int, default STAGED_SEGMENT (4,096)
        Most pairs of a merge segment, 1 to `piece`.
    piece : int, default STAGED_PIECE (131,072)
        Pairs after which a tile's next segment begins a new piece.
    span : int, default STAGED_SPAN (512)
        Edges per span of the gather: a positive multiple of 32.
    pairs_share : float, optional
        Pairs per edge above which each edge is its own pair; None is STAGED_PAIRS_SHARE (0.8).
    group_edges : int, optional
        Build the layout a group of whole blocks at a time, each of at most this many edges (a
        block with more is a group alone), so that the build's sort and its temporaries take that
        many edges at once, not all of them; the groups' pairs are counted in a first pass. None
        builds it at once. The layout is the same either way.

    Returns
    -------
    StagedPull

    Raises
    ------
    ValueError
        `width` or `tile` outside 1 to STAGED_MAX, `segment` outside 1 to `piece`, `span` not a
        positive multiple of 32, or the blocks times n overflow the 64-bit sort keys.

    Examples
    --------
    >>> import gravel
    >>> from gravel.layouts import staged_pull
    >>> G = gravel.Graph.from_edges([0, 1, 2, 3], [2, 2, 0, 0])
    >>> offsets, sources, _ = G.csc()
    >>> L = staged_pull(offsets, sources, G.n, 2, tile=2)  # 0, 1 -> 2 and 2, 3 -> 0: two pairs
    >>> L.pairs, L.copies, L.local[: L.edges].tolist(), int(L.ends[0])  # ends: bits 1 and 3
    (2, False, [0, 1, 0, 1], 10)
    """
    m = xp(in_offsets)
    for name, size in (("block width", width), ("tile", tile)):
        if not 1 <= size <= STAGED_MAX:
            raise ValueError(
                f"the staged layout's {name} must be 1 to {STAGED_MAX} vertices, not {size}"
            )
    if not 1 <= segment <= piece:
        raise ValueError(f"merge segments ({segment}) must be 1 to `piece` ({piece}) pairs")
    if span < 32 or span % 32:
        raise ValueError(f"the gather's span must be a positive multiple of 32 edges, not {span}")
    nnz = int(in_sources.size)
    share = STAGED_PAIRS_SHARE if pairs_share is None else pairs_share
    groups = block_groups(in_sources, n, width, group_edges)
    blocks, spans = groups[-1][1], -(-nnz // span)

    copies = None
    if len(groups) > 1:  # each edge its own pair or not: the pairs of every group counted first
        pairs = 0
        for b0, b1, e0, _ in groups:
            key = segment_group(in_offsets, in_sources, n, width, b0, b1)[1]
            pairs += pair_starts(key, e0, span).size
            del key  # before the next group's sort
        copies = pairs > share * nnz
    local = m.zeros(spans * span, m.uint16)  # whole spans: a lane loads its edges' ids at once
    bits = m.zeros(spans * span // 32, m.float64)
    parts, pair_base = [], 0
    for group in groups:
        b0, b1, e0, e1 = group
        order, key = segment_group(in_offsets, in_sources, n, width, b0, b1)
        local[e0:e1] = in_sources[order] % width
        del order
        # the pairs where they may be kept (each edge its own pair needs no search)
        pair_start = None if copies else pair_starts(key, e0, span)
        if copies is None:
            copies = pair_start.size > share * nnz
        if copies:
            pair_start = m.arange(e0, e1, dtype=m.int64)
        parts.append(
            group_part(key, pair_start, bits, group, pair_base, n, tile, chunk * width, span)
        )
        pair_base += pair_start.size
        del key, pair_start  # before the next group's sort
    runs = m.concatenate([p[4] for p in parts])
    tiles = -(-n // tile)
    seg_start, seg_end, piece_first, piece_tile, tile_pieces = pieces(
        runs, blocks, tiles, segment, piece
    )
    starts = m.concatenate([p[2] for p in parts])
    return StagedPull(
        n=n,
        width=int(width),
        blocks=blocks,
        edges=nnz,
        span=int(span),
        local=local,
        ends=bits.astype(m.int64).astype(m.uint32),
        span_pair=m.concatenate([p[1] for p in parts]),
        chunk_edges=m.concatenate([starts, m.array([nnz], m.int64)]),
        chunk_block=m.concatenate([p[3] for p in parts]),
        target=m.concatenate([p[0] for p in parts]),
        tile=int(tile),
        tiles=tiles,
        seg_start=seg_start,
        seg_end=seg_end,
        piece_first=piece_first,
        piece_tile=piece_tile,
        tile_pieces=tile_pieces,
    )


#: device bytes per edge a staged layout's build needs at its peak, of the edges it sorts at once:
#: the sort's (the rows, the block keys, their order, the int64 keys and a temporary; every later
#: step needs less), with room to spare (docs/tuning.md); the blocked layout's build needs less
BUILD_BYTES_PER_EDGE = 48
#: device bytes per edge of the whole graph a build by groups keeps until it ends: the sources'
#: local ids and the pairs' targets (2 bytes each), the end bits' sums, the targets concatenated
KEPT_BYTES_PER_EDGE = 8


def build_group_edges(dg, width):
    """The most in-edges the staged layout's build of width `width` may sort at once in the free
    device memory: None where all of them fit (BUILD_BYTES_PER_EDGE an edge), else the edges of a
    group of whole blocks that fit beside what a build by groups keeps (KEPT_BYTES_PER_EDGE an
    edge of the graph).

    Parameters
    ----------
    dg : gravel.backends.cuda.graph.DeviceGraph
        The graph on the device.
    width : int
        Sources per block.

    Returns
    -------
    int or None
        The `group_edges` of :func:`staged_pull`.

    Raises
    ------
    GraphTooLargeError
        Not even the block with the most in-edges fits beside what the build keeps.
    """
    from ..backends.cuda import runtime

    sources = dg.csc()[1]  # made first where it is not yet: it takes device memory too
    free = runtime.free_bytes()
    if BUILD_BYTES_PER_EDGE * dg.nnz <= free:
        return None
    kept = KEPT_BYTES_PER_EDGE * dg.nnz
    largest = dg.cached(
        ("staged_largest_block", width), lambda: int(block_counts(sources, dg.n, width).max())
    )
    runtime.check_fits(
        kept + BUILD_BYTES_PER_EDGE * largest,
        f"the staged layout of {dg.nnz:,} in-edges (by groups, {largest:,} in its largest block)",
    )
    return max(largest, (free - kept) // BUILD_BYTES_PER_EDGE)


def staged_weights(dg, L):
    """The in-arcs' weights (1 where the graph has none) in the edge order of `L`, the staged
    layout of the DeviceGraph `dg`, padded as its ids are: what the gather combines with x[u].
    Built on first use (the layout's edge order sorted out once more, by groups of blocks where
    the free device memory asks: :func:`build_group_edges`) and kept with the graph.

    Parameters
    ----------
    dg : gravel.backends.cuda.graph.DeviceGraph
        The graph on the device.
    L : StagedPull
        Its staged layout (:func:`staged_layout`).

    Returns
    -------
    cupy.ndarray
        float32, ``L.local.size`` entries: the weight of each edge, 0 in the padding.

    Raises
    ------
    GraphTooLargeError
        From :func:`build_group_edges`.
    """

    def build():
        offsets, sources, weights = dg.csc()
        m = xp(offsets)
        out = m.zeros(L.local.size, m.float32)
        if weights is None:
            out[: L.edges] = 1
            return out
        for b0, b1, e0, e1 in block_groups(sources, dg.n, L.width, build_group_edges(dg, L.width)):
            out[e0:e1] = weights[segment_group(offsets, sources, dg.n, L.width, b0, b1)[0]]
        return out

    return dg.cached(("staged_weights", L.width, L.local.size), build)


def staged_layout(dg, width, tile):
    """The staged layout of a DeviceGraph's in-edges, built on first use (by groups of blocks
    where the free device memory asks: :func:`build_group_edges`) and kept with the graph.

    Parameters
    ----------
    dg : gravel.backends.cuda.graph.DeviceGraph
        The graph on the device; the layout is kept in its cache, one per (width, tile).
    width : int
        Sources per block (:func:`shared_width`).
    tile : int
        Destinations per tile of the merge.

    Returns
    -------
    StagedPull
        Of CuPy arrays.

    Raises
    ------
    GraphTooLargeError
        From :func:`build_group_edges`.
    ValueError
        `width` or `tile` outside 1 to STAGED_MAX (:func:`staged_pull`).
    """

    def build():
        offsets, sources, _ = dg.csc()
        group = build_group_edges(dg, width)
        return staged_pull(offsets, sources, dg.n, width, tile=tile, group_edges=group)

    return dg.cached(("staged_pull", width, tile), build)
