"""A Graph's arrays in device memory."""

from functools import cached_property


class DeviceGraph:
    """CSR (and, on first use, CSC) of a :class:`gravel.Graph` as CuPy arrays.

    Built by ``G.to("cuda")``; the host Graph stays reachable as ``.host``. ``derived`` keeps layouts
    built from these arrays (cache-blocked ones) for as long as the graph lives.
    """

    def __init__(self, G):
        import cupy

        from .runtime import check_fits

        check_fits(G.offsets.nbytes + G.indices.nbytes + (0 if G.weights is None else G.weights.nbytes),
                   "the graph's CSR")
        self.host = G
        self.n, self.nnz, self.directed = G.n, G.nnz, G.directed
        self.offsets = cupy.asarray(G.offsets)
        self.indices = cupy.asarray(G.indices)
        self.weights = None if G.weights is None else cupy.asarray(G.weights)
        self.derived = {}

    @classmethod
    def from_arrays(cls, offsets, indices, weights=None, *, directed=True, host=None):
        """A device graph straight from device CSR arrays (no copy: for graphs built on the GPU). Its
        CSC comes from `host`, the same graph on the host, when directed."""
        self = cls.__new__(cls)
        self.host = host
        self.offsets, self.indices, self.weights = offsets, indices, weights
        self.n, self.nnz, self.directed = offsets.size - 1, indices.size, directed
        self.derived = {}
        return self

    @cached_property
    def _csc(self):
        if not self.directed:
            return self.offsets, self.indices, self.weights
        import cupy

        off, idx, w = self.host.csc()
        return cupy.asarray(off), cupy.asarray(idx), (None if w is None else cupy.asarray(w))

    def csc(self):
        """In-edges (offsets, sources, weights) on the device."""
        return self._csc

    @cached_property
    def out_degree(self):
        return (self.offsets[1:] - self.offsets[:-1]).astype("int32")

    @property
    def weighted(self):
        return self.weights is not None

    def __repr__(self):
        return f"<gravel.DeviceGraph n={self.n} nnz={self.nnz} on cuda>"
