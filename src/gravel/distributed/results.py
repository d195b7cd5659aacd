"""Results left where they were computed (``gather=False``): one slice per part, with the global
id of its first vertex, in this process or on the Dask workers (futures of NumPy or CuPy arrays).
"""

import operator

import numpy as np


class PartArrays:
    """A per-vertex array of an n-vertex graph left on its parts: slice k holds the values of the
    vertices ``bounds[k] .. bounds[k + 1] - 1`` (global ids), where part k was computed.

    Iterating gives ``(offset, piece)`` pairs, a piece a NumPy array (parts in this process), or
    a ``distributed.Future`` of a NumPy array (CPU workers) or of a CuPy array (GPU workers).
    :meth:`to_dask` joins them as one Dask array without moving them; :meth:`gather` (and
    ``numpy.asarray``) brings them here as one NumPy array.

    Parameters
    ----------
    bounds : array_like of int64
        Every part's first vertex, then n (the partition's bounds).
    pieces : iterable
        Slice k, per part: a NumPy array, or a ``distributed.Future`` of one (of a CuPy array on
        GPU workers).
    dtype : dtype
        The values' dtype (:meth:`gather` casts to it).
    client : distributed.Client, optional
        The client holding the futures; None where the pieces are arrays here.
    device : {"cpu", "cuda"}, default "cpu"
        Where the pieces live: "cuda" for CuPy arrays on GPU workers.

    Attributes
    ----------
    bounds : numpy.ndarray of int64
    pieces : list
    dtype : numpy.dtype
    client : distributed.Client or None
    device : str

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.generate.grid(2, 3)
    >>> depth = gravel.distributed.bfs(G, 0, parts=2, cluster="in-process", gather=False).depth
    >>> [(int(offset), piece.tolist()) for offset, piece in depth]
    [(0, [0, 1, 2]), (3, [1, 2, 3])]
    >>> depth.gather().tolist()
    [0, 1, 2, 1, 2, 3]
    >>> depth.to_dask().chunks
    ((3, 3),)
    """

    def __init__(self, bounds, pieces, dtype, *, client=None, device="cpu"):
        self.bounds, self.pieces = np.asarray(bounds, np.int64), list(pieces)
        self.dtype, self.client, self.device = np.dtype(dtype), client, device

    @property
    def offsets(self):
        """The global id of each slice's first vertex."""
        return self.bounds[:-1]

    @property
    def shape(self):
        """``(n,)``: the whole array's shape."""
        return (int(self.bounds[-1]),)

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        return iter(zip(self.offsets, self.pieces, strict=True))

    def gather(self):
        """The whole array here, slices fetched from where they live.

        Returns
        -------
        numpy.ndarray
            The n values in global id order, of `dtype` (device slices copied to the host).
        """
        from ..arrays import host

        pieces = self.client.gather(self.pieces) if self.client is not None else self.pieces
        return np.concatenate([host(p) for p in pieces]).astype(self.dtype, copy=False)

    def __array__(self, dtype=None, copy=None):
        out = self.gather()
        return out if dtype is None else out.astype(dtype)

    def to_dask(self):
        """One Dask array of the slices, chunked by part (futures stay on their workers).

        Returns
        -------
        dask.array.Array
            Of shape ``(n,)`` and `dtype`, one chunk per part (an empty part an empty chunk);
            CuPy chunks for slices on GPUs. Needs ``dask`` installed.
        """
        import dask
        import dask.array as da

        meta = None
        if self.device == "cuda":
            import cupy

            meta = cupy.empty((0,), self.dtype)
        sizes = np.diff(self.bounds)
        chunks = [
            da.from_delayed(dask.delayed(p), shape=(int(s),), dtype=self.dtype, meta=meta)
            if self.client is not None
            else da.from_array(p, chunks=-1)
            for p, s in zip(self.pieces, sizes, strict=True)
        ]
        return da.concatenate(chunks)

    def __repr__(self):
        where = "this process" if self.client is None else f"{len(self.pieces)} workers"
        return (
            f"<gravel.distributed.PartArrays n={len(self)} {self.dtype} in {len(self.pieces)} "
            f"slices on {where} ({self.device})>"
        )


class Outcome:
    """Each part's result of a distributed program, read field by field.

    Parameters
    ----------
    dg : PartitionedGraph, DistributedGraph or GPUGraph
        The graph the program ran on.
    out : list
        Each part's result as ``dg.run`` gave it: with ``keep=True``, futures of the results left
        on the workers of a graph on Dask workers (one with ``futures``).
    keep : bool
        Whether the run kept its results where they were computed (``gather=False``).
    """

    def __init__(self, dg, out, *, keep):
        self.dg, self.out, self.keep = dg, out, keep
        self.client = dg.cluster.client if keep and hasattr(dg, "futures") else None

    def each(self, fn):
        """``fn(result)`` of every part, computed where the result lives (small values).

        Parameters
        ----------
        fn : callable
            Of one part's result (a tuple, for the algorithms' programs).

        Returns
        -------
        list
            ``fn`` of each part's result, in part order, brought here.
        """
        if self.client is None:
            return [fn(r) for r in self.out]
        return self.client.gather(self._on_workers(fn))

    def array(self, k, dtype):
        """Field `k` of every part: joined here as one array, or (`keep`) left as
        :class:`PartArrays`.

        Parameters
        ----------
        k : int
            The field of each part's result (a tuple) that holds its per-vertex slice.
        dtype : dtype
            The array's dtype.

        Returns
        -------
        numpy.ndarray or PartArrays
            Without `keep`, the slices concatenated in part order (global ids), as `dtype`; with
            it, a :class:`PartArrays` of the slices where they are.
        """
        if not self.keep:
            return np.concatenate([r[k] for r in self.out]).astype(dtype, copy=False)
        if self.client is None:
            return PartArrays(self.dg.bounds, [r[k] for r in self.out], dtype)
        device = getattr(self.dg, "device", "cpu")
        pieces = self._on_workers(operator.itemgetter(k))
        return PartArrays(self.dg.bounds, pieces, dtype, client=self.client, device=device)

    def _on_workers(self, fn):
        held = self.client.who_has(self.out)
        return [self.client.submit(fn, f, workers=list(held[f.key]), pure=False) for f in self.out]
