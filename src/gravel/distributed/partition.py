"""1-D partitions: a graph cut into P contiguous vertex ranges holding about equal numbers of arcs.

Part k owns the global ids ``bounds[k] .. bounds[k + 1] - 1``. It holds its vertices' out-edges (a
CSR over its local vertices whose targets are global ids) and their in-edges (a CSC over its local
vertices whose sources are global ids), with the weights where the graph has them: every arc is in
exactly one part's out-edges (its tail's) and one part's in-edges (its head's). The owner of a
global id is a binary search in `bounds`. Pure NumPy: a part is what a CPU worker keeps (a GPU
keeps a :class:`~gravel.distributed.device_part.DevicePart`, made from one).
"""

from dataclasses import dataclass

import numpy as np

from ..arguments import is_integer
from ..errors import InvalidArgumentError


def edge_balanced_bounds(offsets, parts):
    """Vertex bounds cutting a CSR into `parts` contiguous ranges of about ``nnz / parts`` arcs
    each.

    Parameters
    ----------
    offsets : array_like of int64
        The CSR's ``n + 1`` row offsets (``Graph.offsets``); ``offsets[-1]`` is nnz.
    parts : int
        How many ranges, at least 1.

    Returns
    -------
    numpy.ndarray of int64
        ``parts + 1`` non-decreasing bounds from 0 to n: part k owns the vertices
        ``bounds[k] .. bounds[k + 1] - 1``.

    Raises
    ------
    InvalidArgumentError
        `parts` is not an integer, or is below 1.

    See Also
    --------
    split : The parts these bounds cut.

    Notes
    -----
    Bound k is the first vertex whose list starts at or after ``k * nnz / parts`` (a search in the
    offsets), so each part's arc count is within one adjacency list's length of the ideal; a hub
    whose list is longer than a part leaves parts empty. A graph without arcs is cut by vertices.

    Examples
    --------
    >>> import gravel
    >>> from gravel.distributed import edge_balanced_bounds
    >>> G = gravel.generate.grid(2, 3)
    >>> G.offsets.tolist()
    [0, 2, 5, 7, 9, 12, 14]
    >>> edge_balanced_bounds(G.offsets, 2).tolist()
    [0, 3, 6]
    """
    parts = _check_parts(parts)
    offsets = np.asarray(offsets, np.int64)
    n, nnz = offsets.shape[0] - 1, int(offsets[-1])
    if nnz == 0:
        return np.linspace(0, n, parts + 1).round().astype(np.int64)
    ideal = np.arange(1, parts, dtype=np.float64) * (nnz / parts)
    inner = np.searchsorted(offsets, ideal, side="left")
    return np.concatenate(([0], inner, [n])).astype(np.int64)


def owner(bounds, ids):
    """The part that owns each global id: a search in `bounds` (empty parts own none).

    Parameters
    ----------
    bounds : array_like of int64
        Every part's first vertex, then n (:func:`edge_balanced_bounds`).
    ids : int or array_like of int
        Global vertex ids, in ``0 .. n - 1``.

    Returns
    -------
    numpy.ndarray of int32
        The owning part of each id, in the shape of `ids` (an int32 scalar for a scalar id).
        Ids are not checked: one below 0 gets -1 and one at or past n gets ``len(bounds) - 1``.

    Examples
    --------
    >>> from gravel.distributed import owner
    >>> owner([0, 3, 6], [0, 2, 3, 5]).tolist()
    [0, 0, 1, 1]
    """
    return (np.searchsorted(bounds, ids, side="right") - 1).astype(np.int32)


class PartRange:
    """What a part of a 1-D partition is wherever it lives (:class:`Part` on the host,
    :class:`~gravel.distributed.device_part.DevicePart` on a GPU): its vertex range and arc counts,
    from ``index``, ``bounds``, ``out_offsets`` and ``in_offsets``."""

    @property
    def lo(self):
        """The first global id of this part."""
        return int(self.bounds[self.index])

    @property
    def hi(self):
        """One past the last global id of this part."""
        return int(self.bounds[self.index + 1])

    @property
    def size(self):
        """Vertices this part owns."""
        return self.hi - self.lo

    @property
    def parts(self):
        """How many parts the partition has (``len(bounds) - 1``)."""
        return self.bounds.shape[0] - 1

    @property
    def out_arcs(self):
        """Arcs out of this part's vertices (``out_offsets[-1]``, an int)."""
        return int(self.out_offsets[-1])

    @property
    def in_arcs(self):
        """Arcs into this part's vertices (``in_offsets[-1]``, an int)."""
        return int(self.in_offsets[-1])

    def owner(self, ids):
        """The part that owns each global id.

        Parameters
        ----------
        ids : int or array_like of int
            Global vertex ids.

        Returns
        -------
        numpy.ndarray of int32
            As :func:`gravel.distributed.owner` gives it, over this partition's `bounds`.
        """
        return owner(self.bounds, ids)


