"""The staged layout's parts computed a group of blocks at a time (pairs, end bits, the gather's
chunks, each block's runs into the tiles) and the merge's work cut from the runs of every block
(:func:`gravel.layouts.staged.staged_pull` puts them together).

Every function works with the array module of its inputs (CuPy on the device, NumPy for tests).
"""

from ..arrays import xp
from ._segments import cut, tile_runs

#: pairs whose end bits are set at once (bounding the temporaries: 28 bytes a pair)
BIT_SLICE = 1 << 24


def pair_starts(key, e0, span):
    """The first edge of each pair of a group of blocks whose edges begin at edge e0, sorted by
    their (block, destination) keys: where the key changes or a span begins."""
    m = xp(key)
    change = m.empty(key.size, bool)
    change[:1] = True
    m.not_equal(key[1:], key[:-1], out=change[1:])
    change[-e0 % span :: span] = True  # the edges e0 + k that begin a span
    starts = m.flatnonzero(change)
    starts += e0
    return starts


def group_part(key, pair_start, bits, group, pair_base, n, tile, most, span):
    """The layout's arrays for one group of blocks (b0, b1, e0, e1) whose sorted keys and first
    edges of pairs are given, its pairs numbered from `pair_base`: (the pairs' targets, the pair
    beginning each span that begins in the group, the gather's chunk starts and their blocks, where
    each block's run into each tile begins); its pairs' end bits are added to `bits`. `key` is
    used up (where each edge is its own pair, its keys become the targets in place)."""
    m = xp(key)
    b0, b1, e0, e1 = group
    starts = _chunk_starts(key, b0, b1, e0, e1, n, most, span)
    chunk_block = (key[starts - e0] // n).astype(m.int32)
    first_span = m.arange(-(-e0 // span), -(-e1 // span), dtype=m.int64) * span
    span_pair = m.searchsorted(pair_start, first_span) + pair_base
    _add_end_bits(pair_start, e0, e1, bits)
    if pair_start.size == key.size:
        pair_key = key  # each edge its own pair
    else:
        pair_start -= e0  # in place, the pairs' positions in the group, and back
        pair_key = key[pair_start]
        pair_start += e0
    runs = tile_runs(pair_key, b1 - b0, n, tile, first_block=b0)[1] + pair_base
    pair_key %= n
    pair_key %= tile
    return pair_key.astype(m.uint16), span_pair, starts, chunk_block, runs


def _add_end_bits(pair_start, e0, e1, bits):
    """Set the bit of each pair's last edge in `bits` (uint32 words held as float64 sums: the bits
    of one word are distinct, so their sum is their OR), BIT_SLICE pairs at a time."""
    m = xp(pair_start)
    word = e0 >> 5
    if pair_start.size:  # the group's last pair ends with it
        bits[(e1 - 1) >> 5] += float(1 << ((e1 - 1) & 31))
    for s in range(0, pair_start.size - 1, BIT_SLICE):
        last = pair_start[s + 1 : s + BIT_SLICE + 1] - 1
        index = last >> 5
        index -= word
        last &= 31
        weight = m.ldexp(1.0, last.astype(m.int32))
        del last
        words = m.bincount(index, weights=weight)
        bits[word : word + words.size] += words


def _chunk_starts(key, b0, b1, e0, e1, n, most, span):
    """The gather's chunks in blocks b0 to b1 (edges e0 to e1, sorted by their keys): each block's
    edges cut into even runs of at most `most`, each cut but a block's first moved on to the next
    span within its block, empties dropped."""
    m = xp(key)
    block_edges = m.searchsorted(key, m.arange(b0, b1 + 1, dtype=m.int64) * n) + e0
    chunk_block, cuts, _ = cut(block_edges[:-1], block_edges[1:], most)
    first = cuts == block_edges[chunk_block]
    cuts = m.where(first, cuts, m.minimum(-(-cuts // span) * span, block_edges[chunk_block + 1]))
    starts = m.unique(cuts)
    return starts[starts < e1]


def pieces(runs, blocks, tiles, segment, piece):
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
