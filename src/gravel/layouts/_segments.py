"""Regrouping a CSR's entries by (block of the entry, row), the step every blocked layout shares.

Every function works with the array module of its inputs (CuPy on the device, NumPy for tests).
"""

import numpy as np

from ..arrays import entry_rows, host, xp

#: entries a pass over a CSR's targets takes at once where it picks out a group's (bounding the
#: temporaries of its test and compaction)
SCAN_ENTRIES = 1 << 26


def segment_edges(offsets, others, n, width):
    """A CSR's entries sorted by (block of the entry, row), stable. Returns (blocks, nnz, the
    entries' order, their keys block * n + row, ascending)."""
    blocks = _blocks(others, n, width)
    order, key = segment_group(offsets, others, n, width, 0, blocks)
    return blocks, int(others.size), order, key


def _blocks(others, n, width):
    if width < 1:
        raise ValueError(f"the block width must be at least 1 vertex, not {width}")
    blocks = max(1, -(-n // width))
    if others.size and blocks * n >= 2**62:
        raise ValueError(f"{blocks} blocks of {n} vertices overflow the 64-bit sort keys")
    return blocks


def block_counts(others, n, width):
    """The entries of each block of a CSR's targets (a NumPy array), counted SCAN_ENTRIES at a
    time."""
    m = xp(others)
    blocks = _blocks(others, n, width)
    w = min(width, max(n, 1))
    counts = np.zeros(blocks, np.int64)
    for s in range(0, others.size, SCAN_ENTRIES):
        counts += host(m.bincount(others[s : s + SCAN_ENTRIES] // w, minlength=blocks))
    return counts


def block_groups(others, n, width, most=None):
    """Runs of whole blocks holding at most `most` entries each (a block with more is a run alone;
    None: one run of every block), in block order. Returns a list of (first block, block past the
    last, first entry, entry past the last), the entries counted in (block, row) order."""
    blocks = _blocks(others, n, width)
    if most is None or most >= others.size:
        return [(0, blocks, 0, int(others.size))]
    ends = np.cumsum(block_counts(others, n, width))
    groups, b0, e0 = [], 0, 0
    while b0 < blocks:
        # the blocks that end within `most` entries of the group's start, at least one
        b1 = max(int(np.searchsorted(ends, e0 + most, "right")), b0 + 1)
        groups.append((b0, b1, e0, int(ends[b1 - 1])))
        b0, e0 = b1, int(ends[b1 - 1])
    return groups


def segment_group(offsets, others, n, width, b0, b1):
    """The entries of blocks b0 to b1 (excluded) of a CSR, sorted by (block of the entry, row),
    stable. Returns (their positions among the entries, int64; their keys block * n + row,
    ascending)."""
    m = xp(offsets)
    nnz = int(others.size)
    w = min(width, max(n, 1))  # a width past n is one block (and past int32 would not divide ids)
    if b0 == 0 and b1 * w >= n:
        picked, rows = None, entry_rows(offsets, nnz)
    else:
        lo, hi = b0 * w, min(b1 * w, n)
        picked = m.concatenate(
            [m.zeros(0, m.int64)]
            + [
                m.flatnonzero((part >= lo) & (part < hi)) + s
                for s in range(0, nnz, SCAN_ENTRIES)
                for part in [others[s : s + SCAN_ENTRIES]]
            ]
        )
        rows = m.searchsorted(offsets, picked, side="right") - 1
    # the entries are in row order already: a stable sort by block alone, on the narrowest key
    # that holds it (a radix sort's passes go by the key's bytes), keeps each block's rows in order
    mine = others if picked is None else others[picked]
    block = (mine // w - b0).astype(np.min_scalar_type(max(b1 - b0 - 1, 0)))
    del mine
    order = m.argsort(block, kind="stable")
    # key = block * n + row, in place: a temporary at a time (the build's peak: layouts/staged.py)
    key = block[order].astype(m.int64)
    del block
    key += b0
    key *= n
    key += rows[order]
    del rows
    return (order if picked is None else picked[order]), key


def segment(offsets, others, n, width):
    """A CSR's entries regrouped by (block of the entry, row): the rows of block 0, then of block 1,
    ... Returns (blocks, row offsets, the entries' order, block * n + vertex of each row,
    ascending)."""
    m = xp(offsets)
    blocks, nnz, order, key = segment_edges(offsets, others, n, width)
    starts = m.flatnonzero(m.concatenate([m.ones(min(nnz, 1), bool), key[1:] != key[:-1]]))
    row_offsets = m.concatenate([starts, m.array([nnz], dtype=starts.dtype)]).astype(m.int64)
    return blocks, row_offsets, order, key[starts]


def tile_runs(keys, blocks, n, tile, first_block=0):
    """(tiles, where each block's run into each tile begins among `keys`, ascending block * n +
    vertex, of `blocks` blocks from `first_block` on): entry b * (tiles + 1) + t is the first key
    of block first_block + b whose vertex is t * tile or more."""
    m = xp(keys)
    tiles = -(-n // tile)
    first = m.minimum(m.arange(tiles + 1, dtype=m.int64) * tile, n)
    block = m.arange(first_block, first_block + blocks, dtype=m.int64)
    return tiles, m.searchsorted(keys, (block[:, None] * n + first[None, :]).ravel())


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
