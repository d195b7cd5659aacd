"""Frontiers: the set of active vertices of a GPU traversal step.

A frontier is either *sparse*, a queue of int32 ids on the device, or *dense*, a bitmap with one bit
per vertex. Sparse suits small frontiers (work proportional to their size); dense suits large ones
and pull steps (O(1) membership). :meth:`Frontier.auto` converts by density. The length of a sparse
frontier lives on the host: operators read the device counter (8 bytes), never the ids."""

import functools

import numpy as np

from .backends.cuda import runtime

#: a frontier holding more than this fraction of the vertices is better dense
DENSE_FRACTION = 1 / 16
_BLOCK = 256


class Frontier:
    """The active vertices of a traversal step on the GPU: a sparse queue of ids or a dense bitmap.

    Operators make frontiers; build one with :meth:`from_ids` or :meth:`all`. Exactly one of `ids`
    and `bitmap` is normally given.

    Parameters
    ----------
    n : int
        The graph's number of vertices.
    ids : cupy.ndarray of int32, optional
        A sparse frontier's queue; its first `length` slots hold the ids (the buffer may be
        longer).
    length : int, cupy.ndarray or PendingCount, optional
        The number of ids: an int, or a count still on the device (read, with a sync, at the
        first ``len()``). None for a dense frontier: counted from the bitmap when asked.
    bitmap : cupy.ndarray of uint32, optional
        A dense frontier: bit ``v % 32`` of word ``v // 32`` is set for each vertex v in it.
    every_vertex : bool, default False
        The ids are 0..n-1 in order: the degrees' scan is then the graph's offsets.
    arcs : int, optional
        The out-arcs of its vertices where the operator that made it counted them.

    Attributes
    ----------
    n : int
        The graph's number of vertices.
    bitmap : cupy.ndarray of uint32 or None
        The bitmap of a dense frontier.
    arcs : int or None
        As given.
    every_vertex : bool
        As given.

    See Also
    --------
    FrontierQueue : frontiers back to back in one buffer.

    Notes
    -----
    Sparse suits small frontiers (work proportional to their size); dense suits large ones and
    pull steps (O(1) membership). The length of a sparse frontier lives on the host: operators
    read the device counter (8 bytes), never the ids.
    """

    def __init__(self, n, *, ids=None, length=None, bitmap=None, every_vertex=False, arcs=None):
        self.n = int(n)
        #: the out-arcs of its vertices where the operator that made it counted them, else None
        self.arcs = arcs
        self._ids = ids
        # an int, None (counted from the bitmap when asked) or a count still on its way from the
        # device (operators' PendingCount: read when asked)
        self._length = int(length) if isinstance(length, (int, np.integer)) else length
        self.bitmap = bitmap
        #: the ids are 0..n-1 in order: the degrees' scan is then the graph's offsets
        self.every_vertex = every_vertex

    # -- construction ------------------------------------------------------------------------------
    @classmethod
    def from_ids(cls, n, ids):
        """A sparse frontier of the given vertex ids (host or device array).

        Parameters
        ----------
        n : int
            The graph's number of vertices.
        ids : array_like of int
            The vertex ids, on the host or the device; copied to a contiguous int32 device array
            where they are not one already. Neither sorted nor deduplicated.

        Returns
        -------
        Frontier
            A sparse frontier of ``len(ids)`` ids.

        Raises
        ------
        VertexNotFoundError
            An id outside [0, n).
        """
        import cupy

        ids = cupy.ascontiguousarray(cupy.asarray(ids, dtype=cupy.int32))
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= n):
            from .errors import VertexNotFoundError

            raise VertexNotFoundError(f"frontier ids must lie in [0, {n})")
        return cls(n, ids=ids, length=ids.size)

    @classmethod
    def all(cls, n):
        """The sparse frontier of every vertex, 0..n-1 in order.

        Parameters
        ----------
        n : int
            The graph's number of vertices.

        Returns
        -------
        Frontier
            `n` ids on the device, with ``every_vertex`` set.
        """
        import cupy

        return cls(n, ids=cupy.arange(n, dtype=cupy.int32), length=n, every_vertex=True)

    # -- views -------------------------------------------------------------------------------------
    @property
    def is_dense(self):
        """Whether the frontier is a bitmap (it has no queue of ids)."""
        return self.bitmap is not None and self._ids is None

    @property
    def ids(self):
        """The ids of a sparse frontier (a view of the first len(self) slots)."""
        if self._ids is None:
            return self.to_sparse().ids
        return self._ids[: len(self)]

    def __len__(self):
        if self._length is None:
            # sync: popcount of the bitmap read back to the host
            self._length = int(_popcount(self.bitmap))
        elif not isinstance(self._length, int):
            self._length = int(self._length)  # waits for the step that wrote it
        return self._length

    def sorted(self):
        """The same vertices as a sparse frontier in increasing order.

        An advance then reads the lists in address order, so that neighbouring lists share lines
        and pages (what reads over the bus need).

        Returns
        -------
        Frontier
            A new sparse frontier of the sorted ids (a dense frontier is made sparse first).
        """
        import cupy

        return Frontier(self.n, ids=cupy.sort(self.ids), length=len(self))

    def get(self):
        """Sorted host copy of the ids (for tests and inspection).

        Returns
        -------
        numpy.ndarray of int32
            The ids in increasing order (duplicates kept); a sync.
        """
        return np.sort(self.ids.get())

    # -- conversions -------------------------------------------------------------------------------
    def to_dense(self):
        """The frontier as a bitmap.

        Returns
        -------
        Frontier
            `self` where it is dense already, else a new dense frontier; duplicate ids merge, and
            its length is counted anew from the bitmap when asked.
        """
        import cupy

        if self._ids is None:
            return self
        bitmap = cupy.zeros((self.n + 31) // 32, dtype=cupy.uint32)
        k = runtime.kernel("frontier/convert.cu", "gravel_queue_to_bitmap")
        k(
            runtime.blocks_for(len(self), _BLOCK, resident=4),
            _BLOCK,
            (self._ids, np.int64(len(self)), bitmap),
        )
        return Frontier(self.n, bitmap=bitmap)  # duplicates may merge: the length is counted anew

    def to_sparse(self):
        """The frontier as a queue of ids.

        Returns
        -------
        Frontier
            `self` where it is sparse already, else a new sparse frontier of the bitmap's
            vertices (counting them is a sync).
        """
        import cupy

        if self._ids is not None:
            return self
        words = self.bitmap.size
        count = len(self)
        out = cupy.empty(max(count, 1), dtype=cupy.int32)
        length = cupy.zeros(1, dtype=cupy.uint64)
        k = runtime.kernel("frontier/convert.cu", "gravel_bitmap_to_queue")
        k(
            runtime.blocks_for(words, _BLOCK, resident=4),
            _BLOCK,
            (self.bitmap, np.int64(words), out, length, np.uint64(out.size)),
        )
        return Frontier(self.n, ids=out, length=count)

    def auto(self):
        """Dense when the frontier holds more than DENSE_FRACTION of the vertices, else sparse.

        Returns
        -------
        Frontier
            :meth:`to_dense` or :meth:`to_sparse` of `self` (either may be `self`).
        """
        dense = len(self) > DENSE_FRACTION * self.n
        return self.to_dense() if dense else self.to_sparse()

    def __repr__(self):
        kind = "dense" if self.is_dense else "sparse"
        return f"<Frontier {kind} {len(self)}/{self.n}>"


@functools.cache
def _popc_kernel():
    import cupy

    return cupy.ElementwiseKernel("uint32 w", "int32 c", "c = __popc(w)", "gravel_popc")


def _popcount(words):
    # per-word counts, then CuPy's sum (a ReductionKernel to one value would run in a single block)
    return _popc_kernel()(words).sum(dtype="int64")


class FrontierQueue:
    """Frontiers back to back in one device buffer (GAP's sliding queue): segment i holds the ith
    frontier appended.

    Multi-step advances append one segment per step without a host round trip, and every segment
    stays readable (Brandes' backward pass walks them in reverse). ``len(queue)`` is the number of
    segments.

    Parameters
    ----------
    n : int
        The graph's number of vertices.
    capacity : int
        The buffer's size in ids (at least 1 is allocated).
    first : Frontier or array_like of int
        Segment 0: a sparse frontier's ids, or ids copied to the device as int32.

    Attributes
    ----------
    n : int
        The graph's number of vertices.
    buffer : cupy.ndarray of int32
        The segments back to back.
    bounds : list of int
        Segment i is ``buffer[bounds[i]:bounds[i + 1]]``.

    Raises
    ------
    ValueError
        `first` holds more than `capacity` ids.
    """

    def __init__(self, n, capacity, first):
        import cupy

        self.n = int(n)
        first = first.ids if isinstance(first, Frontier) else cupy.asarray(first, dtype=cupy.int32)
        if first.size > capacity:
            raise ValueError(f"a frontier of {first.size} items does not fit a queue of {capacity}")
        self.buffer = cupy.empty(max(int(capacity), 1), dtype=cupy.int32)
        self.buffer[: first.size] = first
        self.bounds = [0, int(first.size)]  # segment i is buffer[bounds[i]:bounds[i + 1]]

    def __len__(self):
        """Number of segments."""
        return len(self.bounds) - 1

    @property
    def capacity(self):
        """The buffer's size in ids."""
        return self.buffer.size

    @property
    def room(self):
        """The ids that still fit after the last segment."""
        return self.capacity - self.bounds[-1]

    def segment(self, i):
        """Segment i as a sparse frontier (a view, no copy).

        Parameters
        ----------
        i : int
            The segment; a negative i counts from the end, as a list's index.

        Returns
        -------
        Frontier
            A sparse frontier over ``buffer[bounds[i]:bounds[i + 1]]``.

        Raises
        ------
        IndexError
            `i` outside ``-len(self) <= i < len(self)``.
        """
        k = len(self)
        if not -k <= i < k:
            raise IndexError(f"segment {i} of a frontier queue of {k} segments")
        i %= k
        b, e = self.bounds[i], self.bounds[i + 1]
        return Frontier(self.n, ids=self.buffer[b:e], length=e - b)

    @property
    def last(self):
        """The last segment as a sparse frontier (a view, no copy)."""
        return self.segment(len(self) - 1)

    def push(self, frontier):
        """Append a frontier as a new segment (device copy, no sync).

        Parameters
        ----------
        frontier : Frontier
            Its ids are copied (a dense frontier is made sparse first); reading its length is a
            sync where it is still on the device.

        Raises
        ------
        ValueError
            The frontier holds more ids than :attr:`room`.
        """
        k = len(frontier)
        if k > self.room:
            raise ValueError(
                f"a frontier of {k} items does not fit the queue's remaining {self.room}"
            )
        end = self.bounds[-1]
        self.buffer[end : end + k] = frontier.ids
        self.bounds.append(end + k)
