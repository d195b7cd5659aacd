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
from ._segments import cut, segment_edges, tile_runs

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
    blocks, nnz, order, key = segment_edges(in_offsets, in_sources, n, width)
    spans = -(-nnz // span)
    local = m.zeros(spans * span, m.uint16)  # whole spans: a lane loads its edges' ids at once
    local[:nnz] = in_sources[order] % width
    del order
    pair_start = _pair_starts(
        key, nnz, span, STAGED_PAIRS_SHARE if pairs_share is None else pairs_share
    )
    pair_key = key[pair_start]
    last = m.concatenate([pair_start[1:] - 1, m.full(min(nnz, 1), nnz - 1, m.int64)])
    # bit e of word e // 32 is edge e's; the bits of one word are distinct, so their sum is their OR
    bits = m.bincount(
        last >> 5,
        weights=m.left_shift(m.ones_like(last), last & 31).astype(m.float64),
        minlength=spans * span // 32,
    )
    starts = _chunk_starts(key, blocks, n, nnz, chunk * width, span)
    tiles, runs = tile_runs(pair_key, blocks, n, tile)
    seg_start, seg_end, piece_first, piece_tile, tile_pieces = _pieces(
        runs, blocks, tiles, segment, piece
    )
    return StagedPull(
        n=n,
        width=int(width),
        blocks=blocks,
        edges=nnz,
        span=int(span),
        local=local,
        ends=bits.astype(m.int64).astype(m.uint32),
        span_pair=m.searchsorted(pair_start, m.arange(spans, dtype=m.int64) * span),
        chunk_edges=m.concatenate([starts, m.array([nnz], m.int64)]),
        chunk_block=(key[starts] // n).astype(m.int32),
        target=(pair_key % n % tile).astype(m.uint16),
        tile=int(tile),
        tiles=tiles,
        seg_start=seg_start,
        seg_end=seg_end,
        piece_first=piece_first,
        piece_tile=piece_tile,
        tile_pieces=tile_pieces,
    )


def _pair_starts(key, nnz, span, pairs_share):
    """The first edge of each pair: where the (block, destination) key changes or a span begins;
    every edge where that would make more than `pairs_share` pairs an edge."""
    m = xp(key)
    e = m.arange(1, nnz, dtype=m.int64)
    change = (key[1:] != key[:-1]) | (e % span == 0)
    start = m.flatnonzero(m.concatenate([m.ones(min(nnz, 1), bool), change]))
    return m.arange(nnz, dtype=m.int64) if start.size > pairs_share * nnz else start


def _chunk_starts(key, blocks, n, nnz, most, span):
    """The gather's chunks: each block's edges cut into even runs of at most `most`, each cut but a
    block's first moved on to the next span within its block, empties dropped."""
    m = xp(key)
    block_edges = m.searchsorted(key, m.arange(blocks + 1, dtype=m.int64) * n)
    chunk_block, cuts, _ = cut(block_edges[:-1], block_edges[1:], most)
    first = cuts == block_edges[chunk_block]
    cuts = m.where(first, cuts, m.minimum(-(-cuts // span) * span, block_edges[chunk_block + 1]))
    starts = m.unique(cuts)
    return starts[starts < nnz]


def _pieces(runs, blocks, tiles, segment, piece):
    """The merge's work from each block's run of pairs into each tile (`runs`, block-major):
    segments of at most `segment` pairs, tile-major, and pieces of a tile's segments, a new one each
    time `piece` more pairs have begun. Returns (seg_start, seg_end, piece_first, piece_tile,
    tile_pieces)."""
    m = xp(runs)
    runs = runs.reshape(blocks, tiles + 1)
    run_start, run_end = runs[:, :-1].T.ravel(), runs[:, 1:].T.ravel()  # tile-major: t * blocks + b
    seg_run, seg_start, seg_end = cut(run_start, run_end, segment)
    seg_tile = seg_run // blocks
    length = seg_end - seg_start
    begun = m.cumsum(length) - length
    every = m.arange(tiles, dtype=m.int64)
    head, tail = m.searchsorted(seg_tile, every), m.searchsorted(seg_tile, every, side="right") - 1
    nth = (begun - m.concatenate([begun, m.zeros(1, m.int64)])[head][seg_tile]) // piece
    tile_pieces = m.where(tail >= head, m.concatenate([nth, m.zeros(1, m.int64)])[tail] + 1, 1)
    tile_end = m.cumsum(tile_pieces)  # each tile's pieces end there
    seg_piece = (tile_end - tile_pieces)[seg_tile] + nth
    piece_tile = m.searchsorted(tile_end, m.arange(int(tile_end[-1]), dtype=m.int64), side="right")
    piece_first = m.searchsorted(seg_piece, m.arange(piece_tile.size + 1, dtype=m.int64))
    return seg_start, seg_end, piece_first, piece_tile.astype(m.int32), tile_pieces.astype(m.int32)


#: device bytes per edge a staged layout's build needs at its peak (the blocked layout's needs less)
BUILD_BYTES_PER_EDGE = 48


def staged_weights(dg, L):
    """The in-arcs' weights (1 where the graph has none) in the edge order of `L`, the staged
    layout of the DeviceGraph `dg`, padded as its ids are: what the gather combines with x[u].
    Built on first use (the layout's edge order sorted out once more) and kept with the graph.

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
        The build's BUILD_BYTES_PER_EDGE (48) bytes an edge do not fit in free device memory.
    """
    from ..backends.cuda import runtime

    def build():
        runtime.check_fits(
            BUILD_BYTES_PER_EDGE * dg.nnz, f"the staged weights of {dg.nnz:,} in-arcs"
        )
        offsets, sources, weights = dg.csc()
        m = xp(offsets)
        out = m.zeros(L.local.size, m.float32)
        if weights is None:
            out[: L.edges] = 1
        else:
            out[: L.edges] = weights[segment_edges(offsets, sources, dg.n, L.width)[2]]
        return out

    return dg.cached(("staged_weights", L.width, L.local.size), build)


def staged_layout(dg, width, tile):
    """The staged layout of a DeviceGraph's in-edges, built on first use and kept with the graph.

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
        The build's BUILD_BYTES_PER_EDGE (48) bytes an edge do not fit in free device memory.
    ValueError
        `width` or `tile` outside 1 to STAGED_MAX (:func:`staged_pull`).
    """
    from ..backends.cuda import runtime

    def build():
        # transient: the int64 sort keys, their order and sorted copy, the sources in that order (28
        # bytes an edge), then with the sorted keys the pairs' first edges, keys and last edges (8
        # bytes each, at most one pair an edge)
        runtime.check_fits(
            BUILD_BYTES_PER_EDGE * dg.nnz, f"the staged layout of {dg.nnz:,} in-edges"
        )
        offsets, sources, _ = dg.csc()
        return staged_pull(offsets, sources, dg.n, width, tile=tile)

    return dg.cached(("staged_pull", width, tile), build)
