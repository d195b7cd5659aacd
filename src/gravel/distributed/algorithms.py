"""BFS, SSSP, PageRank and connected components on a 1-D partitioned graph.

Each primitive is a program run once per part (exchange.py): NumPy over the part's arrays (the
PageRank pull is gravel's CPU kernel over the part's in-edges), a collective where the parts must
meet. The public functions partition a Graph, run on a local Dask cluster (or the given one, or in
this process) and return gravel's result objects with one array in the caller's ids.
"""

import contextlib

import numpy as np

from ..algorithms._common import Timer, check_source, ids_to_caller, to_caller
from ..errors import PowerIterationFailedConvergence, UnknownNameError
from .exchange import Stats, allgather, allreduce, alltoall
from .partition import PartitionedGraph, partition

# -- the per-part programs ---------------------------------------------------------------------


def _rows(offsets):
    """The local row of every arc of a CSR."""
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int32), np.diff(offsets))


def _arcs(offsets, frontier):
    """The arcs out of the local vertices `frontier`: (their positions, the local row of each)."""
    start, end = offsets[frontier], offsets[frontier + 1]
    deg = end - start
    total = int(deg.sum())
    # position of each arc: its list's start, plus its rank inside the list
    first = np.repeat(start - (np.cumsum(deg) - deg), deg)
    return first + np.arange(total), np.repeat(frontier, deg)


def _expand(offsets, targets, frontier):
    """The arcs out of the local vertices `frontier`: (their targets, the local row of each)."""
    at, rows = _arcs(offsets, frontier)
    return targets[at], rows


def _by_owner(cuts, ids, *columns):
    """Per destination part, the slices of `ids` (sorted) and of the `columns` beside them."""
    at = np.searchsorted(ids, cuts)
    return list(zip(*(np.split(c, at) for c in (ids, *columns)), strict=True))


def bfs_program(part, source):
    """Level-synchronous top-down BFS: each part expands its frontier, sends every target it
    found (with a parent) to the target's owner, and each owner claims the unvisited ones as its
    next frontier. Returns the part's (depth, parent), parents in global ids."""
    lo, hi = part.lo, part.hi
    depth = np.full(part.size, -1, np.int32)
    parent = np.full(part.size, -1, np.int32)
    frontier = np.zeros(0, np.int64)
    if lo <= source < hi:
        depth[source - lo], parent[source - lo] = 0, source
        frontier = np.array([source - lo], np.int64)
    cuts = part.bounds[1:-1]
    level = 0
    while True:
        level += 1
        found, rows = _expand(part.out_offsets, part.out_targets, frontier)
        local = (found >= lo) & (found < hi)
        keep = ~local  # a local target already reached needs no message
        keep[local] = depth[found[local] - lo] < 0
        found, rows = found[keep], rows[keep]
        found, first = np.unique(found, return_index=True)
        parents = (rows[first] + lo).astype(np.int32)
        received = yield alltoall(_by_owner(cuts, found, parents))  # found is sorted
        ids = np.concatenate([r[0] for r in received]) - lo
        via = np.concatenate([r[1] for r in received])
        fresh = depth[ids] < 0
        ids, via = ids[fresh], via[fresh]
        ids, first = np.unique(ids, return_index=True)
        depth[ids], parent[ids] = level, via[first]
        frontier = ids.astype(np.int64)
        if (yield allreduce(np.int64(frontier.size))) == 0:
            return depth, parent


def _lowest(ids, offer, via):
    """Each id once, sorted, with its lowest offer and that offer's `via`."""
    order = np.lexsort((offer, ids))
    ids, offer, via = ids[order], offer[order], via[order]
    first = np.flatnonzero(np.diff(ids, prepend=-1) != 0)
    return ids[first], offer[first], via[first]


