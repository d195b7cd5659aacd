"""Vertex orders for cache locality (Balaji's thesis, chapters 2 and 3), as pure functions.

Lightweight, degree-based orders put the hubs (degree above the average) next to each other so that
their data shares cache lines: degree sort, hub sort, hub cluster and DBG; RCM (SciPy's) is the
classic bandwidth-reducing order. The packing factor (the thesis's Algorithm 3) predicts whether hub
sorting pays. Every order takes the degrees (NumPy or CuPy: it runs where they live, with no host
wait) and returns ``perm`` with ``perm[v]`` the new id of vertex v."""

import numpy as np

from ..arrays import xp


def perm_from_order(order):
    """order[k] = the vertex that becomes k  ->  perm[v] = new id of v.

    Parameters
    ----------
    order : numpy.ndarray or cupy.ndarray
        A permutation of 0..n-1: the vertices in their new order.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        int32 in `order`'s array module, its inverse permutation.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import perm_from_order
    >>> perm_from_order(np.array([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    m = xp(order)
    perm = m.empty(order.size, m.int32)
    perm[order] = m.arange(order.size, dtype=m.int32)
    return perm


def hubs(degree):
    """Boolean mask of the hubs: degree above the average (tested in integers, on the device where
    the degrees are: no wait for it).

    Parameters
    ----------
    degree : numpy.ndarray or cupy.ndarray
        Integer degree of each vertex; the order is computed where the degrees live.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        bool per vertex, in `degree`'s array module.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import hubs
    >>> hubs(np.array([1, 5, 0, 3, 1])).tolist()  # the average is 2
    [False, True, False, True, False]
    """
    degree = degree.astype(xp(degree).int64)
    return degree * degree.size > degree.sum()


def degree_sort(degree):
    """Every vertex by decreasing degree (ties keep their order).

    Parameters
    ----------
    degree : numpy.ndarray or cupy.ndarray
        Integer degree of each vertex; the order is computed where the degrees live.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``perm``, int32 in `degree`'s array module: ``perm[v]`` is the new id of vertex v.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import degree_sort
    >>> degree_sort(np.array([1, 5, 0, 3, 1])).tolist()
    [2, 0, 4, 1, 3]
    """
    m = xp(degree)
    return perm_from_order(m.argsort(-degree.astype(m.int64), kind="stable"))


def hub_sort(degree):
    """Hubs first by decreasing degree; the other vertices keep their relative order.

    Parameters
    ----------
    degree : numpy.ndarray or cupy.ndarray
        Integer degree of each vertex; the order is computed where the degrees live.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``perm``, int32 in `degree`'s array module: ``perm[v]`` is the new id of vertex v.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import hub_sort
    >>> hub_sort(np.array([1, 3, 0, 5, 1])).tolist()  # hubs 3 then 1, then 0, 2, 4
    [2, 1, 3, 0, 4]
    """
    m = xp(degree)
    h = hubs(degree)
    hub_ids = m.flatnonzero(h)
    hub_ids = hub_ids[m.argsort(-degree[hub_ids].astype(m.int64), kind="stable")]
    return perm_from_order(m.concatenate([hub_ids, m.flatnonzero(~h)]))


def hub_cluster(degree):
    """Hubs first in their original order, then the rest: the cheapest grouping.

    Parameters
    ----------
    degree : numpy.ndarray or cupy.ndarray
        Integer degree of each vertex; the order is computed where the degrees live.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``perm``, int32 in `degree`'s array module: ``perm[v]`` is the new id of vertex v.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import hub_cluster
    >>> hub_cluster(np.array([1, 3, 0, 5, 1])).tolist()  # hubs 1 then 3, then 0, 2, 4
    [2, 0, 3, 1, 4]
    """
    m = xp(degree)
    h = hubs(degree)
    return perm_from_order(m.concatenate([m.flatnonzero(h), m.flatnonzero(~h)]))


def dbg(degree):
    """Degree-based grouping (Faldu et al., IISWC'19): groups of degree in [2^k, 2^(k+1)) times the
    average, k from -1 (and below) to 5 (and above), hottest group first, original order inside.
    Vertices without edges come last.

    Parameters
    ----------
    degree : numpy.ndarray or cupy.ndarray
        Integer degree of each vertex; the order is computed where the degrees live.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        ``perm``, int32 in `degree`'s array module: ``perm[v]`` is the new id of vertex v.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import dbg
    >>> dbg(np.array([1, 5, 0, 3, 1])).tolist()  # 5, then 3, then the 1s; degree 0 last
    [2, 0, 4, 1, 3]
    """
    m = xp(degree)
    if not degree.size:
        return m.zeros(0, m.int32)
    avg = m.maximum(degree.sum() / degree.size, 1e-12)
    group = m.clip(m.floor(m.log2(m.maximum(degree, 1e-12) / avg)), -1, 5).astype(m.int64)
    group[degree == 0] = -2  # vertices without edges last
    return perm_from_order(m.argsort(-group, kind="stable"))


def rcm(adjacency):
    """Reverse Cuthill-McKee (SciPy's) of a symmetric SciPy sparse adjacency matrix.

    Parameters
    ----------
    adjacency : scipy.sparse matrix or array
        Square and symmetric (an undirected graph's :meth:`gravel.Graph.to_scipy`).

    Returns
    -------
    numpy.ndarray
        ``perm``, int32: ``perm[v]`` is the new id of vertex v.

    Examples
    --------
    >>> import gravel
    >>> from gravel.layouts.orders import rcm
    >>> rcm(gravel.generate.grid(2, 3).to_scipy()).tolist()
    [5, 3, 1, 4, 2, 0]
    """
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    if adjacency.shape[0] == 0:
        return np.zeros(0, np.int32)
    order = reverse_cuthill_mckee(adjacency.tocsr(), symmetric_mode=True)
    return perm_from_order(np.asarray(order, dtype=np.int64))


def packing_factor(degree, *, line_bytes=64, value_bytes=4):
    """Algorithm 3 of the thesis: cache lines holding at least one hub in the current order, over
    ceil(hubs / vertices per line). 1 means the hubs are already packed; large values predict gains.
    One pass over the degrees and one read of its two counts.

    Parameters
    ----------
    degree : numpy.ndarray or cupy.ndarray
        Integer degree of each vertex; the order is computed where the degrees live.
    line_bytes : int, default 64
        Bytes of a cache line.
    value_bytes : int, default 4
        Bytes of one vertex's value.

    Returns
    -------
    float
        At least 1; 1.0 where there is no hub.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.layouts.orders import packing_factor
    >>> d = np.array([1, 5, 0, 3, 1])
    >>> packing_factor(d), packing_factor(d, line_bytes=8)  # 2 hubs in 1 line of 16, in 2 of 2
    (1.0, 2.0)
    """
    m = xp(degree)
    per_line = max(line_bytes // value_bytes, 1)
    h = hubs(degree)
    lines = m.concatenate([h, m.zeros(-h.size % per_line, bool)]).reshape(-1, per_line)
    n_hubs, lines_with_hub = (int(x) for x in m.stack([h.sum(), lines.any(axis=1).sum()]).tolist())
    return lines_with_hub / -(-n_hubs // per_line) if n_hubs else 1.0
