"""Triangle counting, per vertex and in total, on the undirected simple graph (directed graphs are
symmetrised first, as SNAP does; self loops and parallel edges never form triangles).

Forward algorithm: orient every edge from the lower to the higher (degree, id) rank, so each
triangle is found exactly once, in the out-lists of the two ends of an oriented edge: on the CPU by
marking the first end's list and looking up the second's, on the GPU by intersecting them. On the
CPU, where the degrees are not skewed enough for their ranking to pay (:func:`ranks_by_degree`),
the rank is the id alone, read off the sorted rows without building the oriented graph.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import entry_rows
from ..backends.cpu import tc as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..results import Result, Timer
from ..transform import orient_by_degree

#: ranking by degree pays where the mean degree (arcs per vertex) is at least DEGREE_RANK_MEAN and
#: a sample's mean degree over DEGREE_RANK_SKEW times its median: GAP's rule for relabelling (its
#: 10 edges per vertex), docs/tuning.md
DEGREE_RANK_MEAN = 20
DEGREE_RANK_SKEW = 1.3
#: vertices with arcs sampled for the rule, at random with a fixed seed
DEGREE_RANK_SAMPLE = 1000


def ranks_by_degree(degree):
    """Whether the CPU's count ranks vertices by degree (building the oriented graph) or by id.

    Ranking by degree bounds every out-list by about sqrt(2m), which pays on skewed graphs; where
    degrees are even (uniform random graphs) or small (roads, meshes) the id order does as much
    counting and saves the oriented graph's build.

    Parameters
    ----------
    degree : numpy.ndarray
        Each vertex's degree in the simple undirected graph.

    Returns
    -------
    bool
        True where the mean degree is at least DEGREE_RANK_MEAN and, over DEGREE_RANK_SAMPLE
        vertices with arcs drawn at random (seed 0; all of them where there are fewer), the
        sample's mean degree is over DEGREE_RANK_SKEW times its median (the upper one, as GAP's).
    """
    if degree.size == 0 or degree.mean() < DEGREE_RANK_MEAN:
        return False
    having = degree[degree > 0]
    if having.size > DEGREE_RANK_SAMPLE:
        picks = np.random.default_rng(0).choice(having.size, DEGREE_RANK_SAMPLE, replace=False)
        having = having[picks]
    sample = np.sort(having)
    return float(sample.mean()) > DEGREE_RANK_SKEW * float(sample[sample.size // 2])


@dataclass
class TriangleResult(Result):
    """Triangle counts, as :func:`triangles` returns them.

    Attributes
    ----------
    triangles : numpy.ndarray or cupy.ndarray or None
        int64 per vertex, over the caller's ids: the triangles through it (a CuPy array from the
        GPU path); None where only the total was asked for.
    total : int
        The triangles in the whole graph.
    """

    triangles: np.ndarray = None

    vertex_arrays = ("triangles",)
    total: int = 0

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``triangles``: the total.
        """
        return super().summary() | {"triangles": self.total}


@takes_graph
def triangles(G, *, per_vertex=True, device="auto"):
    """Number of triangles through each vertex (as ``networkx.triangles``) and in the whole graph.

    Forward algorithm: every edge is oriented from the lower to the higher (degree, id) rank, so
    each triangle is found exactly once, in the out-lists of the two ends of an oriented edge.

    Parameters
    ----------
    G : Graph
        Counted on its simple undirected graph: a directed graph is symmetrised first (as SNAP
        does); weights are ignored, and self loops and parallel edges never form triangles.
    per_vertex : bool, default True
        Count the triangles through each vertex; with False only ``total`` is computed (less
        memory and time).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. The CPU marks the first
        end's list and looks up the second's; the GPU intersects them.

    Returns
    -------
    TriangleResult
        ``triangles[v]`` (int64, caller ids; a CuPy array on the GPU; None with
        ``per_vertex=False``) and ``total`` (int).

    Raises
    ------
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.triangles

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False)
    >>> r = gravel.triangles(G, device="cpu")
    >>> r.triangles.tolist(), r.total
    ([1, 1, 1, 0], 1)
    """
    dev = choose_device(device, IMPLEMENTATIONS, "triangles")
    res = IMPLEMENTATIONS[dev](G.simple_undirected(), per_vertex)
    if per_vertex:
        res.triangles = to_caller(G, res.triangles)
    return res


def _triangles_cpu(S, per_vertex):
    from numba import get_num_threads

    threads = get_num_threads()
    with Timer() as t:
        if ranks_by_degree(S.out_degree):
            O = orient_by_degree(S)
            total, per = _k.count(O.offsets, O.indices, threads, per_vertex)
        else:
            ends = _k.lower_ends(S.offsets, S.indices)
            total, per = _k.count(S.offsets, S.indices, threads, per_vertex, ends=ends)
    return TriangleResult(
        "triangles",
        "cpu",
        t.seconds,
        1,
        "forward",
        triangles=per if per_vertex else None,
        total=int(total),
    )


