"""BFS, SSSP, PageRank and connected components on a 1-D partitioned graph.

Each primitive is a program run once per part (programs.py), a collective where the parts must
meet. The public functions partition a Graph, run on a local Dask cluster of CPU workers (or the
given one, or in this process) or of GPU workers (`gpus`), and return gravel's result objects with
one array in the caller's ids.
"""

import contextlib
import operator

import numpy as np

from ..dispatch import caller_id, check_source, ids_to_caller, to_caller
from ..errors import InvalidArgumentError, PowerIterationFailedConvergence, UnknownNameError
from ..results import Timer
from .exchange import Stats
from .partition import PartitionedGraph, partition
from .programs import DIRECTIONS, bfs_program, cc_program, pagerank_program, sssp_program
from .results import Outcome

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
    # a distributed.Client or a scheduler address: the workers stay, the client made here goes
    made = isinstance(cluster, str) or cluster is not None and not isinstance(cluster, kind)
    if made:
        cluster = kind(client=cluster)
    own = cluster is None
    if own:
        cluster = GPUCluster(gpus) if on_gpus else Cluster(parts=parts)
    # closed with what it started (its workers, or its client), error or not
    with cluster if own or made else contextlib.nullcontext():
        dg = cluster.load(G) if on_gpus else cluster.load(G, parts)
        try:
            yield dg
        finally:
            if not own:
                dg.free()


def _device(dg):
    return getattr(dg, "device", "cpu")


def _check_gather(G, cluster, gather):
    """Errors before any work for results that cannot stay distributed."""
    if gather:
        return
    if G.order is not None:
        raise InvalidArgumentError(
            "gather=False leaves results in the partition's ids: not for a reordered graph"
        )
    if cluster is None and hasattr(G, "csc"):
        raise InvalidArgumentError(
            "gather=False leaves results on the workers: pass a cluster (the one a call starts "
            "is shut down when it returns)"
        )


@contextlib.contextmanager
def _run(G, parts, cluster, gpus, gather, program, *args):
    """(dg, its parts' Outcome, Stats, seconds) of `program` run where _placed puts G."""
    stats = Stats()
    with _placed(G, parts, cluster, gpus) as dg:
        with Timer() as t:
            out = dg.run(program, *args, stats=stats, keep=not gather)
        yield dg, Outcome(dg, out, keep=not gather), stats, t.seconds


def _max_depth(result):
    depth = result[0]
    return int(depth.max()) if depth.size else 0


_second, _third = operator.itemgetter(1), operator.itemgetter(2)
_facts = operator.itemgetter(1, 2, 3)


def _stats(dg, stats):
    return {"parts": dg.nparts} | stats.as_dict()


