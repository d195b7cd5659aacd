"""triangles, transitivity, clustering, average_clustering, square_clustering
(networkx.algorithms.cluster).

The first four read gravel's per-vertex triangle counts on the simple graph (self loops and
parallel edges dropped, as NetworkX's counting ignores them) and its degrees. square_clustering
counts, for each node v, the common neighbours of v and every node within two hops with sparse
matrix products (SciPy on the CPU, cupyx on the GPU). Zero coefficients are the int 0, as
NetworkX returns them.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import triangles as gravel_triangles
from gravel.algorithms.neighbors import tally
from gravel.arrays import entry_rows, host
from gravel.dispatch import choose_device

from .._algorithm import algorithm, device, single_node


def _counts(G):
    """Triangles through each vertex and each vertex's degree, self loops excluded."""
    t = host(gravel_triangles(G.graph, device=device(G.graph)).triangles).astype(np.int64)
    return t, G.graph.simple_undirected().out_degree.astype(np.int64)


def _ids(G, nodes):
    """The vertex ids of `nodes` (None: all), as NetworkX's ``nbunch_iter`` reads them: one node
    of G, or a container whose nodes not in G are skipped; NetworkXError as it raises it."""
    if nodes is None:
        return None
    if single_node(G, nodes):
        return np.array([G.index[nodes]], np.int64)
    ids, v = [], None
    try:
        for v in nodes:
            if v in G.index:
                ids.append(G.index[v])
    except TypeError as err:
        message, exc = str(err), err
        if "iter" in message:
            exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
        if "object is not iterable" in message:
            exc = nx.NetworkXError(f"Node {nodes} is not in the graph.")
        if "hashable" in message:
            exc = nx.NetworkXError(f"Node {v} in sequence nbunch is not a valid node.")
        raise exc from err
    return np.array(ids, np.int64)


def _per_node(G, values, nodes):
    """One value when `nodes` is a node of G, else ``{node: value}``."""
    if single_node(G, nodes):
        return values[G.index[nodes]]
    return G.to_dict(values, _ids(G, nodes))


def _coefficients(G):
    """Clustering coefficient of every vertex, as objects: the int 0 where there is no triangle."""
    t, d = _counts(G)
    c = np.zeros(len(G), object)  # int 0s
    has = t > 0
    c[has] = (2 * t[has] / (d[has] * (d[has] - 1))).tolist()
    return c


@algorithm
def triangles(G, nodes=None):
    t, _ = _counts(G)
    if single_node(G, nodes):
        return int(t[G.index[nodes]])
    return G.to_dict(t, _ids(G, nodes))


def _undirected(G):
    """transitivity's condition: NetworkX counts a directed graph's triangles along its
    successors, gravel those of the undirected graph."""
    return "directed transitivity is not implemented in gravel" if G.is_directed() else True


@algorithm(can_run=_undirected)
def transitivity(G):
    t, d = _counts(G)
    total = int(t.sum())
    return 0 if total == 0 else 2 * total / int((d * (d - 1)).sum())


def _any_coefficients(G, weight):
    """Every node's clustering coefficient, as NetworkX's ``clustering(G, weight=weight)``."""
    if weight is None and not G.is_directed():
        return _coefficients(G)
    if weight is not None and not G.exact_weights:
        raise NotImplementedError("float32 does not hold these weights exactly")
    if weight is not None and G.graph.nnz and G.graph.weights.min() < 0:
        # triangles of mixed signs cancel: NetworkX's sums, in another order, end off zero
        raise NotImplementedError("negative weights: clustering runs on NetworkX")
    dev = choose_device(device(G.graph), ("cpu", "cuda"), "clustering")
    return _general_coefficients(G.graph, weight is not None, dev)


@algorithm
def clustering(G, nodes=None, weight=None):
    return _per_node(G, _any_coefficients(G, weight), nodes)


@algorithm
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    c = _any_coefficients(G, weight)
    ids = _ids(G, nodes)
    if single_node(G, nodes):  # NetworkX asks clustering's one number for its .values()
        raise AttributeError(f"{type(c[ids[0]]).__name__!r} object has no attribute 'values'")
    values = (c if ids is None else c[ids]).tolist()
    if not count_zeros:
        values = [x for x in values if abs(x) > 0]
    return sum(values) / len(values)


#: two-hop walks multiplied out at once by square_clustering (bounds its products' memory)
WALKS_PER_CHUNK = 1 << 22


def _sparse(dev):
    """The array and sparse-matrix modules of a device."""
    if dev == "cuda":
        import cupy
        import cupyx.scipy.sparse

        return cupy, cupyx.scipy.sparse
    import scipy.sparse

    return np, scipy.sparse


def _loop_free(graph):
    """The graph's arcs less self loops: CSR offsets, columns and rows, and which arcs stay."""
    rows = np.repeat(np.arange(graph.n), np.diff(graph.offsets))
    keep = rows != graph.indices
    offsets = np.zeros(graph.n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=graph.n), out=offsets[1:])
    return offsets, graph.indices[keep], rows[keep], keep


