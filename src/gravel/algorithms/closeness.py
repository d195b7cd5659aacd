"""Closeness centrality, exact, as ``networkx.closeness_centrality`` defines it.

A vertex's closeness reads the distances to it from the vertices that reach it: a search over the
in-lists from each vertex. Unweighted, the CPU splits the sources over the threads, a BFS each
(backends/cpu/closeness.py), and the GPU searches a batch of sources at once, one column of dense
(n, width) frontiers each, a sparse-dense product per level (cuSPARSE). Weighted, each source runs
gravel's SSSP (delta-stepping) over the reversed graph.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import xp
from ..backends.cuda.graph import INT32_ARCS
from ..dispatch import caller_id, choose_device, takes_graph, to_caller
from ..errors import InvalidGraphError, VertexNotFoundError
from ..graph import Graph
from ..results import Result, Timer
from ..transform import check_weights

#: sources searched at once on the GPU (the columns of one batch)
BATCH_WIDTH = 1024
#: device memory for a batch's (n, width) arrays: about 16 bytes an entry
BATCH_BYTES = 1 << 30


@dataclass
class ClosenessResult(Result):
    """What :func:`closeness_centrality` returns.

    Attributes
    ----------
    closeness : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids (a CuPy array from the GPU path); NaN for the
        vertices that were not asked for.
    sources : numpy.ndarray
        int32 caller ids of the vertices whose closeness was computed, on the host.
    """

    vertex_arrays = ("closeness",)

    closeness: np.ndarray = None
    sources: np.ndarray = None


@takes_graph
def closeness_centrality(G, sources=None, *, weight=False, wf_improved=True, device="auto"):
    """Closeness centrality: how near each vertex is to the vertices that reach it.

    For a vertex v reached (over arcs into it) by r - 1 other vertices at distances summing to
    d, closeness is (r - 1) / d, times (r - 1) / (n - 1) with `wf_improved` (Wasserman and
    Faust's scaling, for graphs of several components); 0 where d is 0. This is
    ``networkx.closeness_centrality``'s definition, which reads the distances to v, not from it.

    Parameters
    ----------
    G : Graph
        An undirected graph's edges run both ways; parallel arcs and self loops change nothing.
    sources : sequence, optional
        The vertices whose closeness to compute (caller ids or, on a labelled graph, labels:
        :func:`gravel.dispatch.caller_id`); a repeated one counts once. Default: every vertex.
    weight : bool, default False
        Distances are sums of weights (non-negative), not hop counts.
    wf_improved : bool, default True
        Scale by the share of the other vertices that reach each vertex.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    ClosenessResult
        ``closeness`` (float64, caller ids, NaN for vertices not in `sources`; a CuPy array on the
        GPU) and the ``sources`` computed (int32, caller ids, sorted).

    Raises
    ------
    InvalidGraphError
        `sources` is empty or not 1-D.
    VertexNotFoundError
        A source is neither a vertex id nor a label of G.
    InvalidWeightError
        With `weight`, a weight that is negative, NaN or infinite, naming its arc.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.closeness_centrality

    Notes
    -----
    One search per source: O(k (n + m)) for k sources unweighted, an SSSP each weighted. The GPU
    batch costs one product over the whole graph per level of its deepest search, so graphs of
    long paths (road networks) pay it many times.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.generate.grid(1, 3)  # the path 0 - 1 - 2
    >>> gravel.closeness_centrality(G, device="cpu").closeness.round(3).tolist()
    [0.667, 1.0, 0.667]
    """
    dev = choose_device(device, IMPLEMENTATIONS, "closeness_centrality")
    sources = np.arange(G.n, dtype=np.int32) if sources is None else _check_sources(G, sources)
    if weight:
        check_weights(G, name="closeness_centrality")
    internal = sources if G.order is None else G.order[sources].astype(np.int32)
    res = IMPLEMENTATIONS[dev](G, internal, bool(weight and G.weighted), bool(wf_improved))
    res.closeness, res.sources = to_caller(G, res.closeness), sources
    return res


def _check_sources(G, sources):
    """The distinct caller ids of `sources` (int32, sorted), each a vertex id or label."""
    a = np.asarray(sources)
    if a.ndim != 1:
        raise InvalidGraphError(f"sources must be a 1-D array of vertices, not {a.ndim}-D")
    if a.size == 0:
        raise InvalidGraphError("sources is empty: closeness needs at least one vertex")
    if not np.issubdtype(a.dtype, np.integer):  # labels, or ids among them
        a = np.array([caller_id(G, s, "source") for s in sources], np.int64)
    bad = a[(a < 0) | (a >= G.n)]
    if bad.size:
        raise VertexNotFoundError(f"vertex {int(bad[0])} is not in the graph (ids 0..{G.n - 1})")
    return np.unique(a).astype(np.int32)


def _reversed(G):
    """G's arcs reversed, over its internal ids (without its order: searches from internal ids
    read internal distances)."""
    in_off, in_idx, in_w = G.csc()  # an undirected graph's own lists
    return Graph.from_csr(in_off, in_idx, in_w, directed=G.directed, trusted=True)


def _weighted_sums(G, sources, device, m):
    """Distance sums and reach of each source over the reversed graph, an SSSP each."""
    from .sssp import sssp

    rev = _reversed(G)
    total, reached = m.zeros(len(sources)), m.zeros(len(sources))
    for i, s in enumerate(sources.tolist()):
        dist = m.asarray(sssp(rev, s, predecessors=False, device=device).distance, dtype=m.float64)
        seen = m.isfinite(dist)
        total[i], reached[i] = dist[seen].sum(), seen.sum()
    return total, reached


def _result(G, device, seconds, sources, total, reached, wf_improved, method):
    """The result of the distance sums `total` and the reach (the source included) of each of
    `sources`, scaled as NetworkX does, over the internal ids (NaN for the other vertices)."""
    m, n = xp(total), G.n
    found = m.where(total > 0, (reached - 1) / m.where(total > 0, total, 1), 0.0)
    if wf_improved and n > 1:
        found *= (reached - 1) / (n - 1)
    closeness = m.full(n, m.nan)
    closeness[m.asarray(sources)] = found if n > 1 else 0.0
    return ClosenessResult(
        "closeness_centrality",
        device,
        seconds,
        len(sources),
        method,
        {"sources": len(sources)},
        closeness=closeness,
    )


def _closeness_cpu(G, sources, weighted, wf_improved):
    import numba

    from ..backends.cpu.closeness import hop_sums

    with Timer() as t:
        if weighted:
            total, reached = _weighted_sums(G, sources, "cpu", np)
        else:
            in_off, in_idx, _ = G.csc()
            total, reached = hop_sums(in_off, in_idx, sources, numba.get_num_threads())
    method = "sssp per source" if weighted else "bfs per source"
    total = total.astype(np.float64)
    return _result(G, "cpu", t.seconds, sources, total, reached, wf_improved, method)


def _closeness_cuda(G, sources, weighted, wf_improved):
    """Weighted: an SSSP per source on the GPU. Unweighted: batches of sources, one column each
    of dense (n, width) 0/1 frontiers; a level's next frontier is A times it (cuSPARSE; A's row u
    sums u's out-arcs into the frontier), less the vertices seen, and each column adds the level
    times its new vertices to its sum. A few launches per level for the whole batch. Graphs of
    INT32_ARCS arcs or more (cuSPARSE's offsets are int32) take an SSSP per source either way."""
    import cupy

    with Timer("cuda") as t:
        if weighted or G.nnz >= INT32_ARCS:
            total, reached = _weighted_sums(G, sources, "cuda", cupy)
            method = "sssp per source"
        else:
            total, reached = _batched_hops(G, sources)
            method = "bfs, batched"
    return _result(G, "cuda", t.seconds, sources, total, reached, wf_improved, method)


def _batched_hops(G, sources):
    """Hop sums and reach of each source over the in-lists, a batch of sources at a time."""
    import cupy
    import cupyx.scipy.sparse as csp

    dg = G.to("cuda")
    n = G.n
    ones = cupy.ones(dg.nnz, cupy.float32)
    A = csp.csr_matrix((ones, dg.indices, dg.offsets.astype(cupy.int32)), shape=(n, n))
    width = max(1, min(BATCH_WIDTH, len(sources), BATCH_BYTES // (16 * max(n, 1))))
    total, reached = cupy.zeros(len(sources)), cupy.ones(len(sources))
    for lo in range(0, len(sources), width):
        batch = cupy.asarray(sources[lo : lo + width])
        cols = cupy.arange(len(batch))
        seen = cupy.zeros((n, len(batch)), cupy.bool_)
        seen[batch, cols] = True
        frontier = seen.astype(cupy.float32)
        level = 0
        while True:
            new = (A @ frontier > 0) & ~seen
            count = new.sum(axis=0)
            if not bool(count.any()):  # sync
                break
            level += 1
            total[lo : lo + width] += level * count
            reached[lo : lo + width] += count
            seen |= new
            frontier = new.astype(cupy.float32)
    return total, reached


def verify_closeness(G, closeness, *, weight=False, wf_improved=True, rtol=1e-6, most=32):
    """Check closeness scores against SciPy's shortest paths into up to `most` of the vertices
    computed (those not NaN), spread over the ids.

    Parameters
    ----------
    G : Graph
    closeness : array_like
        The scores, over the caller's ids, on the host (NaN where not computed).
    weight : bool, default False
        Whether distances summed weights.
    wf_improved : bool, default True
        Whether the scores were scaled by the share of vertices reaching each.
    rtol : float, default 1e-6
        Relative tolerance.
    most : int, default 32
        Vertices checked.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the scores pass.
    """
    from scipy.sparse.csgraph import shortest_path

    from .eigenvector import caller_matrix

    c = np.asarray(closeness, np.float64)
    done = np.flatnonzero(~np.isnan(c))
    if not done.size:
        return ["no vertex has a closeness"]
    picked = done[np.linspace(0, done.size - 1, min(most, done.size)).astype(np.int64)]
    A = caller_matrix(G, weight)
    dist = shortest_path(A.T.tocsr(), indices=picked, unweighted=not weight)
    n = G.n
    for v, row in zip(picked.tolist(), dist):
        seen = np.isfinite(row)
        r, d = seen.sum(), row[seen].sum()
        want = (r - 1) / d if d > 0 and n > 1 else 0.0
        if wf_improved and n > 1:
            want *= (r - 1) / (n - 1)
        if not np.isclose(c[v], want, rtol=rtol, atol=1e-12):
            return [f"vertex {v}: closeness {c[v]:.9g}, but its distances give {want:.9g}"]
    return []


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _closeness_cpu, "cuda": _closeness_cuda}
