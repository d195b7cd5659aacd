"""Truss decomposition: the truss number of every edge, the largest k such that the edge lies in
the k-truss (the largest subgraph whose every edge closes at least k - 2 triangles in it), as
``networkx.k_truss`` defines it; 2 for an edge in no triangle.

Counted on the simple undirected graph (a directed graph symmetrised, self loops and parallel
edges dropped). Each edge's support is its triangle count (the common neighbours of its ends);
then edges are peeled, those of least support first, each removal lowering the support of the
other two edges of every triangle it closed (Wang and Cheng, VLDB 2012).
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host, xp
from ..backends.cpu import truss as _k
from ..dispatch import choose_device, ids_to_caller, takes_graph, to_caller
from ..results import Result, Timer
from .neighbors import arc_keys, common_entries, find_arcs, tally


@dataclass
class TrussResult(Result):
    """Truss numbers, as :func:`truss_number` returns them.

    Attributes
    ----------
    truss : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: the largest truss number of its edges, so that
        the k-truss's vertices are those with ``truss >= k``; 0 for a vertex without edges.
    src, dst : numpy.ndarray or cupy.ndarray
        int32 per edge of the simple undirected graph, caller ids: its two ends.
    edge_truss : numpy.ndarray or cupy.ndarray
        int32 per edge: its truss number (2 in no triangle).
    """

    truss: np.ndarray = None
    src: np.ndarray = None
    dst: np.ndarray = None
    edge_truss: np.ndarray = None

    vertex_arrays = ("truss",)

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``max_truss``: the largest truss
            number (0 without edges), and ``max_truss_edges``: the edges that have it.
        """
        t = host(self.edge_truss)
        top = int(t.max(initial=0))
        return super().summary() | {"max_truss": top, "max_truss_edges": int((t == top).sum())}


@takes_graph
def truss_number(G, *, device="auto"):
    """Truss number of every edge: the largest k such that the edge lies in the k-truss.

    The k-truss is the largest subgraph in which every edge closes at least k - 2 triangles
    (``networkx.k_truss``'s definition); an edge in no triangle has truss number 2.

    Parameters
    ----------
    G : Graph
        Decomposed as its simple undirected graph: a directed graph is symmetrised, weights are
        ignored, and self loops and parallel edges dropped.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    TrussResult
        ``src``, ``dst`` (each edge once, ``src < dst`` in internal ids) and ``edge_truss`` per
        edge; ``truss`` per vertex, the largest of its edges' (0 without edges). CuPy arrays on
        the GPU.

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
    gravel.core_number, networkx.k_truss

    Notes
    -----
    Support: the common neighbours of each edge's ends (a merge per edge on the CPU, the
    segmented intersection on the GPU). Peeling: on the CPU one edge at a time from a stack,
    O(m^1.5); on the GPU level by level, every edge below the level removed at once and each
    destroyed triangle charged once, to its least removed edge.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False)
    >>> r = gravel.truss_number(G, device="cpu")
    >>> r.edge_truss.tolist(), r.truss.tolist()
    ([3, 3, 3, 2], [3, 3, 3, 2])
    """
    S = G.simple_undirected()
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "truss_number")](S)
    res.truss = to_caller(G, largest_per_vertex(S.n, res.src, res.dst, res.edge_truss))
    res.src, res.dst = ids_to_caller(G, res.src), ids_to_caller(G, res.dst)
    return res


def edge_index(offsets, indices):
    """The edges of a simple undirected CSR (sorted rows), each once, and each arc's edge.

    Parameters
    ----------
    offsets, indices : numpy.ndarray or cupy.ndarray

    Returns
    -------
    src, dst : numpy.ndarray or cupy.ndarray of int32
        The ends of each edge, ``src < dst``, in the order of the arcs src -> dst.
    edge_of : numpy.ndarray or cupy.ndarray of int64
        Per arc, its edge.
    keys : numpy.ndarray or cupy.ndarray of int64
        The arcs' :func:`~gravel.algorithms.neighbors.arc_keys`.
    """
    m = xp(offsets)
    n = offsets.shape[0] - 1
    keys = arc_keys(offsets, indices)
    rows = keys // max(n, 1)
    lower = rows < indices
    number = m.cumsum(lower, dtype=np.int64) - 1
    twin = find_arcs(keys, n, indices, rows)  # every arc has its reverse: the CSR is symmetric
    edge_of = m.where(lower, number, number[twin])
    return rows[lower].astype(np.int32), indices[lower].astype(np.int32), edge_of, keys


def _truss_cpu(S):
    with Timer() as t:
        src, dst, edge_of, _ = edge_index(S.offsets, S.indices)
        sup = _k.kernels(S.nnz).support(S.offsets, S.indices, src, dst)
        truss = _k.peel(S.offsets, S.indices, edge_of, src, dst, sup)
    return TrussResult(
        "truss_number", "cpu", t.seconds, 1, "peeling", src=src, dst=dst, edge_truss=truss
    )


def _truss_cuda(S):
    """Support by the segmented intersection of each edge's ends, then :func:`peel_levels`."""
    from ..operators import intersect

    dg = S.to("cuda")
    with Timer("cuda") as t:
        src, dst, edge_of, keys = edge_index(dg.offsets, dg.indices)
        sup, _ = intersect(dg, src, dst)
        truss, rounds = peel_levels(dg.offsets, dg.indices, keys, edge_of, src, dst, sup)
    return TrussResult(
        "truss_number",
        "cuda",
        t.seconds,
        rounds,
        "level peeling",
        src=src,
        dst=dst,
        edge_truss=truss,
    )