def sssp_program(part, source, delta):
    """Near-far SSSP (delta-stepping's buckets merged into one near pile): every superstep each
    part relaxes the out-arcs of its improved vertices below the split, sends each target's best
    offer (distance, predecessor) to the target's owner, and the owners keep the offers that
    improve; when no part has a near vertex left, the split moves past the lowest distance still
    waiting anywhere. Returns the part's (distance, predecessor, supersteps)."""
    lo, hi = part.lo, part.hi
    dist = np.full(part.size, np.inf)
    pred = np.full(part.size, -1, np.int32)
    waiting = np.zeros(part.size, bool)  # improved, out-arcs not yet relaxed
    if lo <= source < hi:
        dist[source - lo], waiting[source - lo] = 0.0, True
    weights = part.out_weights
    cuts, split, steps = part.bounds[1:-1], delta, 0
    while True:
        near = np.flatnonzero(waiting & (dist < split))
        if (yield allreduce(np.int64(near.size))) == 0:
            low = yield allreduce(np.float64(dist[waiting].min(initial=np.inf)), "min")
            if not np.isfinite(low):
                return dist, pred, steps
            split = max(split + delta, (np.floor(low / delta) + 1) * delta)
            continue
        steps += 1
        waiting[near] = False
        at, rows = _arcs(part.out_offsets, near)
        offer = dist[rows] + (weights[at] if weights is not None else 1.0)
        sends = _lowest(part.out_targets[at], offer, (rows + lo).astype(np.int32))
        received = yield alltoall(_by_owner(cuts, *sends))
        ids, offer, via = _lowest(*(np.concatenate([r[k] for r in received]) for k in range(3)))
        ids = ids - lo
        better = offer < dist[ids]
        ids, offer, via = ids[better], offer[better], via[better]
        dist[ids], pred[ids], waiting[ids] = offer, via, True


def pagerank_program(part, alpha, max_iter, threshold, weighted):
    """Pull PageRank: each iteration all-gathers the contributions rank / out-weight of every
    vertex (with each part's dangling mass and last L1 change) and pulls them over the part's
    in-edges. Every part sums the same gathered figures, so all stop together. Returns the
    part's (rank, iterations, L1 change, converged)."""
    from ..backends.cpu import pagerank as _k

    n, size = part.n, part.size
    if weighted:
        out = np.bincount(_rows(part.out_offsets), part.out_weights, minlength=size)
    else:
        out = np.diff(part.out_offsets).astype(np.int32)
    k = _k.kernels(part.in_arcs)
    rank = np.full(size, 1.0 / n)
    new, contrib = np.empty(size), np.empty(size)
    lost, err, change = k.contributions(rank, out, contrib), 0.0, None
    it = 0
    while True:
        everyone, sums = yield allgather((contrib, np.array([lost, err])))
        if it:
            change = float(sums[1::2].sum())
            if change < threshold:
                return rank, it, change, True
        if it == max_iter:
            return rank, it, change, threshold == 0
        it += 1
        base = np.full(size, alpha * float(sums[0::2].sum()) / n + (1.0 - alpha) / n)
        if weighted:
            args = (part.in_offsets, part.in_sources, part.in_weights, everyone, base, alpha)
            err = k.pull_weighted(*args, rank, new)
        else:
            err = k.pull(part.in_offsets, part.in_sources, everyone, base, alpha, rank, new)
        rank, new = new, rank
        lost = k.contributions(rank, out, contrib)


def _neighbour_min(offsets, ids, labels, out):
    """out[v] = min(out[v], smallest label among v's listed neighbours)."""
    if ids.size == 0:
        return
    deg = np.diff(offsets)
    has = deg > 0
    smallest = np.minimum.reduceat(labels[ids], offsets[:-1][has])
    out[has] = np.minimum(out[has], smallest)


def cc_program(part):
    """Min-label propagation with shortcuts: every round all-gathers the labels, and each vertex
    takes the smallest label among itself and its out- and in-neighbours, then the label of that
    label's vertex (pointer jumping, which shortens long chains geometrically). Stops when a
    round changes no label: every part sees the same gathered labels, so all stop together.
    Returns the part's (labels, rounds)."""
    labels = np.arange(part.lo, part.hi, dtype=np.int32)
    previous, rounds = None, 0
    while True:
        everyone = yield allgather(labels)
        if previous is not None and np.array_equal(everyone, previous):
            return labels, rounds
        previous, rounds = everyone, rounds + 1
        labels = labels.copy()
        _neighbour_min(part.out_offsets, part.out_targets, everyone, labels)
        if part.directed:
            _neighbour_min(part.in_offsets, part.in_sources, everyone, labels)
        labels = np.minimum(labels, everyone[labels])


