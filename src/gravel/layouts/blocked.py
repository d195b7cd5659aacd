"""GraphCage's cache-blocked layouts (TOCAB): edges cut by the range of their irregular endpoint.

A pull sweep gathers x[u] over every in-edge u -> v; a push sweep scatters into y[v] over every
out-edge. When x or y is larger than the L2, those accesses miss. The blocked layouts cut the edges
by the range of the irregular endpoint (pull: the source; push: the destination) into blocks of
`width` vertices, so that one block's slice of the vertex data fits in a fraction of the L2, and
list each block's regular endpoints that have an edge there as dense local rows (the rows of all
blocks back to back, block after block). Pull: one reduction over those rows, in block order, writes
a partial result per row; the merge then takes the vertices in tiles of BLOCKED_MERGE_TILE: a tile's
rows form one run in each block (rows ascend by vertex inside a block), so a CTA folds each run into
the tile's accumulators in shared memory and writes the tile once, every read and write coalesced.
Push: the rows scatter with atomics that stay inside their block's range.

The layouts are built with the array module of the arrays given (CuPy on the device, NumPy for
tests)."""

from dataclasses import dataclass

from ..arrays import xp
from ._segments import segment, tile_runs

#: share of the L2 a block's vertex data may take (docs/tuning.md)
L2_FRACTION = 0.25
#: vertices per tile of the blocked pull's merge: its accumulators sit in shared memory (8 KB)
BLOCKED_MERGE_TILE = 2048


