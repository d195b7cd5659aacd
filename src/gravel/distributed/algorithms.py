"""BFS, SSSP, PageRank and connected components on a 1-D partitioned graph.

Each primitive is a program run once per part (programs.py), a collective where the parts must
meet. The public functions partition a Graph, run on a local Dask cluster of CPU workers (or the
given one, or in this process) or of GPU workers (`gpus`), and return gravel's result objects with
one array in the caller's ids.
"""

import contextlib

import numpy as np

from ..algorithms._common import Timer, check_source, ids_to_caller, to_caller
from ..errors import PowerIterationFailedConvergence, UnknownNameError
from .exchange import Stats
from .partition import PartitionedGraph, partition
from .programs import DIRECTIONS, bfs_program, cc_program, pagerank_program, sssp_program

_DIRECTION = {
    "auto": "direction-optimizing",
    "top-down": "top-down",
    "bottom-up": "bottom-up",
}

# -- the public functions ----------------------------------------------------------------------


@contextlib.contextmanager
def _placed(G, parts, cluster, gpus=None):
    """G partitioned where `cluster` says: a partitioned graph as given, "in process", on a
    Cluster or GPUCluster or Dask client given, or on a local cluster started for the call (of
    `gpus` GPU workers where given, else of `parts` CPU workers) and shut down after it."""
    from .cluster import Cluster, DistributedGraph
    from .gpu import GPUCluster, GPUGraph

    if isinstance(G, (DistributedGraph, PartitionedGraph, GPUGraph)):
        yield G
        return
    if cluster == "in-process":
        yield partition(G, parts)
        return
    on_gpus = gpus is not None or isinstance(cluster, GPUCluster)
    kind = GPUCluster if on_gpus else Cluster
    if isinstance(cluster, str) or cluster is not None and not isinstance(cluster, kind):
        cluster = kind(client=cluster)  # a distributed.Client or a scheduler address
    own = cluster is None
    if own:
        cluster = GPUCluster(gpus) if on_gpus else Cluster(parts=parts)
    try:
        dg = cluster.load(G) if on_gpus else cluster.load(G, parts)
        try:
            yield dg
        finally:
            if not own:
                dg.free()
    finally:
        if own:
            cluster.close()


def _device(dg):
    return getattr(dg, "device", "cpu")


def _stats(dg, stats):
    return {"parts": dg.nparts} | stats.as_dict()


def bfs(G, source, *, direction="auto", parts=2, cluster=None, gpus=None):
    """Breadth-first search from `source` over `parts` parts (level-synchronous,
    direction-optimizing).

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        A Graph is partitioned for this call (:func:`gravel.distributed.partition`).
    source : int
    direction : {"auto", "top-down", "bottom-up"}
        "auto": Beamer's switch, level by level, on the whole frontier (the rule and constants of
        :func:`gravel.bfs` on the CPU); or one direction for every level.
    parts : int, default 2
        Parts to cut a Graph into (and workers to start when `cluster` is None).
    cluster : Cluster, GPUCluster, distributed.Client, str or "in-process", optional
        Where to run: a :class:`Cluster` (CPU workers), a :class:`GPUCluster`, an existing Dask
        client or scheduler address, or ``"in-process"`` (every part in this process, no Dask).
        Default: a local cluster of `parts` CPU worker processes (or of `gpus` GPU workers),
        started for the call and shut down after it.
    gpus : int, optional
        Run on this many GPUs, one worker process and one part each, exchanging over NCCL (an
        error, before any work, where there are fewer GPUs); `parts` is then ignored.

    Returns
    -------
    BFSResult
        ``depth`` and ``parent`` in the caller's ids, as :func:`gravel.bfs` gives them (any valid
        BFS tree). ``stats``: the exchange's (``exchange_bytes``, ``supersteps``, ...) and
        ``bottom_up_levels``.

    Notes
    -----
    Every level begins with one allreduce of the frontier's vertices, out-arcs and unexplored
    in-arcs. A top-down level sends each target found to its owner (alltoall); a bottom-up level
    all-gathers the frontier (its ids, or a bitmap of every vertex where that is smaller) and each
    part searches its unvisited vertices' in-lists, with no further exchange.
    """
    from ..algorithms.bfs import BFSResult

    s = check_source(G, source)
    if direction not in DIRECTIONS:
        raise UnknownNameError(
            f"unknown direction {direction!r} (expected {', '.join(map(repr, DIRECTIONS))})"
        )
    stats = Stats()
    with _placed(G, parts, cluster, gpus) as dg, Timer() as t:
        out = dg.run(bfs_program, s, direction, stats=stats)
    depth = np.concatenate([o[0] for o in out])
    parent = np.concatenate([o[1] for o in out])
    levels = int(depth.max(initial=0))
    return BFSResult(
        "bfs",
        _device(dg),
        t.seconds,
        levels,
        f"distributed {_DIRECTION[direction]}, {dg.nparts} parts",
        _stats(dg, stats) | {"bottom_up_levels": int(out[0][2])},
        depth=to_caller(dg, depth),
        parent=ids_to_caller(dg, to_caller(dg, parent)),
    )