def bfs(G, source, *, direction="auto", parts=2, cluster=None, gpus=None, gather=True):
    """Breadth-first search from `source` over `parts` parts (level-synchronous,
    direction-optimizing).

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        A Graph is partitioned for this call (:func:`gravel.distributed.partition`); a graph
        already partitioned runs where its parts are (`parts`, `cluster` and `gpus` are then
        ignored).
    source : int or label
        The source vertex, in the caller's ids, or its label on a graph with labels (a graph
        partitioned on the CPU keeps its Graph's labels).
    direction : {"auto", "top-down", "bottom-up"}, default "auto"
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
        error, before any work, where there are fewer GPUs); `parts` is then ignored. With
        ``cluster="in-process"`` the parts run in this process on the CPU all the same.
    gather : bool, default True
        Return each per-vertex array here, as one NumPy array in the caller's ids; False leaves
        it where the parts computed it, as :class:`~gravel.distributed.PartArrays` (each part's
        slice with its first global id; needs a given `cluster`, or a partitioned graph, and a
        graph that is not reordered).

    Returns
    -------
    BFSResult
        ``depth`` and ``parent`` (int32) in the caller's ids, as :func:`gravel.bfs` gives them
        (any valid BFS tree; -1 where unreached, the source its own parent); ``iterations``: the
        largest depth. ``stats``: ``parts``, the exchange's (``supersteps``,
        ``exchange_bytes``, ``exchange_s``, and on GPUs ``worker_s``) and
        ``bottom_up_levels``.

    Raises
    ------
    VertexNotFoundError
        `source` is not a vertex of `G`.
    UnknownNameError
        `direction` is not one of the three.
    InvalidArgumentError
        ``gather=False`` with a reordered graph, or with a Graph and no `cluster`; `parts` or
        `gpus` not a positive integer, or more GPUs than there are.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.bfs : The single-process BFS.

    Notes
    -----
    Every level begins with one allreduce of the frontier's vertices, out-arcs and unexplored
    in-arcs. A top-down level sends each target found to its owner (alltoall); a bottom-up level
    all-gathers the frontier (its ids, or a bitmap of every vertex where that is smaller) and each
    part searches its unvisited vertices' in-lists, with no further exchange.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.generate.grid(2, 3)
    >>> r = gravel.distributed.bfs(G, 0, parts=2, cluster="in-process")
    >>> r.depth.tolist(), r.parent.tolist(), r.iterations
    ([0, 1, 2, 1, 2, 3], [0, 0, 1, 0, 1, 2], 3)
    """
    from ..algorithms.bfs import BFSResult

    s = check_source(G, source)
    if direction not in DIRECTIONS:
        raise UnknownNameError(
            f"unknown direction {direction!r} (expected {', '.join(map(repr, DIRECTIONS))})"
        )
    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, gpus, gather, bfs_program, s, direction) as (dg, out, stats, t):
        levels, pulls = max(out.each(_max_depth)), out.each(_third)[0]
        depth, parent = out.array(0, np.int32), out.array(1, np.int32)
    return BFSResult(
        "bfs",
        _device(dg),
        t,
        levels,
        f"distributed {_DIRECTION[direction]}, {dg.nparts} parts",
        _stats(dg, stats) | {"bottom_up_levels": int(pulls)},
        depth=to_caller(dg, depth),
        parent=ids_to_caller(dg, to_caller(dg, parent)),
    )


def parts_delta(G, mean):
    """SSSP's bucket width on parts: the mean weight times max(1, 16 / mean degree).

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        Read for its ``n`` and ``nnz`` (the mean degree, nnz / n).
    mean : float
        The mean weight; 0 or None counts as 1.

    Returns
    -------
    float
        The bucket width.

    Notes
    -----
    The width is 16 to 32 times the single process's on the CPU
    (``gravel.algorithms.sssp.default_delta``, mean * max(1/32, 1/degree)) on graphs of degree
    16 and more: every bucket costs supersteps of exchange.

    Examples
    --------
    >>> import gravel
    >>> from gravel.distributed.algorithms import parts_delta
    >>> G = gravel.generate.grid(2, 3)
    >>> G.n, G.nnz, round(parts_delta(G, 1.0), 3)
    (6, 14, 6.857)
    """
    return (mean or 1.0) * max(1.0, 16.0 * G.n / max(G.nnz, 1))


