"""Graphs to and from SciPy sparse matrices, NetworkX graphs, pandas edge tables and pyarrow Tables.

Each function here is a method of :class:`gravel.Graph`: ``Graph.from_scipy(matrix)``,
``G.to_networkx()`` and so on, the ``from_`` ones with the class as `cls`. The libraries are
imported when a conversion runs, never with gravel. Arrays of other libraries (DLPack, PyTorch
Geometric) come in through :mod:`gravel.tensors`."""

import contextlib
import gc

import numpy as np

from .errors import InvalidGraphError


def from_scipy(cls, matrix, *, directed=True, weighted=True):
    """Build a graph from a SciPy sparse matrix; entry (i, j) is the arc i -> j.

    Parameters
    ----------
    matrix : scipy.sparse matrix or array
        Square; copied, never changed.
    directed : bool, default True
        With ``directed=False`` the stored entries must be symmetric, values included (NaN matching
        NaN; use :func:`gravel.transform.symmetrize` on a directed graph otherwise).
    weighted : bool, default True
        Keep the stored values as weights.

    Returns
    -------
    Graph
        One arc per stored entry (explicit zeros included), its value the weight.

    Raises
    ------
    InvalidGraphError
        A matrix that is not square and sparse, or (``directed=False``) an entry whose mirror is
        missing or different, named.
    """
    import scipy.sparse as sp

    if not sp.issparse(matrix) or matrix.shape[0] != matrix.shape[1]:
        raise InvalidGraphError("expected a square SciPy sparse matrix")
    a = sp.csr_array(matrix, copy=True)
    a.sort_indices()
    w = a.data if weighted else None
    # SciPy's indices are in range; an undirected graph's mirror is checked
    return cls.from_csr(
        a.indptr, a.indices, w, directed=directed, trusted=directed, sorted_rows=True
    )


def to_scipy(G):
    """The adjacency matrix as ``scipy.sparse.csr_array``.

    Parameters
    ----------
    G : Graph
        The graph (``G.to_scipy()`` passes itself).

    Returns
    -------
    scipy.sparse.csr_array
        Shape (n, n), the weights as values (float32 ones when unweighted); parallel arcs stay
        separate entries. Its arrays are copies: SciPy may sort or sum duplicates in place.

    Examples
    --------
    >>> from gravel import Graph
    >>> Graph.from_edges([0, 1], [1, 2], [0.5, 2.0]).to_scipy().toarray().tolist()
    [[0.0, 0.5, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    """
    import scipy.sparse as sp

    data = G.weights.copy() if G.weights is not None else np.ones(G.nnz, np.float32)
    return sp.csr_array((data, G.indices.copy(), G.offsets.copy()), shape=(G.n, G.n))


def from_networkx(cls, graph, *, weight="weight"):
    """Build a graph from a NetworkX graph; nodes are numbered in ``graph.nodes`` order.

    Parameters
    ----------
    graph : networkx.Graph or networkx.DiGraph
    weight : str or None, default "weight"
        The edge attribute to read (``None``: unweighted; missing attributes count 1).

    Returns
    -------
    Graph
        Directed as `graph` is; the node of each id is kept in :attr:`~gravel.Graph.labels`,
        unless the nodes are 0..n-1 in order.
    """
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    edges = list(graph.edges(data=weight, default=1)) if weight else list(graph.edges)
    src = np.fromiter((index[e[0]] for e in edges), np.int64, len(edges))
    dst = np.fromiter((index[e[1]] for e in edges), np.int64, len(edges))
    w = np.fromiter((e[2] for e in edges), np.float64, len(edges)) if weight else None
    labels = np.asarray(nodes) if nodes and not _is_range(nodes) else None
    return cls.from_edges(src, dst, w, n=len(nodes), directed=graph.is_directed(), labels=labels)


