"""A graph's arrays in device memory, and views of them (reversed, other weights) sharing them."""

from functools import cached_property

from ...arrays import entry_rows, xp
from ...errors import InvalidGraphError

#: arcs from which an arc's position overflows int32 (cuSPARSE's offsets, kept permutations)
INT32_ARCS = 2**31


class DeviceGraph:
    """CSR (and, on first use, CSC) of a graph as device arrays.

    Built by ``G.to("cuda")`` (the host Graph stays reachable as ``.host``), or by
    :meth:`from_arrays` for a graph gravel built on the GPU. Operators read ``n``, ``nnz``,
    ``directed``, ``offsets``, ``indices``, ``weights``, :meth:`csc` and ``out_degree``.
    :meth:`reverse` and :meth:`with_weights` give views with those same attributes, sharing this
    graph's arrays.

    The CSC of a directed graph is transposed on the device on first use, never fetched from the
    host. Every array is computed with the module of ``offsets`` (CuPy; NumPy stands in for it in
    tests).
    """

    def __init__(self, G, plan=None):
        import cupy

        from . import pinned, tiers
        from .runtime import check_fits

        placement = "device" if plan is None else plan.placement
        if placement == "device":
            arrays = [a for a in (G.offsets, G.indices, G.weights) if a is not None]
            check_fits(sum(a.nbytes for a in arrays), "the graph's CSR")
            indices = cupy.asarray(G.indices)
            weights = None if G.weights is None else cupy.asarray(G.weights)
        elif placement == "managed":
            indices, weights = pinned.managed(G.indices), pinned.managed(G.weights)
        else:  # "host" and "tiered": the lists stay in the Graph's own host buffers
            indices, weights = pinned.mapped(G.indices), pinned.mapped(G.weights)
        self._set(cupy.asarray(G.offsets), indices, weights, directed=G.directed, host=G)
        self.placement = placement
        if placement == "tiered":
            self.hot = tiers.hot_lists(G, plan.hot, cupy)
        if placement in ("host", "tiered") and G.directed:
            # the in-lists stay on the host too, not transposed into device memory
            self._build_csc = lambda: _mapped_csc(G)

    @classmethod
    def from_arrays(cls, offsets, indices, weights=None, *, directed=True, host=None, csc=None):
        """A device graph over CSR arrays that gravel built on the GPU (no copy, no check).

        For transforms of a graph that lives on the device (:func:`gravel.transform.relabel`,
        :func:`gravel.transform.orient_by_degree`) and the parts of a partitioned graph
        (:mod:`gravel.distributed.device_part`); algorithms use views (:meth:`reverse`,
        :meth:`with_weights`) instead. Ids must be in range, and rows sorted wherever an
        operator that needs them so (intersect) reads them: a part's are not.

        Parameters
        ----------
        offsets, indices : device arrays of int64 and int32
            The CSR.
        weights : device array of float32, optional
        directed : bool, default True
        host : Graph, optional
            The same graph on the host, if there is one; only kept as ``.host``.
        csc : tuple of (offsets, sources, weights), optional
            The in-edges, where they are not the CSR's transpose: a part's in-lists name arcs
            its out-lists do not hold. Default: transposed on first use.

        Returns
        -------
        DeviceGraph
            Over the given arrays, sharing them. Its :meth:`csc_order` and :meth:`with_weights`
            assume the CSC is the CSR's transpose.
        """
        self = cls.__new__(cls)
        self._set(offsets, indices, weights, directed=directed, host=host, csc=csc)
        return self

    #: where the lists live: "device", "managed", "host" (pinned, read over the bus) or "tiered"
    #: (what each builds, and what reads it: :mod:`gravel.placement`)
    placement = "device"
    #: for "tiered": the lists kept in device memory, a :class:`gravel.backends.cuda.tiers.HotLists`
    hot = None

    def _set(self, offsets, indices, weights, *, directed, host, csc=None):
        self.host = host
        self.offsets, self.indices, self.weights = offsets, indices, weights
        self.n, self.nnz, self.directed = int(offsets.size) - 1, int(indices.size), bool(directed)
        self._cache = {}  # what cached() keeps: layouts and other data derived from these arrays
        if csc is None and not directed:
            csc = (offsets, indices, weights)  # an undirected graph's CSR is its own CSC
        self._csc = csc
        self._build_csc = self._transpose

    def cached(self, key, build):
        """The value kept under `key` for as long as this graph lives, built by ``build()`` on first
        use. Views (:meth:`reverse`, :meth:`with_weights`) keep their own."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def clear_cache(self):
        """Drop everything :meth:`cached` keeps (layouts, bins, buffers), to free device memory."""
        self._cache.clear()

    # -- in-edges ----------------------------------------------------------------------------------
    def csc(self):
        """In-edges ``(offsets, sources, weights)`` on the device, rows sorted by source; built on
        first use and kept."""
        if self._csc is None:
            self._csc = self._build_csc()
        return self._csc

    def _transpose(self):
        """The CSC, by a stable sort of the arcs by destination on the device: CSR order lists each
        destination's sources in increasing order already, so the rows come out sorted as the host's
        transpose sorts them (parallel arcs in CSR order)."""
        m = xp(self.offsets)
        order = self._cache.get("csc_order")
        if order is None:
            order = _csc_order(self.indices)  # not kept: the CSC needs it once
        sources = entry_rows(self.offsets, self.nnz).astype(m.int32)[order]
        weights = None if self.weights is None else self.weights[order]
        return _csc_offsets(self.indices, self.n), sources, weights

    def csc_order(self):
        """Position in the CSR of each arc of the CSC, in CSC order (so ``w[csc_order()]`` lists
        per-arc values `w` by destination); computed on the device once and kept."""
        if not self.directed:
            m = xp(self.offsets)
            dtype = _index_type(m, self.nnz)
            return self.cached("csc_order", lambda: m.arange(self.nnz, dtype=dtype))
        return self.cached("csc_order", lambda: _csc_order(self.indices))

    # -- views -------------------------------------------------------------------------------------
    def reverse(self):
        """This graph with every arc turned around, sharing arrays: its CSR is this graph's CSC and
        its :meth:`csc` this graph's CSR. An undirected graph is its own reverse. Kept."""
        if not self.directed:
            return self
        return self.cached("reverse", self._reversed)

    def _reversed(self):
        view = DeviceGraph.__new__(DeviceGraph)
        csr = (self.offsets, self.indices, self.weights)
        view._set(*self.csc(), directed=True, host=None, csc=csr)
        view.placement = self.placement if self.placement != "tiered" else "host"
        view._cache["reverse"] = self
        return view

    def with_weights(self, weights):
        """A view with this graph's arcs and other per-arc `weights`.

        Parameters
        ----------
        weights : array of float32, shape (nnz,)
            One weight per arc in CSR order, a device array (another array is converted, a copy).
            An undirected graph's CSR is its own CSC, so the weights of ``u -> v`` and ``v -> u``
            must agree, as a Graph's own do.

        Returns
        -------
        DeviceGraph
            Offsets, ids and the CSC's structure are this graph's (shared, not copied); its
            :meth:`csc` carries `weights` in CSC order (the permutation is computed once per graph).
        """
        m = xp(self.offsets)
        weights = m.ascontiguousarray(m.asarray(weights, dtype=m.float32))
        if weights.shape != (self.nnz,):
            raise InvalidGraphError(f"with_weights: {weights.shape} weights for {self.nnz} arcs")
        view = DeviceGraph.__new__(DeviceGraph)
        view._set(self.offsets, self.indices, weights, directed=self.directed, host=None)
        # the device copy of hot lists holds the old weights: the view reads every list in place
        view.placement = self.placement if self.placement != "tiered" else "host"
        if self.directed:
            view._build_csc = lambda: self.csc()[:2] + (weights[self.csc_order()],)
        return view

    # -- sizes -------------------------------------------------------------------------------------
    @cached_property
    def out_degree(self):
        return (self.offsets[1:] - self.offsets[:-1]).astype("int32")

    @property
    def weighted(self):
        return self.weights is not None

    def __repr__(self):
        return f"<gravel.DeviceGraph n={self.n} nnz={self.nnz} on cuda, {self.placement}>"


def _mapped_csc(G):
    """G's in-lists (transposed on the host) pinned and read over the bus."""
    from . import pinned

    offsets, sources, weights = G.csc()
    import cupy

    return cupy.asarray(offsets), pinned.mapped(sources), pinned.mapped(weights)


def _index_type(m, nnz):
    """Arc positions as int32 where they fit: half the memory of a kept permutation."""
    return m.int32 if nnz < INT32_ARCS else m.int64


def _csc_order(indices):
    """The stable argsort of the arcs' destinations (CSR positions, in CSC order)."""
    m = xp(indices)
    return m.argsort(indices, kind="stable").astype(_index_type(m, indices.size), copy=False)


def _csc_offsets(indices, n):
    """CSC row offsets: the in-degree of every vertex, scanned."""
    m = xp(indices)
    offsets = m.zeros(n + 1, m.int64)
    if indices.size:
        m.cumsum(m.bincount(indices, minlength=n), out=offsets[1:])
    return offsets
