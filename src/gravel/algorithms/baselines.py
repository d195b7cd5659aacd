"""The other libraries' ways to compute what gravel's algorithms compute, timed beside them by
``gravel bench`` (each algorithm's ``baselines`` in :mod:`gravel.algorithms.catalog`).

Each builder takes the graph and the source and returns a function of no arguments that runs the
baseline once, its setup (matrices, copies) done before, untimed. The builders are made by two
factories: :func:`scipy_csgraph` for SciPy's ``csgraph`` functions, and :func:`cusparse_spmv` for
loops of SpMV as a CuPy user writes them.
"""

#: iterations of a timed PageRank (and HITS) run: NetworkX's stopping rule ends after a handful on
#: large graphs, so the bench fixes the count
PAGERANK_ITERATIONS = 20


def unit_matrix(G):
    """G's adjacency as a SciPy CSR matrix of ones (hop counts).

    Parameters
    ----------
    G : Graph

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    A = G.to_scipy()
    A.data[:] = 1
    return A


def scipy_csgraph(function, *, ones=False, source=None, **options):
    """A baseline builder: a function of SciPy's ``csgraph`` on G's adjacency.

    Parameters
    ----------
    function : str
        The name of a ``scipy.sparse.csgraph`` function (``"dijkstra"``, say).
    ones : bool, default False
        G's arcs as ones (hop counts); else G's weights, which gravel's own run (timed first) has
        checked.
    source : str, optional
        The keyword that takes the source vertex; None for a whole-graph function.
    **options
        Further keywords passed on to `function` as they are.

    Returns
    -------
    callable
        A builder of (G, source), as the other baselines here.
    """

    def build(G, s):
        from scipy.sparse import csgraph

        run = getattr(csgraph, function)
        A = unit_matrix(G) if ones else G.to_scipy()
        keywords = {source: s} if source else {}
        return lambda: run(A, **keywords, **options)

    return build


#: SciPy's baselines (builders of (G, source)), one a function of ``csgraph``
scipy_bfs = scipy_csgraph(
    "breadth_first_order", ones=True, source="i_start", directed=True, return_predecessors=True
)
scipy_weak = scipy_csgraph("connected_components", ones=True, directed=True, connection="weak")
scipy_strong = scipy_csgraph("connected_components", ones=True, directed=True, connection="strong")
scipy_dijkstra = scipy_csgraph("dijkstra", source="indices", directed=True)
scipy_bellman_ford = scipy_csgraph("bellman_ford", source="indices", directed=True)
scipy_msf = scipy_csgraph("minimum_spanning_tree")


def cusparse_transpose(G):
    """A^T as a cupyx CSR matrix of ones: its rows are G's in-edges.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    cupyx.scipy.sparse.csr_matrix
    """
    import cupy
    import cupyx.scipy.sparse as csp

    off, idx, _ = G.csc()
    ones = cupy.ones(len(idx), cupy.float32)
    return csp.csr_matrix((ones, cupy.asarray(idx), cupy.asarray(off)), shape=(G.n, G.n))


def cusparse_spmv(method):
    """A baseline builder: `method`, written as a CuPy user writes it, with one SpMV of
    :func:`cusparse_transpose`'s matrix per step.

    Parameters
    ----------
    method : callable
        ``method(at, G, source)``, `at` G's A^T: returns the function that runs the baseline once.

    Returns
    -------
    callable
        A builder of (G, source), as the other baselines here.
    """
    return lambda G, source: method(cusparse_transpose(G), G, source)


def _pagerank(at, G, source):
    """PageRank's power iteration, PAGERANK_ITERATIONS steps (`source` unused)."""
    import cupy

    deg = cupy.asarray(G.out_degree)
    inv = cupy.where(deg > 0, 1.0 / cupy.maximum(deg, 1), 0).astype(cupy.float32)
    dangling = (deg == 0).astype(cupy.float32)

    def run():
        x = cupy.full(G.n, 1.0 / G.n, cupy.float32)
        for _ in range(PAGERANK_ITERATIONS):
            x = 0.85 * (at @ (x * inv) + cupy.dot(x, dangling) / G.n) + 0.15 / G.n
        return x

    return run


def _bfs(at, G, source):
    """A BFS from `source` whose frontier expands by one SpMV per level."""
    import cupy

    def run():
        visited = cupy.zeros(G.n, bool)
        visited[source] = True
        f = cupy.zeros(G.n, cupy.float32)
        f[source] = 1
        while True:
            nxt = (at @ f > 0) & ~visited
            if not bool(nxt.any()):  # sync per level, as any CuPy loop must
                return visited
            visited |= nxt
            f = nxt.astype(cupy.float32)

    return run


#: cuSPARSE's baselines (builders of (G, source))
cusparse_pagerank = cusparse_spmv(_pagerank)
cusparse_bfs = cusparse_spmv(_bfs)
