"""A graph's arcs seen three ways, the bodies and documentation of :class:`gravel.Graph`'s methods
``edges`` (as arrays of their ends), ``has_arcs`` (looked up by their ends) and ``csc`` (by
destination: the in-arcs)."""

import numpy as np

from .backends.cpu import arcs as _arcs  # loaded on first use: importing gravel never imports Numba
from .errors import VertexNotFoundError


def edges(self):
    """Arrays ``(src, dst)`` of every stored arc, in CSR order.

    Returns
    -------
    src : numpy.ndarray of int32, shape (nnz,)
        Each arc's source, a new array.
    dst : numpy.ndarray of int32, shape (nnz,)
        Each arc's destination: :attr:`indices` itself (read-only).

    Examples
    --------
    >>> from gravel import Graph
    >>> src, dst = Graph.from_edges([0, 0, 2], [2, 1, 0]).edges()
    >>> src.tolist(), dst.tolist()
    ([0, 0, 2], [1, 2, 0])
    """
    return np.repeat(np.arange(self.n, dtype=np.int32), self.out_degree), self.indices


def has_arcs(self, src, dst):
    """Boolean array: is there an arc ``src[i] -> dst[i]``? (Binary search in the sorted rows.)

    Parameters
    ----------
    src, dst : int or array_like of int
        The arcs' ends, broadcast against each other.

    Returns
    -------
    numpy.ndarray of bool
        Of the broadcast shape.

    Raises
    ------
    VertexNotFoundError
        An id outside 0..n-1.

    Examples
    --------
    >>> from gravel import Graph
    >>> G = Graph.from_edges([0, 1], [1, 2])
    >>> G.has_arcs(0, [1, 2]).tolist()
    [True, False]
    """
    src, dst = np.broadcast_arrays(np.asarray(src, np.int64), np.asarray(dst, np.int64))
    for name, ids in (("src", src), ("dst", dst)):
        bad = (ids < 0) | (ids >= self.n)
        if bad.any():
            raise VertexNotFoundError(
                f"has_arcs: {name} {int(ids[bad][0])} is not a vertex (0..{self.n - 1})"
            )
    flat = [np.ascontiguousarray(ids).ravel() for ids in (src, dst)]
    return _arcs.has_arcs(self.offsets, self.indices, *flat).reshape(src.shape)


def csc(self):
    """In-edges ``(offsets, sources, weights)``, built on first use and cached.

    Returns
    -------
    offsets : numpy.ndarray of int64, shape (n + 1,)
        Column offsets into `sources`.
    sources : numpy.ndarray of int32, shape (nnz,)
        The source of each in-arc, each column sorted.
    weights : numpy.ndarray of float32, shape (nnz,), or None
        The in-arcs' weights.

    Notes
    -----
    An undirected graph's CSR is its own CSC: its own (read-only) arrays are returned.

    Examples
    --------
    >>> from gravel import Graph
    >>> offsets, sources, weights = Graph.from_edges([0, 1, 2], [2, 2, 0]).csc()
    >>> offsets.tolist(), sources.tolist(), weights
    ([0, 1, 1, 3], [2, 0, 1], None)
    """
    return self._csc