@dataclass(eq=False)
class Part(PartRange):
    """One part of a 1-D partition: the vertex range ``lo .. hi - 1`` of an n-vertex graph.

    Attributes
    ----------
    index : int
        Which part (0 .. ``len(bounds) - 2``).
    bounds : ndarray of int64
        Every part's first vertex, then n: the owner map, shared by all parts.
    n : int
        Vertices of the whole graph.
    directed : bool
    out_offsets, out_targets, out_weights : ndarray
        Out-edges: CSR over the local vertices (``size + 1`` int64 offsets), global int32 targets,
        float32 weights or None.
    in_offsets, in_sources, in_weights : ndarray
        In-edges: CSC over the local vertices, global int32 sources. For an undirected graph they
        are the out-edges' arrays themselves.
    """

    index: int
    bounds: np.ndarray
    n: int
    directed: bool
    out_offsets: np.ndarray
    out_targets: np.ndarray
    out_weights: np.ndarray | None
    in_offsets: np.ndarray
    in_sources: np.ndarray
    in_weights: np.ndarray | None

    @property
    def weighted(self):
        """Whether the part holds weights (``out_weights`` is not None)."""
        return self.out_weights is not None

    def __repr__(self):
        return (
            f"<gravel.distributed.Part {self.index}/{self.parts} vertices {self.lo}..{self.hi} "
            f"out-arcs {self.out_arcs} in-arcs {self.in_arcs}>"
        )


def _slice(offsets, indices, weights, lo, hi):
    a, b = int(offsets[lo]), int(offsets[hi])
    off = np.ascontiguousarray(offsets[lo : hi + 1] - a, dtype=np.int64)
    idx = np.ascontiguousarray(indices[a:b], dtype=np.int32).copy()
    w = None if weights is None else np.ascontiguousarray(weights[a:b]).copy()
    return off, idx, w


def split(G, parts, bounds=None):
    """The `parts` parts of `G`, cut by :func:`edge_balanced_bounds` unless `bounds` are given.

    Parameters
    ----------
    G : Graph
        The graph, in its internal ids (a reordered graph's parts keep them).
    parts : int
        How many parts, at least 1.
    bounds : array_like of int64, optional
        ``parts + 1`` vertex bounds from 0 to n, never decreasing (part k owns
        ``bounds[k] .. bounds[k + 1] - 1``). Default: edge-balanced bounds.

    Returns
    -------
    list of Part
        Part k at index k, all sharing one read-only `bounds` array.

    Raises
    ------
    InvalidArgumentError
        `parts` is not an integer of at least 1, or `bounds` do not hold ``parts + 1`` entries,
        run from 0 to n and never decrease.

    See Also
    --------
    partition : The parts as a :class:`PartitionedGraph`.
    part_of : One part alone.

    Examples
    --------
    >>> import gravel
    >>> from gravel.distributed import split
    >>> [(part.lo, part.hi, part.out_arcs) for part in split(gravel.generate.grid(2, 3), 3)]
    [(0, 2, 5), (2, 5, 7), (5, 6, 2)]
    """
    parts = _check_parts(parts)
    if bounds is None:
        bounds = edge_balanced_bounds(G.offsets, parts)
    bounds = np.asarray(bounds, np.int64)
    if bounds.shape != (parts + 1,):
        raise InvalidArgumentError(f"bounds must run from 0 to n={G.n} in {parts + 1} entries")
    return [part_of(G, k, bounds) for k in range(parts)]


def part_of(G, index, bounds):
    """Part `index` of `G` cut by `bounds` (the other parts' rows are never copied).

    Parameters
    ----------
    G : Graph
        The graph, in its internal ids.
    index : int
        Which part, ``0 .. len(bounds) - 2``.
    bounds : array_like of int64
        Every part's first vertex, then n: at least two entries, from 0 to n, never decreasing.
        Made read-only where it is already an int64 NumPy array (it is then shared, not copied).

    Returns
    -------
    Part
        The part's out-edges (and, for a directed graph, its in-edges from ``G.csc()``) copied
        into arrays of its own: int64 offsets, int32 global ids, the weights or None. For an
        undirected graph the in-edges are the out-edges' arrays.

    Raises
    ------
    InvalidArgumentError
        `bounds` do not run from 0 to n or decrease somewhere, or `index` is not one of the
        parts.

    Examples
    --------
    >>> import gravel
    >>> from gravel.distributed import part_of
    >>> part = part_of(gravel.generate.grid(2, 3), 1, [0, 3, 6])
    >>> part.lo, part.hi, part.out_offsets.tolist(), part.out_targets.tolist()
    (3, 6, [0, 2, 5, 7], [0, 4, 1, 3, 5, 2, 4])
    """
    bounds = np.asarray(bounds, np.int64)
    if bounds.ndim != 1 or bounds.shape[0] < 2 or bounds[0] != 0 or bounds[-1] != G.n:
        raise InvalidArgumentError(f"bounds must run from 0 to n={G.n}")
    if np.any(np.diff(bounds) < 0):
        raise InvalidArgumentError("bounds must never decrease")
    if not 0 <= index < bounds.shape[0] - 1:
        raise InvalidArgumentError(f"part {index} is not one of {bounds.shape[0] - 1}")
    bounds.flags.writeable = False
    lo, hi = int(bounds[index]), int(bounds[index + 1])
    o = _slice(G.offsets, G.indices, G.weights, lo, hi)
    i = o if not G.directed else _slice(*G.csc(), lo, hi)
    return Part(index, bounds, G.n, G.directed, *o, *i)


