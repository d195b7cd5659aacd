"""Building a Graph from arcs: arrays of them (:func:`from_edges`), or blocks of them that a reader
made a chunk of a file at a time (:func:`from_edge_blocks`), placed into CSR rows by the CPU
kernels of :mod:`gravel.backends.cpu.csr` without an edge list whole. The bodies of the Graph's
constructors of those names."""

import numpy as np

from .arguments import MAX_VERTICES, is_integer, vertex_ids
from .backends.cpu import csr as _csr  # loaded on first use: importing gravel never imports Numba
from .errors import GraphTooLargeError, InvalidGraphError

#: bytes a vertex takes at the peak of a CSR's build (int64 offsets and counts, int32 row ids and
#: the build's cursors), measured
BUILD_BYTES_PER_VERTEX = 24
#: vertex arrays up to this size are built without asking the host for its free memory
ROOM_UNASKED_BYTES = 1 << 30


def check_room(n):
    """Raise GraphTooLargeError, before any allocation, where the per-vertex arrays of a CSR of
    `n` vertices alone would not fit the host memory available now (asked past
    ROOM_UNASKED_BYTES).

    Parameters
    ----------
    n : int
        The vertices.

    Raises
    ------
    GraphTooLargeError
        Their arrays would not fit.
    """
    from .placement import host_free_bytes

    need = BUILD_BYTES_PER_VERTEX * (n + 1)
    if need <= ROOM_UNASKED_BYTES:
        return
    free = host_free_bytes()
    if need > free:
        raise GraphTooLargeError(
            f"{n:,} vertices: their arrays alone take {need / 2**30:.2f} GiB, the host has "
            f"{free / 2**30:.2f} GiB of memory available"
        )


def from_edges(cls, src, dst, weights=None, *, n=None, directed=True, labels=None, dedupe=False):
    """Build a graph from arc arrays ``src[i] -> dst[i]`` (edges, when ``directed=False``).

    Self loops are kept (see :func:`gravel.transform.drop_self_loops`), and so are duplicate
    arcs unless `dedupe` is true.

    Parameters
    ----------
    src, dst : array_like of int, shape (m,)
        The arcs' ends: integers, or floats that are whole numbers, in ``[0, n)``.
    weights : array_like of float, shape (m,), optional
        A weight per arc, stored as float32 (a value beyond float32's range becomes inf).
    n : int, optional
        The number of vertices, at least the largest id + 1; default the largest id + 1 (0
        without arcs).
    directed : bool, default True
        False: each edge is stored both ways (a self loop once).
    labels : array, optional
        Original id of each vertex, as for :class:`Graph`.
    dedupe : bool, default False
        Merge parallel arcs as they are built, keeping the minimum weight (as
        :func:`gravel.transform.deduplicate` does afterwards).

    Returns
    -------
    Graph
        Rows sorted; its arrays are new.

    Raises
    ------
    InvalidGraphError
        `src` or `dst` not 1-D, of different lengths, or holding ids that are not whole
        numbers >= 0; `n` not an integer >= 0, or not above every id; more than MAX_VERTICES
        vertices; `weights` not one per arc.
    GraphTooLargeError
        The per-vertex arrays of the build alone would not fit the host memory available,
        found before any allocation.

    See Also
    --------
    gravel.load, gravel.generate, from_scipy, from_networkx, from_pandas

    Examples
    --------
    >>> from gravel import Graph
    >>> G = Graph.from_edges([0, 1, 1], [1, 2, 2], directed=False, dedupe=True)
    >>> G.n, G.m, G.nnz
    (3, 2, 4)
    >>> G.indices.tolist()
    [1, 0, 2, 1]
    """
    src, dst = np.asarray(src), np.asarray(dst)
    if src.ndim == dst.ndim == 1 and src.shape != dst.shape:
        raise InvalidGraphError(f"src has {src.size} entries but dst has {dst.size}")
    if weights is not None:
        weights = np.asarray(weights)
        if weights.shape != src.shape:
            raise InvalidGraphError("weights must have one entry per edge")
    return from_edge_blocks(
        cls,
        [(src, dst, weights)],
        n=n,
        directed=directed,
        labels=labels,
        dedupe=dedupe,
        weighted=weights is not None,
    )


def from_edge_blocks(
    cls, blocks, *, n=None, directed=True, labels=None, dedupe=False, weighted=False
):
    """Build a graph from a list of blocks of arcs, emptying the list as it goes.

    The graph of the blocks' arcs joined, as :meth:`from_edges` builds it, with no copy of them
    joined: each block is dropped from the list once its arcs are placed, so a caller that holds
    no other reference to them has memory peak at the blocks plus the CSR (int32 ids and float32
    weights, as a reader's blocks are, are not converted).

    Parameters
    ----------
    blocks : list of (src, dst, weights or None)
        Arrays as :meth:`from_edges` takes them, one weight per arc where `weighted` (ignored
        otherwise); `src` may be runs instead, a pair ``(ids, counts)``: ``ids[k]`` repeated
        ``counts[k]`` times (a reader's sorted sources, in a fraction of the memory). The list is
        emptied.
    n : int, optional
        The number of vertices, at least the largest id + 1; default the largest id + 1.
    directed : bool, default True
        False: each edge is stored both ways (a self loop once).
    labels : array, optional
        Original id of each vertex, as for :class:`Graph`.
    dedupe : bool, default False
        Merge parallel arcs, keeping the minimum weight.
    weighted : bool, default False
        Keep the blocks' weights (stored as float32).

    Returns
    -------
    Graph
        Rows sorted; its arrays are new.

    Raises
    ------
    InvalidGraphError
        As :meth:`from_edges`, for any block.
    GraphTooLargeError
        The per-vertex arrays of the build alone would not fit the host memory available,
        found before any allocation.
    """
    top = -1
    for k, (src, dst, w) in enumerate(blocks):
        runs = isinstance(src, tuple)
        src = (vertex_ids(src[0], "src"), src[1]) if runs else vertex_ids(src, "src")
        dst = vertex_ids(dst, "dst")
        size = int(src[1].sum()) if runs else src.size
        if size != dst.size:
            raise InvalidGraphError(f"src has {size} entries but dst has {dst.size}")
        if weighted:
            w = np.asarray(w)
            if w.shape != dst.shape:
                raise InvalidGraphError("weights must have one entry per edge")
            with np.errstate(over="ignore"):  # beyond float32: inf, which check_weights names
                w = w.astype(np.float32, copy=False)
        blocks[k] = (src, dst, w if weighted else None)
        ids = src[0] if runs else src
        top = max(top, int(ids.max(initial=-1)), int(dst.max(initial=-1)))
    if n is None:
        n = top + 1
    elif not is_integer(n) or n < 0:
        raise InvalidGraphError(f"n must be an integer number of vertices >= 0, not {n!r}")
    elif top >= n:
        raise InvalidGraphError(f"vertex id {top} out of range for n={n}")
    if n > MAX_VERTICES:
        raise InvalidGraphError(f"{n} vertices: gravel supports fewer than 2**31")
    check_room(n)
    m = sum(block[1].shape[0] for block in blocks)
    offsets, indices, w = _csr.build_csr_blocks(blocks, m, int(n), not directed, weighted, dedupe)
    # ids checked above, both ways of each edge built: no check of the arrays again
    return cls.from_csr(offsets, indices, w, directed=directed, labels=labels, trusted=True)