# -- the public functions ----------------------------------------------------------------------


@contextlib.contextmanager
def _placed(G, parts, cluster):
    """G partitioned where `cluster` says: a DistributedGraph or PartitionedGraph as given, "in
    process", on a Cluster or Dask client given, or on a local cluster started for the call (and
    shut down after it)."""
    from .cluster import Cluster, DistributedGraph

    if isinstance(G, (DistributedGraph, PartitionedGraph)):
        yield G
        return
    if cluster == "in-process":
        yield partition(G, parts)
        return
    if isinstance(cluster, str) or cluster is not None and not isinstance(cluster, Cluster):
        cluster = Cluster(client=cluster)  # a distributed.Client or a scheduler address
    own = cluster is None
    if own:
        cluster = Cluster(parts=parts)
    try:
        dg = cluster.load(G, parts)
        try:
            yield dg
        finally:
            if not own:
                dg.free()
    finally:
        if own:
            cluster.close()


def _stats(dg, stats):
    return {"parts": dg.nparts} | stats.as_dict()


def bfs(G, source, *, parts=2, cluster=None):
    """Breadth-first search from `source` over `parts` parts (level-synchronous, top-down).

    Parameters
    ----------
    G : Graph, PartitionedGraph or DistributedGraph
        A Graph is partitioned for this call (:func:`gravel.distributed.partition`).
    source : int
    parts : int, default 2
        Parts to cut a Graph into (and workers to start when `cluster` is None).
    cluster : Cluster, distributed.Client, str or "in-process", optional
        Where to run: a :class:`Cluster`, an existing Dask client or scheduler address, or
        ``"in-process"`` (every part in this process, no Dask). Default: a local cluster of
        `parts` worker processes, started for the call and shut down after it.

    Returns
    -------
    BFSResult
        ``depth`` and ``parent`` in the caller's ids, as :func:`gravel.bfs` gives them (any valid
        BFS tree).
    """
    from ..algorithms.bfs import BFSResult

    s = check_source(G, source)
    stats = Stats()
    with _placed(G, parts, cluster) as dg, Timer() as t:
        out = dg.run(bfs_program, s, stats=stats)
    depth = np.concatenate([o[0] for o in out])
    parent = np.concatenate([o[1] for o in out])
    levels = int(depth.max(initial=0))
    return BFSResult(
        "bfs",
        "cpu",
        t.seconds,
        levels,
        f"distributed top-down, {dg.nparts} parts",
        _stats(dg, stats),
        depth=to_caller(dg, depth),
        parent=ids_to_caller(dg, to_caller(dg, parent)),
    )


def sssp(G, source, *, delta=None, parts=2, cluster=None):
    """Shortest-path distances and a shortest-path tree from `source` over `parts` parts (near-far
    delta-stepping, one exchange of offers per superstep). Weights as :func:`gravel.sssp` takes
    them (non-negative and finite; unit weights where the graph has none); `delta` as there
    (default: gravel's CPU default). `parts` and `cluster` as for :func:`bfs`.

    Returns
    -------
    SSSPResult
        ``distance`` (float64, ``inf`` where unreachable) and ``predecessor`` in the caller's ids.
    """
    from ..algorithms.sssp import MAX_BUCKETS, SSSPResult, _check_delta, default_delta
    from ..transform import check_weights

    s = check_source(G, source)
    host = not isinstance(G, PartitionedGraph) and hasattr(G, "csc")
    if host:
        check_weights(G, name="sssp")
    if delta is None:
        if not host:
            raise UnknownNameError("sssp on a partitioned graph needs delta=")
        weights = G.weights if G.weighted else np.ones(1, np.float32)
        delta = max(default_delta(G, weights), float(weights.max(initial=0)) / MAX_BUCKETS)
    else:
        _check_delta(delta, float(G.weights.max(initial=0)) if host and G.weighted else 1.0)
    stats = Stats()
    with _placed(G, parts, cluster) as dg, Timer() as t:
        out = dg.run(sssp_program, s, float(delta), stats=stats)
    dist = np.concatenate([o[0] for o in out])
    pred = np.concatenate([o[1] for o in out])
    res = SSSPResult(
        "sssp",
        "cpu",
        t.seconds,
        max(o[2] for o in out),
        f"distributed near-far, {dg.nparts} parts",
        {"delta": float(delta)} | _stats(dg, stats),
        distance=to_caller(dg, dist),
        predecessor=ids_to_caller(dg, to_caller(dg, pred)),
    )
    res.source = int(source)
    return res


