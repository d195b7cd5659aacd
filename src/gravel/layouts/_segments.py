"""Regrouping a CSR's entries by (block of the entry, row), the step every blocked layout shares.

Every function works with the array module of its inputs (CuPy on the device, NumPy for tests).
"""

import numpy as np

from ..arrays import entry_rows, xp


def segment_edges(offsets, others, n, width):
    """A CSR's entries sorted by (block of the entry, row), stable. Returns (blocks, nnz, the
    entries' order, their keys block * n + row, ascending)."""
    m = xp(offsets)
    if width < 1:
        raise ValueError(f"the block width must be at least 1 vertex, not {width}")
    nnz = int(others.size)
    blocks = max(1, -(-n // width))
    if nnz and blocks * n >= 2**62:
        raise ValueError(f"{blocks} blocks of {n} vertices overflow the 64-bit sort keys")
    # the entries are in row order already: a stable sort by block alone, on the narrowest key
    # that holds it (a radix sort's passes go by the key's bytes), keeps each block's rows in order;
    # a width past n is one block (and past int32 would not divide int32 ids)
    block = (others // min(width, max(n, 1))).astype(np.min_scalar_type(blocks - 1))
    order = m.argsort(block, kind="stable")
    key = block[order].astype(m.int64) * n + entry_rows(offsets, nnz)[order]  # (block, row)
    return blocks, nnz, order, key


def segment(offsets, others, n, width):
    """A CSR's entries regrouped by (block of the entry, row): the rows of block 0, then of block 1,
    ... Returns (blocks, row offsets, the entries' order, block * n + vertex of each row,
    ascending)."""
    m = xp(offsets)
    blocks, nnz, order, key = segment_edges(offsets, others, n, width)
    starts = m.flatnonzero(m.concatenate([m.ones(min(nnz, 1), bool), key[1:] != key[:-1]]))
    row_offsets = m.concatenate([starts, m.array([nnz], dtype=starts.dtype)]).astype(m.int64)
    return blocks, row_offsets, order, key[starts]


def tile_runs(keys, blocks, n, tile):
    """(tiles, where each block's run into each tile begins among `keys`, ascending block * n +
    vertex): entry b * (tiles + 1) + t is the first key of block b whose vertex is t * tile or
    more."""
    m = xp(keys)
    tiles = -(-n // tile)
    first = m.minimum(m.arange(tiles + 1, dtype=m.int64) * tile, n)
    return tiles, m.searchsorted(
        keys, (m.arange(blocks, dtype=m.int64)[:, None] * n + first[None, :]).ravel()
    )


def cut(starts, ends, most):
    """Cut each range [starts[i], ends[i]) (empty ones dropped) into as few runs of at most `most`
    as can be, as even as whole entries allow. Returns (the range of each run, its start, its end),
    in order."""
    m = xp(starts)
    size = (ends - starts).astype(m.int64)
    count = -(-size // most)
    total = m.cumsum(count)
    of = m.searchsorted(
        total, m.arange(int(total[-1]) if total.size else 0, dtype=m.int64), side="right"
    )
    nth = m.arange(of.size, dtype=m.int64) - (total - count)[of]
    start = starts[of].astype(m.int64)
    return of, start + size[of] * nth // count[of], start + size[of] * (nth + 1) // count[of]