def from_pandas(
    cls, df, source="source", target="target", weight=None, *, directed=True, relabel=True
):
    """Build a graph from an edge table, as NetworkX's ``from_pandas_edgelist`` reads one.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per edge.
    source, target : str, default "source", "target"
        The columns of the edges' endpoints.
    weight : str, optional
        The column of edge weights (``None``: unweighted).
    directed : bool, default True
        Whether each row is an arc source -> target or an undirected edge.
    relabel : bool, default True
        Number the labels that occur (of any hashable type) 0..n-1, in sorted order where they
        compare and in order of first appearance otherwise, keeping them in
        :attr:`~gravel.Graph.labels`. With ``relabel=False`` the columns must hold integer ids,
        kept as they are.

    Returns
    -------
    Graph

    Raises
    ------
    KeyError
        A named column is not in `df`.
    InvalidGraphError
        An endpoint is missing (NaN or None), named by its column and row.

    Examples
    --------
    >>> import pandas as pd
    >>> from gravel import Graph
    >>> df = pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "w": [2.0, 3.0]})
    >>> G = Graph.from_pandas(df, weight="w")
    >>> G.labels.tolist(), G.nnz
    (['a', 'b', 'c'], 2)
    """
    import pandas as pd

    missing = [c for c in (source, target, weight) if c is not None and c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in the edge table (columns: {list(df)})")
    for column in (source, target):
        empty = df[column].isna().to_numpy()
        if empty.any():
            row = df.index[int(np.flatnonzero(empty)[0])]
            row = row.item() if isinstance(row, np.generic) else row
            raise InvalidGraphError(f"column {column!r} has no vertex at row {row!r} (NaN or None)")
    w = None if weight is None else df[weight].to_numpy()
    if not relabel:
        return cls.from_edges(df[source].to_numpy(), df[target].to_numpy(), w, directed=directed)
    ends = pd.concat([df[source], df[target]], ignore_index=True)
    try:
        ids, labels = pd.factorize(ends, sort=True)
    except TypeError:  # labels of types that do not compare
        ids, labels = pd.factorize(ends)
    return cls.from_edges(
        ids[: len(df)],
        ids[len(df) :],
        w,
        n=len(labels),
        directed=directed,
        labels=np.asarray(labels),
    )


def to_networkx(G):
    """The graph as a NetworkX graph.

    Parameters
    ----------
    G : Graph
        The graph (``G.to_networkx()`` passes itself).

    Returns
    -------
    networkx.DiGraph or networkx.Graph
        Directed as `G` is, its nodes `G`'s labels (or ids); parallel arcs merge, the last weight
        winning. Weights are the edge attribute ``"weight"``.

    Examples
    --------
    >>> from gravel import Graph
    >>> g = Graph.from_edges([0, 1], [1, 2], directed=False).to_networkx()
    >>> sorted(g.edges())
    [(0, 1), (1, 2)]
    """
    names = G.labels.tolist() if G.labels is not None else range(G.n)
    return networkx_graph(names, *G.edges(), G.weights, directed=G.directed)


def networkx_graph(names, src, dst, weights, *, directed):
    """A NetworkX graph of arcs in CSR order, built as ``add_weighted_edges_from`` would build it
    (nodes in order, each node's neighbours in arc order, one attribute dict per edge shared by
    both directions, the last of parallel arcs winning) but row by row in C loops, about 3x faster:
    its node and adjacency dicts (``_node``, ``_adj``, ``_pred``) are filled directly.

    Parameters
    ----------
    names : sequence
        The node of each vertex id.
    src, dst : numpy.ndarray of int
        The arcs, sorted by `src`; an undirected graph's both ways, mirrored as
        :class:`gravel.Graph` keeps them.
    weights : numpy.ndarray or None
        Each arc's ``"weight"`` attribute.
    directed : bool

    Returns
    -------
    networkx.DiGraph or networkx.Graph
    """
    import networkx as nx

    # millions of new dicts, none in a cycle: the collector's passes over them would double the
    # time, so it pauses for the build
    with collector_paused():
        return _build(nx, names, src, dst, weights, directed)


@contextlib.contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector for a block that builds many containers in no
    cycle (a NetworkX graph's dicts, a dict of a million paths), then restore it as it was.

    Each batch of new containers counts towards the collector's next pass, and its passes of the
    oldest generation walk every object the process holds: beside a large NetworkX graph such
    passes, not the build, take most of the time. Nested blocks leave the collector paused until
    the outermost ends. The pause is the process's: other threads' cycles wait for its end too.

    Yields
    ------
    None
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _build(nx, names, src, dst, weights, directed):
    """The graph :func:`networkx_graph` returns."""
    n = len(names)
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    g = nx.DiGraph() if directed else nx.Graph()
    g._node.update((v, {}) for v in names)
    if directed:
        data = _edge_data(weights, np.arange(len(src)))
        g._adj.update(_rows(names, src, dst, data))
        by_dst = np.argsort(dst, kind="stable")
        pred = list(map(data.__getitem__, by_dst.tolist()))
        g._pred.update(_rows(names, dst[by_dst], src[by_dst], pred))
        return g
    # an edge's dict is that of its last arc in the row of its larger end (NetworkX's last write)
    lower = np.flatnonzero(src >= dst)
    data = _edge_data(weights, lower)
    key = dst[lower] * n + src[lower]
    order = np.argsort(key, kind="stable")
    ref = np.empty(len(src), np.int64)
    ref[lower] = np.arange(len(lower))
    upper = np.flatnonzero(src < dst)
    ref[upper] = order[np.searchsorted(key[order], src[upper] * n + dst[upper], "right") - 1]
    g._adj.update(_rows(names, src, dst, list(map(data.__getitem__, ref.tolist()))))
    return g


def _edge_data(weights, arcs):
    """A new attribute dict for each of `arcs`: its weight, or empty."""
    if weights is None:
        return [{} for _ in range(len(arcs))]
    return [{"weight": w} for w in np.asarray(weights)[arcs].tolist()]


def _rows(names, src, dst, data):
    """``{name: {neighbour: data}}`` of every vertex, from arcs sorted by `src`."""
    bounds = np.searchsorted(src, np.arange(len(names) + 1)).tolist()
    heads = dst.tolist() if isinstance(names, range) else list(map(names.__getitem__, dst.tolist()))
    return {
        v: dict(zip(heads[a:b], data[a:b]))
        for v, a, b in zip(names, bounds[:-1], bounds[1:], strict=True)
    }


def _is_range(nodes):
    return all(isinstance(v, (int, np.integer)) and v == i for i, v in enumerate(nodes))


def to_arrow(G):
    """Every stored arc as a ``pyarrow.Table``, in CSR order (an undirected graph lists each edge
    both ways).

    Parameters
    ----------
    G : Graph
        The graph (``G.to_arrow()`` passes itself).

    Returns
    -------
    pyarrow.Table
        Columns ``source`` and ``target`` (labels where the graph has them) and, for a weighted
        graph, ``weight``.

    Raises
    ------
    ImportError
        pyarrow is not installed.
    """
    return edge_table(G)


def edge_table(G, undirected_once=False):
    """`G`'s arcs as a pyarrow Table, as :func:`to_arrow` makes it.

    Parameters
    ----------
    G : Graph
    undirected_once : bool, default False
        List each edge of an undirected graph once, as ``source <= target`` (a Parquet file's
        rows).

    Returns
    -------
    pyarrow.Table
    """
    pa = require_pyarrow("to_arrow")
    src, dst = G.edges()
    w = G.weights
    if undirected_once and not G.directed:
        keep = src <= dst
        src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
    if G.labels is not None:
        src, dst = G.labels[src], G.labels[dst]
    columns = {"source": src, "target": dst} | ({} if w is None else {"weight": w})
    return pa.table(columns)


def require_pyarrow(what):
    """The pyarrow module, with its ``parquet`` submodule imported.

    Parameters
    ----------
    what : str
        What needs pyarrow, for the message.

    Returns
    -------
    module
        ``pyarrow``.

    Raises
    ------
    ImportError
        pyarrow is not installed: a one-line hint of how to install it.
    """
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401  (the submodule is not imported by pyarrow itself)
    except ImportError:
        raise ImportError(f"{what} needs pyarrow: pip install 'gravel[arrow]'") from None
    return pyarrow