def sssp(G, source, *, delta=None, parts=2, cluster=None, gpus=None, gather=True):
    """Shortest-path distances and a shortest-path tree from `source` over `parts` parts (near-far
    delta-stepping, one exchange of offers per superstep).

    Weights as :func:`gravel.sssp` takes them: non-negative and finite; unit weights where the
    graph has none.

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        As for :func:`bfs`. The weights of a Graph are checked here; those of a graph already
        partitioned are not.
    source : int or label
        The source vertex, in the caller's ids, or its label on a graph with labels.
    delta : float, optional
        The bucket width, a positive finite number, checked as :func:`gravel.sssp` checks it
        (against a largest weight of 1 on a graph already partitioned). Default:
        :func:`parts_delta` of the mean weight, and at least the largest weight / ``2**20`` (the
        most buckets a width may ask for); on a graph already partitioned the weights count as
        1, and a weighted one needs `delta`.
    parts, cluster, gpus, gather
        As for :func:`bfs`.

    Returns
    -------
    SSSPResult
        ``distance`` (float64, ``inf`` where unreachable) and ``predecessor`` (int32, -1 for the
        source and where unreachable) in the caller's ids; ``source``; ``iterations``: the
        supersteps that relaxed arcs. ``stats``: ``delta``, ``parts`` and the exchange's, as
        for :func:`bfs`.

    Raises
    ------
    VertexNotFoundError
        `source` is not a vertex of `G`.
    InvalidWeightError
        A negative or non-finite weight (of a Graph), or a `delta` that is not a positive finite
        number or is too narrow.
    UnknownNameError
        A weighted graph already partitioned, and no `delta`.
    InvalidArgumentError
        As for :func:`bfs`.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.sssp : The single-process SSSP.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 2.0, 5.0])
    >>> r = gravel.distributed.sssp(G, 0, parts=2, cluster="in-process")
    >>> r.distance.tolist(), r.predecessor.tolist()
    ([0.0, 1.0, 3.0], [-1, 0, 1])
    """
    from ..algorithms.sssp import MAX_BUCKETS, SSSPResult, check_delta
    from ..transform import check_weights

    source = caller_id(G, source)  # a label names its vertex, as for gravel.sssp
    s = check_source(G, source)
    host = not isinstance(G, PartitionedGraph) and hasattr(G, "csc")
    if host:
        check_weights(G, name="sssp")
    if delta is None:
        if not host and G.weighted:
            raise UnknownNameError("sssp on a partitioned weighted graph needs delta=")
        mean, heaviest = (G.weight_stats[2], G.weight_stats[1]) if host else (1.0, 1.0)
        delta = max(parts_delta(G, mean), heaviest / MAX_BUCKETS)
    else:
        check_delta(delta, G.weight_stats[1] if host else 1.0)
    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, gpus, gather, sssp_program, s, float(delta)) as run:
        dg, out, stats, t = run
        steps = max(out.each(_third))
        dist, pred = out.array(0, np.float64), out.array(1, np.int32)
    res = SSSPResult(
        "sssp",
        _device(dg),
        t,
        steps,
        f"distributed near-far, {dg.nparts} parts",
        {"delta": float(delta)} | _stats(dg, stats),
        distance=to_caller(dg, dist),
        predecessor=ids_to_caller(dg, to_caller(dg, pred)),
    )
    res.source = source
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
    gather=True,
):
    """PageRank over `parts` parts, iterated and stopped as :func:`gravel.pagerank` does (the
    L1 change below `tol`, or below ``n * tol`` with ``stopping="networkx"``); no
    personalization yet.

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        As for :func:`bfs`.
    alpha : float, default 0.85
        Damping factor, in [0, 1].
    max_iter : int, default 100
        Most iterations; 0 returns the uniform starting vector (only with ``tol=0``).
    tol : float, optional
        Stop when the L1 change of an iteration is below `tol` (below ``n * tol`` with
        ``stopping="networkx"``); ``tol=0`` runs exactly `max_iter` iterations and never raises.
        Default 1e-6, as :func:`gravel.pagerank`.
    weight : True, str or None, default True
        True (or an attribute name) uses the graph's weights where it has them; None or False
        ignores them.
    stopping : {"absolute", "networkx"}, default "absolute"
        The stopping rule.
    parts, cluster, gpus, gather
        As for :func:`bfs`.

    Returns
    -------
    PageRankResult
        ``rank`` (float64) in the caller's ids; ``iterations``: the iterations run.
        ``stats``: ``error``, the L1 change of the last iteration (None when none ran),
        ``parts`` and the exchange's, as for :func:`bfs`; no ``changes``.

    Raises
    ------
    InvalidArgumentError
        `alpha`, `max_iter` or `tol` out of range, ``max_iter=0`` with ``tol > 0``, `weight` of
        another kind; else as for :func:`bfs`.
    UnknownNameError
        `stopping` is not one of the two.
    InvalidWeightError
        A negative or non-finite weight of a Graph (with `weight` on).
    PowerIterationFailedConvergence
        No convergence within `max_iter` iterations (``tol > 0``).
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.pagerank : The single-process PageRank.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> r = gravel.distributed.pagerank(gravel.generate.grid(1, 2), cluster="in-process")
    >>> r.rank.round(3).tolist()
    [0.5, 0.5]
    """
    from ..algorithms.pagerank import (
        DEFAULT_TOL,
        STOPPING,
        PageRankResult,
        check_numbers,
        uses_weights,
    )
    from ..transform import check_weights

    tol = DEFAULT_TOL if tol is None else tol
    alpha, max_iter, tol = check_numbers(alpha, max_iter, tol)
    if stopping not in STOPPING:
        raise UnknownNameError(f"stopping must be 'absolute' or 'networkx', not {stopping!r}")
    weighted = uses_weights(G, weight)
    if weighted and not isinstance(G, PartitionedGraph) and hasattr(G, "csc"):
        check_weights(G, name="pagerank")
    if G.n == 0:
        kind = "distributed pull"
        return PageRankResult("pagerank", "cpu", 0.0, 0, kind, {"error": None}, rank=np.zeros(0))
    threshold = tol if stopping == "absolute" else G.n * tol
    _check_gather(G, cluster, gather)
    args = (alpha, max_iter, threshold, weighted)
    with _run(G, parts, cluster, gpus, gather, pagerank_program, *args) as (dg, out, stats, t):
        it, change, converged = out.each(_facts)[0]
        rank = out.array(0, np.float64)
    if not converged:
        raise PowerIterationFailedConvergence(
            f"pagerank did not converge in {max_iter} iterations (last L1 change "
            f"{change:.3g}, bound {threshold:.3g})"
        )
    kind = "distributed pull" + (", weighted" if weighted else "") + f", {dg.nparts} parts"
    return PageRankResult(
        "pagerank",
        _device(dg),
        t,
        it,
        kind,
        {"error": change} | _stats(dg, stats),
        rank=to_caller(dg, rank),
    )