def sssp(G, source, *, delta=None, parts=2, cluster=None, gpus=None):
    """Shortest-path distances and a shortest-path tree from `source` over `parts` parts (near-far
    delta-stepping, one exchange of offers per superstep). Weights as :func:`gravel.sssp` takes
    them (non-negative and finite; unit weights where the graph has none); `delta` as there
    (default: gravel's CPU default). `parts`, `cluster` and `gpus` as for :func:`bfs`.

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
        if not host and G.weighted:
            raise UnknownNameError("sssp on a partitioned weighted graph needs delta=")
        if not host:  # unit weights: gravel's CPU default from the mean degree alone
            delta = max(1.0, 16.0 * G.n / max(G.nnz, 1))
        else:
            weights = G.weights if G.weighted else np.ones(1, np.float32)
            delta = max(default_delta(G, weights), float(weights.max(initial=0)) / MAX_BUCKETS)
    else:
        _check_delta(delta, float(G.weights.max(initial=0)) if host and G.weighted else 1.0)
    stats = Stats()
    with _placed(G, parts, cluster, gpus) as dg, Timer() as t:
        out = dg.run(sssp_program, s, float(delta), stats=stats)
    dist = np.concatenate([o[0] for o in out])
    pred = np.concatenate([o[1] for o in out])
    res = SSSPResult(
        "sssp",
        _device(dg),
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
    gpus=None,
):
    """PageRank over `parts` parts, iterated and stopped as :func:`gravel.pagerank` does (the
    L1 change below `tol`, or below ``n * tol`` with ``stopping="networkx"``); no
    personalization yet. `parts`, `cluster` and `gpus` as for :func:`bfs`.

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
    with _placed(G, parts, cluster, gpus) as dg, Timer() as t:
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
        _device(dg),
        t.seconds,
        it,
        kind,
        {"error": change} | _stats(dg, stats),
        rank=to_caller(dg, rank),
    )


def connected_components(G, *, parts=2, cluster=None, gpus=None):
    """Connected components (weakly, for directed graphs) over `parts` parts: every vertex
    labelled with the smallest caller id of its component, as
    :func:`gravel.connected_components` labels them. `parts`, `cluster` and `gpus` as for
    :func:`bfs`."""
    from ..algorithms.cc import CCResult

    stats = Stats()
    with _placed(G, parts, cluster, gpus) as dg, Timer() as t:
        out = dg.run(cc_program, stats=stats)
    labels = np.concatenate([o[0] for o in out])
    if dg.order is not None:
        labels = ids_to_caller(dg, to_caller(dg, labels))
        smallest = np.full(dg.n, dg.n, np.int64)
        np.minimum.at(smallest, labels, np.arange(dg.n))
        labels = smallest[labels].astype(np.int32)
    return CCResult(
        "connected_components",
        _device(dg),
        t.seconds,
        out[0][1],
        f"distributed min-label propagation with shortcuts, {dg.nparts} parts",
        _stats(dg, stats),
        labels=labels,
    )
