"""Arrays of other libraries in: DLPack-capable arrays (NumPy, CuPy, PyTorch, JAX) and PyTorch
Geometric's ``edge_index``; results out as PyTorch tensors (:func:`to_torch`).

The edge arrays are copied to the host once and the graph is built there (this version of gravel
builds a CSR on the host only; :meth:`gravel.Graph.to` then moves it to the GPU). Host arrays that
speak DLPack are read without a copy; device arrays are copied once, and only the edges, never
per-vertex data. Nothing here imports CuPy, nor PyTorch until :func:`to_torch` runs: their arrays
are recognised by their type's module."""

import numpy as np

from .errors import InvalidGraphError


def to_host(a, name):
    """`a` as a NumPy array: NumPy as it is, a host DLPack array without a copy, a CuPy or
    PyTorch device array copied once.

    Parameters
    ----------
    a : array_like or None
        A NumPy, CuPy or PyTorch array, another array that speaks DLPack, or anything
        ``numpy.asarray`` takes (a list, say). None passes through.
    name : str
        The argument's name, for the message.

    Returns
    -------
    numpy.ndarray or None
        `a` itself for NumPy (or None); a copy for a device array; a view for a host DLPack
        array; ``numpy.asarray(a)`` otherwise.

    Raises
    ------
    InvalidGraphError
        An array that speaks DLPack but that NumPy cannot read through it (a device other than
        CuPy's or PyTorch's, say), naming `name`.

    Examples
    --------
    >>> from gravel.tensors import to_host
    >>> to_host([0, 1, 2], "src")
    array([0, 1, 2])
    """
    if a is None or isinstance(a, np.ndarray):
        return a
    if _is_cupy(a):
        return a.get()
    if type(a).__module__.startswith("torch"):
        return a.detach().cpu().numpy()
    if hasattr(a, "__dlpack__"):
        try:
            return np.from_dlpack(a)
        except (BufferError, RuntimeError, TypeError) as e:
            raise InvalidGraphError(
                f"{name}: cannot read this array through DLPack ({e})"
            ) from None
    return np.asarray(a)


def _is_cupy(a):
    return type(a).__module__.startswith("cupy")


def to_torch(arrays):
    """PyTorch tensors of per-vertex arrays, such as a result's.

    Parameters
    ----------
    arrays : dict of str to numpy.ndarray or cupy.ndarray
        The arrays by name.

    Returns
    -------
    dict of str to torch.Tensor
        ``{name: tensor}``: a CuPy array becomes a tensor on its GPU through DLPack, a NumPy
        array a CPU tensor sharing its memory (a read-only or non-contiguous one is copied); a
        structured array gives a tensor per field, ``"name.field"``.

    Raises
    ------
    ImportError
        PyTorch is not installed.
    """
    try:
        import torch
    except ImportError:
        raise ImportError("to_torch needs PyTorch: pip install torch") from None
    out = {}
    for name, a in arrays.items():
        parts = {f"{name}.{f}": a[f] for f in a.dtype.names} if a.dtype.names else {name: a}
        for key, part in parts.items():
            if _is_cupy(part):
                out[key] = torch.from_dlpack(part)
            else:  # a structured array's field is a strided view: copied to be contiguous
                out[key] = torch.from_numpy(np.require(part, requirements=("C", "W")))
    return out


def from_dlpack(cls, src, dst, weights=None, *, n=None, directed=True, dedupe=False):
    """Build a graph from arc arrays of any library that speaks DLPack (NumPy, CuPy, PyTorch, ...),
    as :meth:`gravel.Graph.from_edges` does.

    Device arrays are copied to the host once and the graph is built there; host arrays are read
    without a copy.

    Parameters
    ----------
    src, dst : array
        The arcs ``src[i] -> dst[i]`` (edges, when ``directed=False``).
    weights : array, optional
    n, directed, dedupe
        As for :meth:`~gravel.Graph.from_edges`.

    Returns
    -------
    Graph
        On the host, whichever device the arrays were on (:meth:`~gravel.Graph.to` moves it).

    Raises
    ------
    InvalidGraphError
        An array DLPack cannot read, or ids :meth:`~gravel.Graph.from_edges` refuses.
    """
    return cls.from_edges(
        to_host(src, "src"),
        to_host(dst, "dst"),
        to_host(weights, "weights"),
        n=n,
        directed=directed,
        dedupe=dedupe,
    )


def from_pyg(cls, edge_index, edge_weight=None, num_nodes=None):
    """Build a directed graph from PyTorch Geometric's ``edge_index`` and ``edge_weight``.

    Copies as :meth:`~gravel.Graph.from_dlpack` does; needs no PyTorch for NumPy input.

    Parameters
    ----------
    edge_index : array, shape (2, E)
        Row 0 the sources, row 1 the targets.
    edge_weight : array, shape (E,), optional
    num_nodes : int, optional
        Default: the largest id + 1.

    Returns
    -------
    Graph
        Directed, on the host.

    Raises
    ------
    InvalidGraphError
        `edge_index` of another shape, or arrays :meth:`~gravel.Graph.from_dlpack` refuses.
    """
    shape = tuple(getattr(edge_index, "shape", ()))
    if len(shape) != 2 or shape[0] != 2:
        raise InvalidGraphError(f"edge_index must have shape (2, E), not {shape}")
    ends = to_host(edge_index, "edge_index")
    return cls.from_edges(ends[0], ends[1], to_host(edge_weight, "edge_weight"), n=num_nodes)
