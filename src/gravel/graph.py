"""The Graph: CSR out-edges, lazily built CSC in-edges, optional float32 weights.

Conventions: vertex ids are int32, edge offsets int64, weights float32. Rows
are sorted by destination. An undirected graph stores every edge in both directions (a self loop
once), so its CSR is its own CSC. A Graph is immutable: its arrays are read-only and derived data is
cached."""

from functools import cached_property

import numpy as np

from . import construction, devices, interop, stats, tensors, views
from .arguments import MAX_VERTICES as MAX_VERTICES  # public: readers check headers against it
from .arrays import host
from .backends.cpu import arcs as _arcs  # loaded on first use: importing gravel never imports Numba
from .backends.cpu import csr as _csr
from .construction import BUILD_BYTES_PER_VERTEX as BUILD_BYTES_PER_VERTEX  # public, as above
from .errors import InvalidGraphError


def _readonly(a):
    a.flags.writeable = False
    return a


class Graph:
    """A graph in compressed sparse row form.

    Parameters
    ----------
    offsets : array of int, shape (n + 1,)
        Row offsets into `indices`; non-decreasing, ``offsets[0] == 0``.
    indices : array of int, shape (nnz,)
        Destination of each arc, in ``[0, n)``.
    weights : array of float, shape (nnz,), optional
        Arc weights (stored as float32).
    directed : bool, default True
        For an undirected graph the arrays must already hold every edge both ways, as often and
        with the same weights: checked (a hash of the arcs against one of their mirrors, O(m))
        unless the arrays are trusted (:meth:`from_csr`), InvalidGraphError naming an arc
        otherwise.
    labels : array, optional
        Original id of each vertex, when the ids were relabelled on load.
    order : array of int, optional
        The id permutation slot used by reordering: ``order[i]`` is the internal id of the caller's
        vertex ``i``. Algorithms return results indexed by the caller's ids.

    Most users build graphs with :func:`gravel.load`, :mod:`gravel.generate`, :meth:`from_edges`,
    :meth:`from_scipy` or :meth:`from_networkx`.
    """

    def __init__(self, offsets, indices, weights=None, *, directed=True, labels=None, order=None):
        self._build(offsets, indices, weights, directed, labels, order, sort=True, check=True)

    @classmethod
    def from_csr(
        cls,
        offsets,
        indices,
        weights=None,
        *,
        directed=True,
        trusted=False,
        sorted_rows=None,
        labels=None,
        order=None,
    ):
        """A graph of CSR arrays: checked and sorted as :class:`Graph` does, unless `trusted`.

        Parameters
        ----------
        offsets, indices, weights, directed, labels, order
            As for :class:`Graph`.
        trusted : bool, default False
            The caller guarantees what would be checked: `offsets` start at 0 and never decrease,
            every id is in ``[0, n)``, each row is sorted (unless ``sorted_rows=False``) and an
            undirected graph lists each edge both ways, as often and with the same weights. The
            O(n + m) checks and the sort are skipped, and wrong arrays go unnoticed (wrong results,
            or reads out of bounds): for arrays made from a valid graph, such as a generator's or a
            relabelling's. Parallel arcs and self loops are kept either way.
        sorted_rows : bool, optional
            Whether each row lists its ids in increasing order already (not checked): the sort,
            and the copies of `indices` and `weights` it makes, are skipped. Default: `trusted`.

        Returns
        -------
        Graph
            Arrays that have its dtypes (int64, int32, float32) and need no sort are kept without
            a copy, and made read-only.

        Raises
        ------
        InvalidGraphError
            Arrays of the wrong shapes, ids that are not integers, more than MAX_VERTICES vertices;
            unless `trusted`, offsets, ids or an undirected graph's mirror at fault.

        Examples
        --------
        >>> import numpy as np
        >>> offsets, indices = np.array([0, 2, 3, 3]), np.array([1, 2, 2], np.int32)
        >>> G = Graph.from_csr(offsets, indices, trusted=True)
        >>> G.n, G.nnz, G.has_arcs([0, 2], [2, 0]).tolist()
        (3, 3, [True, False])
        """
        G = cls.__new__(cls)
        sort = not (trusted if sorted_rows is None else sorted_rows)
        G._build(offsets, indices, weights, directed, labels, order, sort=sort, check=not trusted)
        return G

    def _build(self, offsets, indices, weights, directed, labels, order, *, sort, check):
        """The constructors' body: `sort` the rows, `check` the offsets, ids and mirror."""
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        indices = np.asarray(indices)
        if offsets.ndim != 1 or offsets.shape[0] < 1:
            raise InvalidGraphError("offsets must be a 1-D array of length n + 1")
        n = offsets.shape[0] - 1
        if n > MAX_VERTICES:
            raise InvalidGraphError(f"{n} vertices: gravel supports fewer than 2**31")
        if check and (offsets[0] != 0 or (n and not np.all(offsets[1:] >= offsets[:-1]))):
            raise InvalidGraphError("offsets must start at 0 and never decrease")
        if indices.ndim != 1 or indices.shape[0] != offsets[-1]:
            raise InvalidGraphError(
                f"indices has {indices.shape[0]} entries, offsets[-1] says {offsets[-1]}"
            )
        if indices.dtype.kind not in "iu" and indices.size:
            whole = (
                np.isfinite(indices) & (indices == np.round(indices))
                if indices.dtype.kind == "f"
                else None
            )
            if whole is None or not whole.all():
                bad = indices.ravel()[0] if whole is None else indices[~whole][0]
                raise InvalidGraphError(f"indices must be integer vertex ids, not {bad.item()!r}")
        if check and indices.size and (indices.min() < 0 or indices.max() >= n):
            bad = indices[(indices < 0) | (indices >= n)][0]
            raise InvalidGraphError(f"vertex id {bad} out of range [0, {n})")
        indices = np.ascontiguousarray(indices, dtype=np.int32)
        if weights is not None:
            weights = np.ascontiguousarray(weights, dtype=np.float32)
            if weights.shape != indices.shape:
                raise InvalidGraphError("weights must have one entry per arc")
        if sort:
            indices = indices.copy()
            weights = None if weights is None else weights.copy()
            _csr.sort_rows(offsets, indices, weights)
        if check and not directed and indices.size:
            _arcs.check_mirrored(offsets, indices, weights)
        self._arrays = (
            _readonly(offsets),
            _readonly(indices),
            None if weights is None else _readonly(weights),
        )
        self._n, self._nnz, self._weighted = n, indices.shape[0], weights is not None
        self.directed = bool(directed)
        self.labels = None if labels is None else _readonly(np.asarray(labels))
        if self.labels is not None and self.labels.shape != (n,):
            raise InvalidGraphError(
                f"labels has shape {self.labels.shape}: one label per vertex, ({n},)"
            )
        self.order = (
            None if order is None else _readonly(np.ascontiguousarray(order, dtype=np.int32))
        )
        self._device = None
        if self.order is not None and self.order.shape != (n,):
            raise InvalidGraphError("order must hold one internal id per vertex")

    @classmethod
    def from_device(cls, dg, *, labels=None, order=None):
        """A graph whose arrays live on the GPU; its host copies are made on first use, so that
        work on the device never waits for them (copying a reordered CSR back would take most of
        the reordering's time: docs/tuning.md).

        Parameters
        ----------
        dg : gravel.backends.cuda.graph.DeviceGraph
            Made by gravel from a valid graph, and trusted as :meth:`from_csr` trusts: it becomes
            the graph's :attr:`device_graph`, and the graph its ``host``.
        labels, order : array, optional
            As for :class:`Graph`.

        Returns
        -------
        Graph
        """
        self = cls.__new__(cls)
        self._arrays = None
        self._n, self._nnz, self._weighted = dg.n, dg.nnz, dg.weights is not None
        self.directed = dg.directed
        self.labels = labels
        self.order = (
            None if order is None else _readonly(np.ascontiguousarray(order, dtype=np.int32))
        )
        self._device = dg
        dg.host = self
        return self

    @property
    def device_graph(self):
        """The DeviceGraph that ``G.to("cuda")`` made (or the one the graph was built on), or None;
        never copies. Use it to work where the graph already lives."""
        return self._device

    @property
    def offsets(self):
        """CSR row offsets (int64, n + 1)."""
        return self._host_csr()[0]

    @property
    def indices(self):
        """CSR column ids (int32, one per arc; rows sorted)."""
        return self._host_csr()[1]

    @property
    def weights(self):
        """Arc weights (float32) or None."""
        return self._host_csr()[2]

    def _host_csr(self):
        if self._arrays is None:
            dg = self._device
            self._arrays = tuple(
                None if a is None else _readonly(host(a))
                for a in (dg.offsets, dg.indices, dg.weights)
            )
        return self._arrays

    # -- constructors ------------------------------------------------------------------------------
    # builders: their bodies and documentation are in gravel.construction
    from_edges = classmethod(construction.from_edges)
    from_edge_blocks = classmethod(construction.from_edge_blocks)

    # conversions: their bodies and documentation are in gravel.tensors and gravel.interop
    from_dlpack = classmethod(tensors.from_dlpack)
    from_pyg = classmethod(tensors.from_pyg)
    from_scipy = classmethod(interop.from_scipy)
    from_networkx = classmethod(interop.from_networkx)
    from_pandas = classmethod(interop.from_pandas)
    to_scipy = interop.to_scipy
    to_networkx = interop.to_networkx
    to_arrow = interop.to_arrow

    # -- views and devices -------------------------------------------------------------------------
    # the arcs' views and the graph on a device: their bodies and documentation are in gravel.views
    # and gravel.devices
    edges = views.edges
    has_arcs = views.has_arcs
    to = devices.to

    # -- sizes and degrees -------------------------------------------------------------------------
    @property
    def n(self):
        """Number of vertices."""
        return self._n

    @property
    def nnz(self):
        """Number of stored arcs (an undirected edge counts twice, a self loop once)."""
        return self._nnz

    # statistics found once: their bodies and documentation are in gravel.stats
    self_loops = cached_property(stats.self_loops)

    @property
    def m(self):
        """Number of edges: arcs if directed, unordered pairs (loops once) if undirected."""
        if self.directed:
            return self.nnz
        return (self.nnz - self.self_loops) // 2 + self.self_loops

    @property
    def weighted(self):
        """Whether the graph has arc weights."""
        return self._weighted

    weight_stats = cached_property(stats.weight_stats)
    whole_weights = cached_property(stats.whole_weights)

    def _weights_where_they_live(self):
        """The weights on the device for a graph built or relabelled there (no host arrays), else
        on the host: a scan of them makes no copy."""
        return self._device.weights if self._arrays is None else self.weights

    has_parallel_arcs = cached_property(stats.has_parallel_arcs)

    @cached_property
    def out_degree(self):
        """Each vertex's number of out-arcs, found once.

        Returns
        -------
        numpy.ndarray of int32, shape (n,)
            Read-only; a self loop counts once, an undirected edge once at each end.
        """
        return _readonly(np.diff(self.offsets).astype(np.int32))

    @cached_property
    def max_out_degree(self):
        """The largest out-degree, found once.

        Returns
        -------
        int
            0 without vertices.
        """
        return int(self.out_degree.max(initial=0))

    @cached_property
    def in_degree(self):
        """Each vertex's number of in-arcs, found once.

        Returns
        -------
        numpy.ndarray of int32, shape (n,)
            Read-only; :attr:`out_degree` itself for an undirected graph.
        """
        if not self.directed:
            return self.out_degree
        return _readonly(np.bincount(self.indices, minlength=self.n).astype(np.int32))

    # -- derived layouts ---------------------------------------------------------------------------
    @cached_property
    def _csc(self):
        if not self.directed:
            return self.offsets, self.indices, self.weights
        off, idx, w = _csr.transpose(self.offsets, self.indices, self.weights, self.n)
        return _readonly(off), _readonly(idx), (None if w is None else _readonly(w))

    csc = views.csc  # its body and documentation are in gravel.views

    @cached_property
    def _simple_undirected(self):
        if self.directed:  # streamed from the rows: no edge list is ever whole
            rows = _csr.row_blocks(self.offsets, self.indices, None)
            off, idx, _ = _csr.stream_csr(
                rows, self.nnz, self.n, True, dedupe=True, drop_loops=True
            )
        else:
            off, idx, _ = _csr.clean_rows(
                self.offsets, self.indices, None, dedupe=True, drop_loops=True
            )
        return Graph.from_csr(
            off, idx, directed=False, labels=self.labels, order=self.order, trusted=True
        )

    def simple_undirected(self):
        """This graph symmetrised, unweighted, without self loops or duplicate edges: the graph
        triangle counting and k-cores see. Built once and kept.

        Returns
        -------
        Graph
            Undirected, with this graph's labels and order.

        See Also
        --------
        gravel.transform.simple_undirected

        Examples
        --------
        >>> from gravel import Graph
        >>> S = Graph.from_edges([0, 1, 1, 2], [1, 0, 1, 0]).simple_undirected()
        >>> S.directed, S.m, S.self_loops
        (False, 2, 0)
        """
        return self._simple_undirected

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return f"<gravel.Graph n={self.n} m={self.m} {kind}{w}>"

    def __eq__(self, other):
        if not isinstance(other, Graph):
            return NotImplemented
        same_w = (self.weights is None) == (other.weights is None) and (
            self.weights is None or np.array_equal(self.weights, other.weights)
        )
        return (
            self.directed == other.directed
            and np.array_equal(self.offsets, other.offsets)
            and np.array_equal(self.indices, other.indices)
            and same_w
        )

    __hash__ = None