def _check_parts(parts, name="parts"):
    if not is_integer(parts):
        raise InvalidArgumentError(f"{name} must be an integer, not {parts!r}")
    if parts < 1:
        raise InvalidArgumentError(f"{name} must be at least 1, not {parts}")
    return int(parts)


class PartitionedGraph:
    """A graph's parts held in this process; :meth:`run` runs a distributed program over them with
    the in-process exchange (:func:`gravel.distributed.exchange.run_in_process`).

    A :class:`gravel.distributed.DistributedGraph` has the same attributes, its parts on workers.

    Parameters
    ----------
    parts : iterable of Part
        The parts, in part order (at least one); `bounds`, `n` and `directed` are the first's.
    nnz : int
        Arcs of the whole graph.
    weighted : bool
        Whether the graph has weights.
    order : numpy.ndarray, optional
        The graph's permutation (``Graph.order``) where it was reordered, so that results come
        back in the caller's ids; None where its ids are the caller's.
    labels : numpy.ndarray, optional
        The graph's vertex labels (``Graph.labels``), so that a source may be named by its label.

    Attributes
    ----------
    parts : list of Part
    bounds : numpy.ndarray of int64
        Every part's first vertex, then n.
    n, nnz : int
        Vertices and arcs of the whole graph.
    directed, weighted : bool
    order, labels : numpy.ndarray or None

    See Also
    --------
    partition : Builds one from a Graph.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> PG = gravel.distributed.partition(gravel.generate.grid(2, 3), 2)
    >>> PG, PG.bounds.tolist()
    (<gravel.distributed.PartitionedGraph n=6 parts=2>, [0, 3, 6])
    >>> gravel.distributed.bfs(PG, 0).depth.tolist()
    [0, 1, 2, 1, 2, 3]
    """

    def __init__(self, parts, *, nnz, weighted, order=None, labels=None):
        self.parts = list(parts)
        first = self.parts[0]
        self.bounds, self.n, self.directed = first.bounds, first.n, first.directed
        self.nnz, self.weighted, self.order, self.labels = nnz, weighted, order, labels

    @property
    def nparts(self):
        """How many parts."""
        return len(self.parts)

    def owner(self, ids):
        """The part that owns each global id.

        Parameters
        ----------
        ids : int or array_like of int
            Global vertex ids.

        Returns
        -------
        numpy.ndarray of int32
            As :func:`gravel.distributed.owner` gives it, over `bounds`.
        """
        return owner(self.bounds, ids)

    def run(self, program, *args, stats=None, keep=False):
        """Each part's result of ``program(part, *args)``, in part order.

        Parameters
        ----------
        program : callable
            A distributed program (:mod:`gravel.distributed.exchange`): a generator function of
            a part and `args` that yields collectives.
        *args
            Passed to `program` after the part.
        stats : Stats, optional
            Counts the exchange (supersteps, bytes, seconds); a fresh one where None.
        keep : bool, default False
            Leave the results where they are, which for parts in this process is here: the
            results are the same either way.

        Returns
        -------
        list
            Each part's return value, in part order.
        """
        from .exchange import run_in_process

        return run_in_process(self.parts, program, *args, stats=stats)

    def __repr__(self):
        return f"<gravel.distributed.PartitionedGraph n={self.n} parts={self.nparts}>"


def partition(G, parts, bounds=None):
    """`G` cut into `parts` parts by edge-balanced vertex ranges (:func:`split`), held in this
    process.

    Parameters
    ----------
    G : Graph
        The graph.
    parts : int
        How many parts, at least 1.
    bounds : array_like of int64, optional
        ``parts + 1`` vertex bounds, as :func:`split` takes them. Default: edge-balanced bounds
        (:func:`edge_balanced_bounds`).

    Returns
    -------
    PartitionedGraph
        The parts, in G's internal ids; ``order`` keeps G's permutation so that results come back
        in the caller's ids, ``labels`` its labels.

    Raises
    ------
    InvalidArgumentError
        As :func:`split` raises it.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> PG = gravel.distributed.partition(gravel.generate.grid(2, 3), 2)
    >>> PG.nparts, PG.nnz, PG.owner([0, 5]).tolist()
    (2, 14, [0, 1])
    """
    pieces = split(G, parts, bounds)
    return PartitionedGraph(pieces, nnz=G.nnz, weighted=G.weighted, order=G.order, labels=G.labels)
