"""Single-source shortest paths on weights of any sign: Bellman-Ford, with negative-cycle detection.

On the CPU, Moore's queue variant (SPFA; backends/cpu/bellman_ford.py): a vertex is relaxed again
only after its distance fell, and a walk of n arcs proves a negative cycle. On the GPU, rounds of
Jacobi relaxation with CuPy: round r relaxes the out-arcs of the vertices lowered in round r - 1,
all against the distances the round started from, so that after round r every distance is the
shortest over walks of at most r arcs; a lowering in round n proves a negative cycle. Distances
are float64 on both devices, summed in the same order, so they agree.
"""

import numpy as np

from ..arrays import list_entries
from ..dispatch import caller_id, check_source, choose_device, ids_to_caller, takes_graph, to_caller
from ..errors import NegativeCycleError
from ..results import Timer
from ..transform import check_weights
from .sssp import SSSPResult, verify_tree


@takes_graph
def bellman_ford(G, source, *, device="auto"):
    """Shortest-path distances and a shortest-path tree from `source`, weights of any sign.

    Parameters
    ----------
    G : Graph
        Weights must be finite; negative weights are allowed (an undirected graph's negative edge
        is a negative cycle of two arcs). An unweighted graph has unit weights. Parallel arcs:
        the lightest counts.
    source : int or label
        Start vertex: an id, or on a graph with labels a label that is not an integer
        (:func:`gravel.dispatch.caller_id`). ``result.source`` is the id.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    SSSPResult
        ``distance[v]`` (float64 on both devices; ``inf`` where unreachable) and
        ``predecessor[v]`` (int32): the vertex before v on a shortest path, -1 for the source and
        unreachable vertices; both indexed by caller ids, NumPy arrays on the CPU and CuPy arrays
        on the GPU. :meth:`SSSPResult.path_to` walks the tree back. ``iterations``: vertices taken
        from the queue on the CPU, rounds on the GPU.

    Raises
    ------
    NegativeCycleError
        A cycle of negative weight is reachable from `source` (its ``vertex``: one whose walk from
        the source runs through the cycle, a caller id).
    InvalidWeightError
        A weight is NaN or infinite (the message names the arc).
    VertexNotFoundError
        `source` is not a vertex of G.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.sssp : faster, for non-negative weights.
    scipy.sparse.csgraph.bellman_ford, networkx.single_source_bellman_ford

    Notes
    -----
    O(n m) work at worst, O(m) on most graphs. The CPU path is serial. With several shortest paths
    to a vertex, any one may be returned. Predecessors never form a cycle: each lowering is strict,
    so a cycle of predecessors would be a negative cycle.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1], [1, 2, 2], [4.0, 1.0, -5.0])
    >>> r = gravel.bellman_ford(G, 0, device="cpu")
    >>> r.distance.tolist()
    [0.0, 4.0, -1.0]
    >>> r.predecessor.tolist()
    [-1, 0, 1]
    """
    source = caller_id(G, source)
    s = check_source(G, source)
    check_weights(G, negative=True, name="bellman_ford")
    dev = choose_device(device, IMPLEMENTATIONS, "bellman_ford")
    res, cycle = IMPLEMENTATIONS[dev](G, s)
    if cycle >= 0:
        v = int(ids_to_caller(G, np.array([cycle], np.int32))[0])
        raise NegativeCycleError(
            f"bellman_ford: a negative cycle is reachable from source {source} (through vertex "
            f"{v})",
            vertex=v,
        )
    res.distance = to_caller(G, res.distance)
    res.predecessor = to_caller(G, ids_to_caller(G, res.predecessor))
    res.source = int(source)
    return res


def _unit_or(G):
    """G's weights, or ones as a zero-stride view where it has none."""
    return G.weights if G.weighted else np.broadcast_to(np.float32(1), G.nnz)


def _bellman_ford_cpu(G, source):
    from ..backends.cpu import bellman_ford as _k

    dist = np.full(G.n, np.inf)
    dist[source] = 0
    pred = np.full(G.n, -1, np.int32)
    with Timer() as t:
        taken, cycle = _k.relax_queue(G.offsets, G.indices, _unit_or(G), source, dist, pred)
    res = SSSPResult(
        "bellman_ford", "cpu", t.seconds, int(taken), "queue", distance=dist, predecessor=pred
    )
    return res, int(cycle)


def _bellman_ford_cuda(G, source):
    import cupy

    dg = G.to("cuda")
    n = G.n
    offsets, indices, weights = dg.offsets, dg.indices, dg.weights
    dist = cupy.full(n, cupy.inf, cupy.float64)
    dist[source] = 0
    pred = cupy.full(n, -1, cupy.int32)
    front = cupy.array([source], cupy.int64)
    rounds = 0
    with Timer() as t:
        while front.size:
            rounds += 1
            arcs, which = list_entries(offsets, front)
            u, v = front[which], indices[arcs].astype(cupy.int64)
            w = 1.0 if weights is None else weights[arcs].astype(cupy.float64)
            d = dist[u] + w  # against the distances the round started from
            lower = d < dist[v]
            u, v, d = u[lower], v[lower], d[lower]
            if not v.size:
                break
            if rounds >= n:
                return None, int(v[0])  # a walk of n arcs beats every shorter one
            # the lightest offer to each vertex: sorted by (vertex, distance), the first of a run
            order = cupy.lexsort(cupy.stack([d, v.astype(cupy.float64)]))
            u, v, d = u[order], v[order], d[order]
            first = cupy.ones(v.size, bool)
            first[1:] = v[1:] != v[:-1]
            front = v[first]
            dist[front], pred[front] = d[first], u[first].astype(cupy.int32)
    res = SSSPResult(
        "bellman_ford", "cuda", t.seconds, rounds, "rounds", distance=dist, predecessor=pred
    )
    return res, -1


def verify_bellman_ford(G, source, distance, predecessor=None, *, rtol=1e-6):
    """Check shortest paths on weights of any sign: distances against SciPy's Bellman-Ford
    (parallel arcs: the lightest), and the predecessor tree if given
    (:func:`gravel.algorithms.sssp.verify_tree`).

    Parameters
    ----------
    G : Graph
    source : int
        The source's caller id.
    distance : array_like
        The distance of each vertex, over the caller's ids, on the host (``inf`` where
        unreachable).
    predecessor : array_like, optional
        The predecessor of each vertex, likewise; not checked if None.
    rtol : float, default 1e-6
        Relative tolerance of the distances.

    Returns
    -------
    list of str
        The first problem found, as a sentence; empty if the paths pass.
    """
    from scipy.sparse.csgraph import bellman_ford as reference

    return verify_tree(G, source, distance, predecessor, reference, rtol=rtol)


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _bellman_ford_cpu, "cuda": _bellman_ford_cuda}
