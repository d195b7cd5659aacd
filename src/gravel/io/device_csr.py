"""A CSR built from edge blocks by whole-array operations, with NumPy or CuPy: on the GPU, the
blocks that :func:`gravel.io._parse.read_edges` parsed there become the graph's rows without
leaving the device, by a stable sort of the arcs' (row, column) keys.

The rows are those of :meth:`gravel.Graph.from_edge_blocks` on the same blocks, bit for bit: the
arcs in edge order (an edge's reverse right after it, a loop once), stably sorted by row and
column, so that parallel arcs keep their order; merged (`dedupe`) to the first of their least
weight, a number before NaN.

Device memory at the peak: some 40 bytes an arc (the keys, the sort's order and buffers, the
weights), besides the blocks.
"""

import numpy as np


def _joined(xp, blocks, weighted):
    """The blocks' arrays joined (the list emptied): int64 ids, float32 weights or None."""
    parts = []
    while blocks:
        src, dst, w = blocks.pop(0)
        parts.append((src.astype(xp.int64), dst.astype(xp.int64), w if weighted else None))
    if not parts:
        w = xp.empty(0, xp.float32) if weighted else None
        return xp.empty(0, xp.int64), xp.empty(0, xp.int64), w
    src = xp.concatenate([p[0] for p in parts])
    dst = xp.concatenate([p[1] for p in parts])
    w = xp.concatenate([p[2] for p in parts]).astype(xp.float32) if weighted else None
    return src, dst, w


def _weight_order(xp, w):
    """Sort keys of float32 weights as int32: their order, with -0.0 equal to 0.0 (a tie: the
    first stays first) and every NaN last."""
    bits = xp.where(w == 0, xp.float32(0), w).view(xp.int32)
    keys = bits ^ ((bits >> 31) & xp.int32(0x7FFFFFFF))
    return xp.where(xp.isnan(w), xp.int32(0x7FFFFFFF), keys)


def _stable_order(xp, keys):
    """The order that sorts `keys`, ties in their order (CuPy's sorts are stable, NumPy's when
    asked)."""
    return xp.argsort(keys, kind="stable") if xp is np else xp.argsort(keys)


def build_csr(xp, blocks, n, directed=True, dedupe=False, weighted=False):
    """Sorted CSR of the arcs of `blocks`, on the device of `xp`.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``, the module of the blocks' arrays.
    blocks : list of (src, dst, weights or None)
        Arrays of ids in ``[0, n)`` and float32 weights; emptied.
    n : int
        The vertices.
    directed : bool, default True
        False: each edge is stored both ways (a loop once).
    dedupe : bool, default False
        Merge parallel arcs, keeping the least weight (a number rather than NaN).
    weighted : bool, default False
        Keep the weights.

    Returns
    -------
    offsets : array of int64
        n + 1 row offsets.
    indices : array of int32
        The columns, sorted in each row.
    weights : array of float32 or None
        A weight per arc where `weighted`.
    """
    src, dst, w = _joined(xp, blocks, weighted)
    if not directed:
        both = xp.ones(2 * src.shape[0], bool)
        both[1::2] = src != dst  # a loop is stored once
        src, dst = xp.stack([src, dst], 1).ravel()[both], xp.stack([dst, src], 1).ravel()[both]
        w = None if w is None else xp.repeat(w, 2)[both]
    keys = (src << 32) | dst
    del src, dst
    if dedupe and w is not None:  # by weight first: each key's run then starts at its least
        order = _stable_order(xp, _weight_order(xp, w))
        keys, w = keys[order], w[order]
    if w is None:
        keys = xp.sort(keys)  # equal keys are alike: no order to keep
    else:
        order = _stable_order(xp, keys)
        keys, w = keys[order], w[order]
        del order
    if dedupe and keys.shape[0]:
        first = xp.ones(keys.shape[0], bool)
        first[1:] = keys[1:] != keys[:-1]
        keys = keys[first]
        w = None if w is None else w[first]
    # each row's first arc: a search of the sorted rows (no atomic count of a hub's arcs)
    offsets = xp.searchsorted(keys >> 32, xp.arange(n + 1, dtype=xp.int64)).astype(xp.int64)
    indices = (keys & xp.int64(0xFFFFFFFF)).astype(xp.int32)
    return offsets, indices, w


def graph_of(xp, blocks, n, directed, dedupe, weighted):
    """The Graph of the blocks' CSR, built by :func:`build_csr` and kept on the device.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``, the module of the blocks' arrays.
    blocks : list of (src, dst, weights or None)
        As :func:`build_csr` takes them; emptied.
    n : int
        The vertices.
    directed, dedupe, weighted : bool
        As for :func:`build_csr`.

    Returns
    -------
    Graph
        Its CSR the device graph (:attr:`gravel.Graph.device_graph`); the host copies are made
        on first use.
    """
    from ..backends.cuda.graph import DeviceGraph
    from ..graph import Graph

    offsets, indices, w = build_csr(xp, blocks, n, directed, dedupe, weighted)
    return Graph.from_device(DeviceGraph.from_arrays(offsets, indices, w, directed=directed))