def _triangles_cuda(S, per_vertex):
    """Segmented intersection on the GPU. Total: orient every edge by (degree, id) rank on the
    device (:func:`gravel.transform.orient_by_degree`) and sum the intersections of the two ends'
    out-lists along every oriented edge (:func:`gravel.operators.intersect_arcs`). Per vertex:
    intersect the ends of every arc of the undirected graph and halve the row sums (each triangle
    at u is seen from both its edges)."""
    import cupy

    from ..operators import intersect, intersect_arcs

    dg = S.to("cuda")
    src = entry_rows(dg.offsets, dg.nnz).astype(cupy.int32) if per_vertex else None
    with Timer("cuda") as t:
        if per_vertex:
            counts, total = intersect(dg, src, dg.indices)
            prefix = cupy.concatenate([cupy.zeros(1, cupy.int64), cupy.cumsum(counts)])
            per = (prefix[dg.offsets[1:]] - prefix[dg.offsets[:-1]]) // 2
            total //= 6
        else:
            oriented = orient_by_degree(S).to("cuda")  # S lives on the device, so this does too
            total, per = intersect_arcs(oriented), None
    return TriangleResult(
        "triangles", "cuda", t.seconds, 1, "segmented intersection", triangles=per, total=int(total)
    )


#: most products of sparse entries in one block of the verifier's matrix products (its memory)
VERIFY_BLOCK_PRODUCTS = 1 << 24


def _oriented_triangles(A):
    """The triangles through each vertex of the simple undirected graph whose symmetric 0/1
    matrix is A (SciPy CSR), by sparse products over its edges oriented from the lower to the
    higher (degree, id): with L that orientation, ``(L @ L) * L`` holds each triangle once at
    (its lowest vertex, its highest) and ``(L.T @ L) * L`` once at (its middle vertex, its
    highest). Oriented out-degrees stay small, so the products fit where A @ A does not (a hub's
    row of A @ A spans most of the graph); rows go in blocks of about VERIFY_BLOCK_PRODUCTS
    products."""
    import scipy.sparse as sp

    n = A.shape[0]
    rank = np.empty(n, np.int64)
    rank[np.lexsort((np.arange(n), np.diff(A.indptr)))] = np.arange(n)
    rows, cols = A.nonzero()
    up = rank[rows] < rank[cols]
    L = sp.csr_matrix((np.ones(int(up.sum()), np.int64), (rows[up], cols[up])), shape=(n, n))
    out = np.diff(L.indptr)
    count = np.zeros(n, np.int64)
    if not L.nnz:
        return count
    for M, highest in ((L, True), (L.T.tocsr(), False)):
        work = np.cumsum(M @ out)  # the products of each row, summed
        cuts = np.arange(1, work[-1] // VERIFY_BLOCK_PRODUCTS + 1) * VERIFY_BLOCK_PRODUCTS
        bounds = np.unique(np.concatenate(([0], np.searchsorted(work, cuts, "right"), [n])))
        for start, stop in zip(bounds[:-1], bounds[1:]):
            X = (M[start:stop] @ L).multiply(L[start:stop]).tocoo()
            count[start:stop] += np.bincount(X.row, X.data, minlength=stop - start).astype(np.int64)
            if highest:
                count += np.bincount(X.col, X.data, minlength=n).astype(np.int64)
    return count


def verify_triangles(G, triangles, total=None):
    """Check triangle counts against SciPy's sparse products over the edges oriented by degree
    (each triangle found once by the products of its corners).

    Parameters
    ----------
    G : Graph
    triangles : array_like or None
        The count through each vertex, over the caller's ids, on the host; None where only the
        total was asked for.
    total : int, optional
        The total the run reported; not compared if None.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the counts pass.
    """
    A = G.simple_undirected().to_scipy()
    A.data[:] = 1
    expect = to_caller(G, _oriented_triangles(A))
    problems = []
    if triangles is not None and not np.array_equal(np.asarray(triangles), expect):
        v = int(np.flatnonzero(np.asarray(triangles) != expect)[0])
        problems.append(f"vertex {v}: {int(triangles[v])} triangles, expected {int(expect[v])}")
    if total is not None and int(total) != int(expect.sum()) // 3:
        problems.append(f"{int(total)} triangles in all, expected {int(expect.sum()) // 3}")
    return problems


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _triangles_cpu, "cuda": _triangles_cuda}