def connected_components(G, *, parts=2, cluster=None, gpus=None, gather=True):
    """Connected components (weakly, for directed graphs) over `parts` parts: every vertex
    labelled with the smallest caller id of its component, as
    :func:`gravel.connected_components` labels them.

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        As for :func:`bfs`.
    parts, cluster, gpus, gather
        As for :func:`bfs`.

    Returns
    -------
    CCResult
        ``labels`` (int32) in the caller's ids; ``iterations``: the rounds of label propagation.
        ``stats``: ``parts`` and the exchange's, as for :func:`bfs`.

    Raises
    ------
    InvalidArgumentError
        As for :func:`bfs`.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.connected_components : The single-process components.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.Graph.from_edges([0, 3], [1, 2], n=5, directed=False)
    >>> gravel.distributed.connected_components(G, cluster="in-process").labels.tolist()
    [0, 0, 2, 2, 4]
    """
    from ..algorithms.cc import CCResult

    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, gpus, gather, cc_program) as (dg, out, stats, t):
        rounds = out.each(_second)[0]
        labels = out.array(0, np.int32)
    if dg.order is not None:
        labels = ids_to_caller(dg, to_caller(dg, labels))
        smallest = np.full(dg.n, dg.n, np.int64)
        np.minimum.at(smallest, labels, np.arange(dg.n))
        labels = smallest[labels].astype(np.int32)
    return CCResult(
        "connected_components",
        _device(dg),
        t,
        rounds,
        f"distributed min-label propagation with shortcuts, {dg.nparts} parts",
        _stats(dg, stats),
        labels=labels,
    )