def block_width(bytes_per_vertex=4, *, l2_bytes=None, fraction=L2_FRACTION):
    """Vertices per block: `fraction` of the L2 (the running card's unless given) over the bytes of
    vertex data each gathered vertex brings.

    Parameters
    ----------
    bytes_per_vertex : int, default 4
        Bytes of vertex data per vertex (4 for a float32 array).
    l2_bytes : int, optional
        The L2's size; None reads the current GPU's (which needs one).
    fraction : float, default L2_FRACTION (0.25)
        Share of the L2 a block's vertex data may take (docs/tuning.md, L2_FRACTION).

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from gravel.layouts import block_width
    >>> block_width(l2_bytes=50 * 2**20)  # a quarter of a 50 MiB L2 in float32 values
    3276800
    """
    if l2_bytes is None:
        from ..backends.cuda import runtime

        l2_bytes = runtime.props().l2_bytes
    return max(1, int(fraction * l2_bytes) // int(bytes_per_vertex))


@dataclass
class BlockedPull:
    """In-edges blocked by source range, as :func:`blocked_pull` builds them.

    ``offsets``/``sources`` (and ``weights``, if given) are a CSR over the rows (one per block and
    destination with an edge in that block, block-major, destinations ascending inside a block);
    ``row_vertex[r]`` is row r's destination. ``tile_rows[b * (tiles + 1) + t]`` is block b's first
    row whose destination is at least ``t * tile``: block b's rows for tile t are ``tile_rows[..t]``
    to ``tile_rows[..t + 1]``. The arrays are NumPy or CuPy arrays, as the builder was given.

    Attributes
    ----------
    n : int
        The graph's vertices.
    width : int
        Sources per block.
    blocks : int
        ``ceil(n / width)``, at least 1.
    offsets : array
        int64 row offsets, :attr:`rows` + 1.
    sources : array
        The edges' sources (int32), row after row.
    weights : array or None
        The edges' weights in the same order, or None.
    row_vertex : array
        int32: each row's destination.
    tile : int
        Destinations per tile of the merge.
    tiles : int
        ``ceil(n / tile)``.
    tile_rows : array
        int64, ``blocks * (tiles + 1)`` entries: where each block's rows for each tile begin.
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
        """The number of rows (int): (block, destination) pairs with an edge."""
        return self.row_vertex.size


@dataclass
class BlockedPush:
    """Out-edges blocked by destination range, as :func:`blocked_push` builds them:
    ``offsets``/``targets`` (and ``weights``, if given) are a CSR over the rows (one per block and
    source with an edge into that block, block-major, sources ascending inside a block);
    ``row_vertex[r]`` is row r's source.

    Attributes
    ----------
    n : int
        The graph's vertices.
    width : int
        Destinations per block.
    blocks : int
        ``ceil(n / width)``, at least 1.
    offsets : array
        int64 row offsets, :attr:`rows` + 1.
    targets : array
        The edges' destinations (int32), row after row.
    weights : array or None
        The edges' weights in the same order, or None.
    row_vertex : array
        int32: each row's source.
    """

    n: int
    width: int
    blocks: int
    offsets: object
    targets: object
    weights: object
    row_vertex: object

    @property
    def rows(self):
        """The number of rows (int): (block, source) pairs with an edge."""
        return self.row_vertex.size


def blocked_pull(in_offsets, in_sources, n, width, weights=None, *, tile=BLOCKED_MERGE_TILE):
    """The blocked layout of the in-edges given as a CSR over destinations (in_offsets, in_sources,
    and their weights if any).

    Parameters
    ----------
    in_offsets : numpy.ndarray or cupy.ndarray
        int64 offsets (n + 1) of the in-edges' CSR; its array module builds the layout.
    in_sources : numpy.ndarray or cupy.ndarray
        int32 source of each in-edge, row by row.
    n : int
        The graph's vertices.
    width : int
        Sources per block (:func:`block_width`).
    weights : numpy.ndarray or cupy.ndarray, optional
        The in-edges' weights, carried into the layout's order.
    tile : int, default BLOCKED_MERGE_TILE (2048)
        Destinations per tile of the merge.

    Returns
    -------
    BlockedPull

    Raises
    ------
    ValueError
        `width` is below 1, or the blocks times n overflow the 64-bit sort keys.

    Examples
    --------
    >>> import gravel
    >>> from gravel.layouts import blocked_pull
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2, 3], [1, 3, 2, 3, 0])
    >>> offsets, sources, _ = G.csc()
    >>> L = blocked_pull(offsets, sources, G.n, 2)  # sources 0-1, then 2-3
    >>> L.blocks, L.row_vertex.tolist(), L.sources.tolist()
    (2, [1, 2, 3, 0, 3], [0, 1, 0, 3, 2])
    """
    m = xp(in_offsets)
    blocks, offsets, order, row_key = segment(in_offsets, in_sources, n, width)
    tiles, tile_rows = tile_runs(row_key, blocks, n, tile)
    return BlockedPull(
        n=n,
        width=int(width),
        blocks=blocks,
        offsets=offsets,
        sources=in_sources[order],
        weights=None if weights is None else weights[order],
        row_vertex=(row_key % n).astype(m.int32),
        tile=int(tile),
        tiles=tiles,
        tile_rows=tile_rows.astype(m.int64),
    )


def blocked_push(out_offsets, out_targets, n, width, weights=None):
    """The blocked layout of the out-edges given as a CSR over sources (out_offsets, out_targets,
    and their weights if any).

    Parameters
    ----------
    out_offsets : numpy.ndarray or cupy.ndarray
        int64 offsets (n + 1) of the out-edges' CSR; its array module builds the layout.
    out_targets : numpy.ndarray or cupy.ndarray
        int32 destination of each out-edge, row by row.
    n : int
        The graph's vertices.
    width : int
        Destinations per block (:func:`block_width`).
    weights : numpy.ndarray or cupy.ndarray, optional
        The out-edges' weights, carried into the layout's order.

    Returns
    -------
    BlockedPush

    Raises
    ------
    ValueError
        `width` is below 1, or the blocks times n overflow the 64-bit sort keys.

    Examples
    --------
    >>> import gravel
    >>> from gravel.layouts import blocked_push
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2, 3], [1, 3, 2, 3, 0])
    >>> L = blocked_push(G.offsets, G.indices, G.n, 2)  # destinations 0-1, then 2-3
    >>> L.row_vertex.tolist(), L.targets.tolist()
    ([0, 3, 0, 1, 2], [1, 0, 3, 2, 3])
    """
    blocks, offsets, order, row_key = segment(out_offsets, out_targets, n, width)
    return BlockedPush(
        n=n,
        width=int(width),
        blocks=blocks,
        offsets=offsets,
        targets=out_targets[order],
        weights=None if weights is None else weights[order],
        row_vertex=(row_key % n).astype(xp(row_key).int32),
    )


def pull_layout(dg, width):
    """The blocked pull layout of a DeviceGraph's in-edges, built on first use and kept with it.

    Parameters
    ----------
    dg : gravel.backends.cuda.graph.DeviceGraph
        The graph on the device; the layout is kept in its cache, one per width.
    width : int
        Sources per block.

    Returns
    -------
    BlockedPull
        Of CuPy arrays, with the in-edges' weights where the graph has them.
    """

    def build():
        offsets, sources, weights = dg.csc()
        return blocked_pull(offsets, sources, dg.n, width, weights)

    return dg.cached(("blocked_pull", width), build)


def push_layout(dg, width):
    """The blocked push layout of a DeviceGraph's out-edges, built on first use and kept with it.

    Parameters
    ----------
    dg : gravel.backends.cuda.graph.DeviceGraph
        The graph on the device; the layout is kept in its cache, one per width.
    width : int
        Destinations per block.

    Returns
    -------
    BlockedPush
        Of CuPy arrays, with the out-edges' weights where the graph has them.
    """
    return dg.cached(
        ("blocked_push", width),
        lambda: blocked_push(dg.offsets, dg.indices, dg.n, width, dg.weights),
    )
