"""1-D partitions: a graph cut into P contiguous vertex ranges holding about equal numbers of arcs.

Part k owns the global ids ``bounds[k] .. bounds[k + 1] - 1``. It holds its vertices' out-edges (a
CSR over its local vertices whose targets are global ids) and their in-edges (a CSC over its local
vertices whose sources are global ids), with the weights where the graph has them: every arc is in
exactly one part's out-edges (its tail's) and one part's in-edges (its head's). The owner of a
global id is a binary search in `bounds`. Pure NumPy: a part is what a worker (or a GPU) keeps.
"""

from dataclasses import dataclass

import numpy as np

from ..arguments import is_integer
from ..errors import InvalidArgumentError


def edge_balanced_bounds(offsets, parts):
    """Vertex bounds (int64, ``parts + 1``) cutting a CSR into `parts` contiguous ranges of about
    ``nnz / parts`` arcs each.

    Bound k is the first vertex whose list starts at or after ``k * nnz / parts`` (a search in the
    offsets), so each part's arc count is within one adjacency list's length of the ideal; a hub
    whose list is longer than a part leaves parts empty. A graph without arcs is cut by vertices.
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
    """The part that owns each global id (int32): a search in `bounds` (empty parts own none)."""
    return (np.searchsorted(bounds, ids, side="right") - 1).astype(np.int32)


@dataclass(eq=False)
class Part:
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
        return self.bounds.shape[0] - 1

    @property
    def weighted(self):
        return self.out_weights is not None

    @property
    def out_arcs(self):
        return int(self.out_offsets[-1])

    @property
    def in_arcs(self):
        return int(self.in_offsets[-1])

    def owner(self, ids):
        """The part that owns each global id."""
        return owner(self.bounds, ids)

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
    """The `parts` parts of `G` (a list of :class:`Part`), cut by
    :func:`edge_balanced_bounds` unless `bounds` are given."""
    parts = _check_parts(parts)
    if bounds is None:
        bounds = edge_balanced_bounds(G.offsets, parts)
    bounds = np.asarray(bounds, np.int64)
    if bounds.shape != (parts + 1,):
        raise InvalidArgumentError(f"bounds must run from 0 to n={G.n} in {parts + 1} entries")
    return [part_of(G, k, bounds) for k in range(parts)]


def part_of(G, index, bounds):
    """Part `index` of `G` cut by `bounds` (the other parts' rows are never copied)."""
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


def _check_parts(parts):
    if not is_integer(parts):
        raise InvalidArgumentError(f"parts must be an integer, not {parts!r}")
    if parts < 1:
        raise InvalidArgumentError(f"parts must be at least 1, not {parts}")
    return int(parts)


class PartitionedGraph:
    """A graph's parts held in this process; :meth:`run` runs a distributed program over them with
    the in-process exchange (:func:`gravel.distributed.exchange.run_in_process`).

    A :class:`gravel.distributed.DistributedGraph` has the same attributes, its parts on workers.
    """

    def __init__(self, parts, *, nnz, weighted, order=None):
        self.parts = list(parts)
        first = self.parts[0]
        self.bounds, self.n, self.directed = first.bounds, first.n, first.directed
        self.nnz, self.weighted, self.order = nnz, weighted, order

    @property
    def nparts(self):
        return len(self.parts)

    def owner(self, ids):
        return owner(self.bounds, ids)

    def run(self, program, *args, stats=None, keep=False):
        """Each part's result of ``program(part, *args)``, in part order (`keep`: results stay
        where they are, which for parts in this process is here)."""
        from .exchange import run_in_process

        return run_in_process(self.parts, program, *args, stats=stats)

    def __repr__(self):
        return f"<gravel.distributed.PartitionedGraph n={self.n} parts={self.nparts}>"


def partition(G, parts, bounds=None):
    """`G` cut into `parts` parts by edge-balanced vertex ranges (:func:`split`), as a
    :class:`PartitionedGraph`. The parts are in G's internal ids; ``order`` keeps G's
    permutation so that results come back in the caller's ids."""
    return PartitionedGraph(split(G, parts, bounds), nnz=G.nnz, weighted=G.weighted, order=G.order)