def peel_levels(offsets, indices, keys, edge_of, src, dst, sup):
    """Truss numbers by level-synchronous peeling, in the module of the arrays (the GPU path's).

    At level k every remaining edge of support below k - 2 leaves at once, with truss k - 1. A
    triangle that loses edges is charged once, to its leaving edge of least id: each of its
    remaining edges loses one support. Rounds repeat until the level holds; then k grows, to the
    least remaining support + 3 where that is more.

    Parameters
    ----------
    offsets, indices, keys, edge_of, src, dst : numpy.ndarray or cupy.ndarray
        The simple undirected CSR and its :func:`edge_index`.
    sup : numpy.ndarray or cupy.ndarray of int64
        Each edge's triangles; consumed.

    Returns
    -------
    truss : numpy.ndarray or cupy.ndarray of int32
    rounds : int
    """
    m = xp(sup)
    n_edges = sup.shape[0]
    truss = m.zeros(n_edges, np.int32)
    alive = m.ones(n_edges, bool)
    left, k, rounds = n_edges, 3, 0
    while left:
        leaving = m.flatnonzero(alive & (sup < k - 2))
        if not leaving.shape[0]:  # sync: the level holds
            k = max(k + 1, int(sup[alive].min()) + 3)
            continue
        rounds += 1
        truss[leaving] = k - 1
        gone = m.zeros(n_edges, bool)
        gone[leaving] = True
        pair, at_short, at_long = common_entries(offsets, indices, keys, src[leaving], dst[leaving])
        e, e1, e2 = leaving[pair], edge_of[at_short], edge_of[at_long]
        # triangles still whole, charged to their least leaving edge
        whole = alive[e1] & alive[e2]
        whole &= ~(gone[e1] & (e1 < e)) & ~(gone[e2] & (e2 < e))
        sup -= tally(m.concatenate([e1[whole], e2[whole]]), n_edges)
        alive[leaving] = False
        left -= int(leaving.shape[0])
    return truss, rounds


def largest_per_vertex(n, src, dst, values):
    """Per vertex, the largest of `values` over the edges at it (0 for none), in the module of
    the arrays: the (vertex, value) keys sorted, each vertex's last one read by binary search.

    Parameters
    ----------
    n : int
        The vertices.
    src, dst : numpy.ndarray or cupy.ndarray of int
        Each edge's ends.
    values : numpy.ndarray or cupy.ndarray of int32
        Each edge's value, non-negative.

    Returns
    -------
    numpy.ndarray or cupy.ndarray of int32
    """
    m = xp(values)
    if not values.shape[0]:
        return m.zeros(n, np.int32)
    span = int(values.max()) + 1  # sync
    ends = m.concatenate([src, dst]).astype(np.int64)
    keys = m.sort(ends * span + m.concatenate([values, values]).astype(np.int64))
    vertices = m.arange(n, dtype=np.int64)
    last = m.searchsorted(keys, (vertices + 1) * span) - 1
    found = (last >= 0) & (keys[m.maximum(last, 0)] // span == vertices)
    return m.where(found, keys[m.maximum(last, 0)] % span, 0).astype(np.int32)


def verify_truss(G, truss):
    """Check per-vertex truss numbers against a serial peeling with Python sets and a heap:
    repeatedly remove an edge of least remaining support s; its truss number is the largest
    s + 2 seen so far, and its removal lowers the support of the two other edges of each triangle
    it closed.

    Parameters
    ----------
    G : Graph
    truss : array_like
        The largest truss number of each vertex's edges (0 without), caller ids, on the host.

    Returns
    -------
    list of str
        The first vertex whose number differs, as a sentence; empty if none does.
    """
    import heapq

    S = G.simple_undirected()
    rows = np.repeat(np.arange(S.n), np.diff(S.offsets)).tolist()
    cols = S.indices.tolist()
    ends = [(u, v) for u, v in zip(rows, cols) if u < v]
    edge = {e: i for i, e in enumerate(ends)}
    adj = [dict() for _ in range(S.n)]  # neighbour -> the edge to it
    for (u, v), i in edge.items():
        adj[u][v] = adj[v][u] = i
    support = [len(adj[u].keys() & adj[v].keys()) for u, v in ends]
    heap = [(s, i) for i, s in enumerate(support)]
    heapq.heapify(heap)
    gone = [False] * len(ends)
    expect = np.zeros(S.n, np.int64)
    k = 2
    while heap:
        s, i = heapq.heappop(heap)
        if gone[i] or support[i] != s:
            continue  # removed, or a stale entry
        gone[i], k = True, max(k, s + 2)
        u, v = ends[i]
        expect[u], expect[v] = max(expect[u], k), max(expect[v], k)
        del adj[u][v], adj[v][u]
        for w in adj[u].keys() & adj[v].keys():
            for f in (adj[u][w], adj[v][w]):
                support[f] -= 1
                heapq.heappush(heap, (support[f], f))
    expect = to_caller(G, expect)
    wrong = np.flatnonzero(np.asarray(truss) != expect)
    return (
        [f"vertex {int(wrong[0])}: truss {int(truss[wrong[0]])}, expected {int(expect[wrong[0]])}"]
        if wrong.size
        else []
    )


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _truss_cpu, "cuda": _truss_cuda}
