"""Arrays of other libraries in: DLPack-capable arrays (NumPy, CuPy, PyTorch, JAX) and PyTorch
Geometric's ``edge_index``.

The edge arrays are copied to the host once and the graph is built there (this version of gravel
builds a CSR on the host only; :meth:`gravel.Graph.to` then moves it to the GPU). Host arrays that
speak DLPack are read without a copy; device arrays are copied once, and only the edges, never
per-vertex data. Nothing here imports CuPy or PyTorch: their arrays are recognised by their type's
module."""

import numpy as np

from .errors import InvalidGraphError


def to_host(a, name):
    """`a` as a NumPy array: NumPy as it is, a host DLPack array without a copy, a CuPy or
    PyTorch device array copied once."""
    if a is None or isinstance(a, np.ndarray):
        return a
    module = type(a).__module__
    if module.startswith("cupy"):
        return a.get()
    if module.startswith("torch"):
        return a.detach().cpu().numpy()
    if hasattr(a, "__dlpack__"):
        try:
            return np.from_dlpack(a)
        except (BufferError, RuntimeError, TypeError) as e:
            raise InvalidGraphError(
                f"{name}: cannot read this array through DLPack ({e})"
            ) from None
    return np.asarray(a)


def from_dlpack(cls, src, dst, weights=None, *, n=None, directed=True, dedupe=False):
    return cls.from_edges(
        to_host(src, "src"),
        to_host(dst, "dst"),
        to_host(weights, "weights"),
        n=n,
        directed=directed,
        dedupe=dedupe,
    )


def from_pyg(cls, edge_index, edge_weight=None, num_nodes=None):
    shape = tuple(getattr(edge_index, "shape", ()))
    if len(shape) != 2 or shape[0] != 2:
        raise InvalidGraphError(f"edge_index must have shape (2, E), not {shape}")
    ends = to_host(edge_index, "edge_index")
    return cls.from_edges(ends[0], ends[1], to_host(edge_weight, "edge_weight"), n=num_nodes)