def pagerank(
    G,
    *,
    alpha=0.85,
    max_iter=100,
    tol=None,
    weight=True,
    stopping="absolute",
    parts=2,
    cluster=None,
):
    """PageRank over `parts` parts, iterated and stopped as :func:`gravel.pagerank` does (the
    L1 change below `tol`, or below ``n * tol`` with ``stopping="networkx"``); no
    personalization yet. `parts` and `cluster` as for :func:`bfs`.

    Returns
    -------
    PageRankResult
        ``rank`` in the caller's ids.

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence within `max_iter` iterations (``tol > 0``).
    """
    from ..algorithms.pagerank import (
        DEFAULT_TOL,
        STOPPING,
        PageRankResult,
        _check_numbers,
        _uses_weights,
    )
    from ..transform import check_weights

    tol = DEFAULT_TOL if tol is None else tol
    alpha, max_iter, tol = _check_numbers(alpha, max_iter, tol)
    if stopping not in STOPPING:
        raise UnknownNameError(f"stopping must be 'absolute' or 'networkx', not {stopping!r}")
    weighted = _uses_weights(G, weight)
    if weighted and not isinstance(G, PartitionedGraph) and hasattr(G, "csc"):
        check_weights(G, name="pagerank")
    if G.n == 0:
        kind = "distributed pull"
        return PageRankResult("pagerank", "cpu", 0.0, 0, kind, {"error": None}, rank=np.zeros(0))
    threshold = tol if stopping == "absolute" else G.n * tol
    stats = Stats()
    with _placed(G, parts, cluster) as dg, Timer() as t:
        out = dg.run(pagerank_program, alpha, max_iter, threshold, weighted, stats=stats)
    rank = np.concatenate([o[0] for o in out])
    _, it, change, converged = out[0]
    if not converged:
        raise PowerIterationFailedConvergence(
            f"pagerank did not converge in {max_iter} iterations (last L1 change "
            f"{change:.3g}, bound {threshold:.3g})"
        )
    kind = "distributed pull" + (", weighted" if weighted else "") + f", {dg.nparts} parts"
    return PageRankResult(
        "pagerank",
        "cpu",
        t.seconds,
        it,
        kind,
        {"error": change} | _stats(dg, stats),
        rank=to_caller(dg, rank),
    )


def connected_components(G, *, parts=2, cluster=None):
    """Connected components (weakly, for directed graphs) over `parts` parts: every vertex
    labelled with the smallest caller id of its component, as
    :func:`gravel.connected_components` labels them. `parts` and `cluster` as for :func:`bfs`."""
    from ..algorithms.cc import CCResult

    stats = Stats()
    with _placed(G, parts, cluster) as dg, Timer() as t:
        out = dg.run(cc_program, stats=stats)
    labels = np.concatenate([o[0] for o in out])
    if dg.order is not None:
        labels = ids_to_caller(dg, to_caller(dg, labels))
        smallest = np.full(dg.n, dg.n, np.int64)
        np.minimum.at(smallest, labels, np.arange(dg.n))
        labels = smallest[labels].astype(np.int32)
    return CCResult(
        "connected_components",
        "cpu",
        t.seconds,
        out[0][1],
        f"distributed min-label propagation with shortcuts, {dg.nparts} parts",
        _stats(dg, stats),
        labels=labels,
    )