def _general_coefficients(graph, weighted, dev):
    """NetworkX's clustering coefficients of a directed or weighted graph, self loops left out.

    With C the adjacency, or weighted the cube roots of the weights over the largest (NetworkX's
    geometric mean of a triangle's weights), and S = C + C^T on a directed graph (C itself on an
    undirected one), NetworkX's triangle sum at v is (S^3)[v, v], the row sum of S ∘ S^2. Its
    denominator is d(v) (d(v) - 1) undirected; 2 (d(v) (d(v) - 1) - 2 b(v)) directed, with d(v)
    the in + out degree and b(v) the reciprocated neighbours."""
    offsets, cols, _, keep = _loop_free(graph)
    n = graph.n
    if not cols.size:  # no triangles; CuPy's sparse products fail on an empty matrix
        return np.zeros(n, object)
    m, sp = _sparse(dev)
    values = np.ones(cols.size)
    if weighted and graph.weights is not None and graph.nnz:
        w = graph.weights.astype(np.float64)
        values = np.cbrt(w[keep] / w.max())  # NetworkX's largest weight counts self loops too

    def matrix(data):
        return sp.csr_matrix(
            (m.asarray(data), m.asarray(cols.astype(np.int32)), m.asarray(offsets)), shape=(n, n)
        )

    C = matrix(values)
    degree = np.diff(offsets)
    if graph.directed:
        A = matrix(np.ones(cols.size))
        S = C + C.T.tocsr()
        both = host(m.asarray(A.multiply(A.T.tocsr()).sum(axis=1)).ravel())
        total = degree + np.bincount(cols, minlength=n)
        den = 2 * (total * (total - 1) - 2 * both)
    else:
        S, den = C, degree * (degree - 1)
    t = host(m.asarray((S @ S).multiply(S).sum(axis=1)).ravel())
    c = np.zeros(n, object)  # int 0s
    has = t != 0
    c[has] = (t[has] / den[has]).tolist()
    return c


def _square_terms(graph, ids, dev):
    """Squares through each vertex of `ids` and NetworkX's denominator (``potential``), on the
    graph's out-neighbours less self loops (NetworkX's ``G._adj`` without them).

    With A the adjacency, B = A A^T counts the common neighbours of v and x; the squares at v sum
    B[v, x] (B[v, x] - 1) / 2 over the x other than v within two hops, the triangles at v (twice)
    B[v, u] over its neighbours u, and the potential is (d(v) - 1) sum d(u) - d(v) (d(v) - 1) -
    triangles - squares."""
    m, sp = _sparse(dev)
    offsets, cols, rows, _ = _loop_free(graph)
    if not cols.size or not ids.size:  # no squares, no potential
        return np.zeros(ids.size), np.zeros(ids.size)
    degree = np.diff(offsets)
    # the walks of each row's products, so that a chunk's stay under WALKS_PER_CHUNK
    walks = np.bincount(rows, (degree + np.bincount(cols, minlength=graph.n))[cols], graph.n)
    chunk = np.cumsum(walks[ids]) // WALKS_PER_CHUNK
    cuts = np.flatnonzero(np.diff(chunk)) + 1
    A = sp.csr_matrix(
        (m.ones(cols.size), m.asarray(cols.astype(np.int32)), m.asarray(offsets)),
        shape=(graph.n, graph.n),
    )
    At = A.T.tocsr() if graph.directed else A
    d = m.asarray(degree.astype(np.float64))
    squares, potential = [], []
    for part in np.split(ids, cuts):
        R = m.asarray(part)
        Ar = A[R]
        B = Ar @ At
        if graph.directed:  # x counts where two hops reach it, not where a neighbour is shared
            reach = Ar + Ar @ A
            reach.data[:] = 1
            B = B.multiply(reach).tocsr()
        B.sum_duplicates()
        triangles = m.asarray(B.multiply(Ar).sum(axis=1)).ravel()
        r = entry_rows(m.asarray(B.indptr).astype(np.int64), B.indices.size)
        other = B.indices != R[r]
        pairs = B.data * (B.data - 1)
        sq = m.rint(tally(r[other], len(part), pairs[other]) / 2)
        dv = d[R]
        pot = (dv - 1) * (Ar @ d) - dv * (dv - 1) - triangles - sq
        squares.append(host(sq))
        potential.append(host(m.rint(pot)))
    return np.concatenate(squares), np.concatenate(potential)


@algorithm
def square_clustering(G, nodes=None):
    ids = np.arange(len(G)) if nodes is None else _ids(G, nodes)
    dev = choose_device(device(G.graph), ("cpu", "cuda"), "square_clustering")
    squares, potential = _square_terms(G.graph, ids, dev)
    c = np.zeros(ids.size, object)  # int 0s
    has = potential > 0
    c[has] = (squares[has] / potential[has]).tolist()
    if single_node(G, nodes):
        return c[0]
    return dict(zip(G.labels_of(ids), c.tolist()))
