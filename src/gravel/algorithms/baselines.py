"""The other libraries' ways to compute what gravel's algorithms compute, timed beside them by
``gravel bench`` (each algorithm's ``baselines`` in :mod:`gravel.algorithms.catalog`).

Each builder takes the graph and the source and returns a function of no arguments that runs the
baseline once, its setup (matrices, copies) done before, untimed.
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


def scipy_bfs(G, source):
    """SciPy's ``breadth_first_order`` from `source`, on G's arcs as ones.

    Parameters
    ----------
    G : Graph
        The graph gravel's own run (timed first) has checked.
    source : int
        The source id (ignored by whole-graph baselines).

    Returns
    -------
    callable
        A function of no arguments that runs the baseline once.
    """
    from scipy.sparse.csgraph import breadth_first_order

    A = unit_matrix(G)
    return lambda: breadth_first_order(A, source, directed=True, return_predecessors=True)


def scipy_components(connection):
    """A baseline builder: SciPy's "weak" or "strong" components of G's arcs.

    Parameters
    ----------
    connection : {"weak", "strong"}

    Returns
    -------
    callable
        A builder of (G, source), as the other baselines here.
    """

    def build(G, source):
        from scipy.sparse.csgraph import connected_components

        A = unit_matrix(G)
        return lambda: connected_components(A, directed=True, connection=connection)

    return build


def scipy_dijkstra(G, source):
    """Dijkstra on G's weights, which gravel's own run (timed first) has checked.

    Parameters
    ----------
    G : Graph
        The graph gravel's own run (timed first) has checked.
    source : int
        The source id (ignored by whole-graph baselines).

    Returns
    -------
    callable
        A function of no arguments that runs the baseline once.
    """
    from scipy.sparse.csgraph import dijkstra

    A = G.to_scipy()
    return lambda: dijkstra(A, directed=True, indices=source)


def scipy_bellman_ford(G, source):
    """Bellman-Ford on G's weights, which gravel's own run (timed first) has checked.

    Parameters
    ----------
    G : Graph
        The graph gravel's own run (timed first) has checked.
    source : int
        The source id.

    Returns
    -------
    callable
        A function of no arguments that runs the baseline once.
    """
    from scipy.sparse.csgraph import bellman_ford

    A = G.to_scipy()
    return lambda: bellman_ford(A, directed=True, indices=source)


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


def cusparse_pagerank(G, source):
    """PageRank's power iteration as a CuPy user writes it: one SpMV per iteration.

    Parameters
    ----------
    G : Graph
        The graph gravel's own run (timed first) has checked.
    source : int
        The source id (ignored by whole-graph baselines).

    Returns
    -------
    callable
        A function of no arguments that runs the baseline once.
    """
    import cupy

    at = cusparse_transpose(G)
    deg = cupy.asarray(G.out_degree)
    inv = cupy.where(deg > 0, 1.0 / cupy.maximum(deg, 1), 0).astype(cupy.float32)
    dangling = (deg == 0).astype(cupy.float32)

    def run():
        x = cupy.full(G.n, 1.0 / G.n, cupy.float32)
        for _ in range(PAGERANK_ITERATIONS):
            x = 0.85 * (at @ (x * inv) + cupy.dot(x, dangling) / G.n) + 0.15 / G.n
        return x

    return run


def cusparse_bfs(G, source):
    """A BFS whose frontier expands by one SpMV per level.

    Parameters
    ----------
    G : Graph
        The graph gravel's own run (timed first) has checked.
    source : int
        The source id (ignored by whole-graph baselines).

    Returns
    -------
    callable
        A function of no arguments that runs the baseline once.
    """
    import cupy

    at = cusparse_transpose(G)

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


def scipy_msf(G, source):
    """SciPy's ``minimum_spanning_tree`` of G's weights.

    Parameters
    ----------
    G : Graph
        The graph gravel's own run (timed first) has checked.
    source : int
        The source id (ignored by whole-graph baselines).

    Returns
    -------
    callable
        A function of no arguments that runs the baseline once.
    """
    from scipy.sparse.csgraph import minimum_spanning_tree

    A = G.to_scipy()
    return lambda: minimum_spanning_tree(A)
