"""Timing distributed runs: each algorithm after a warm-up, the median of `repeat` runs, timed
inside the workers (the slowest part, synchronized) with the part of it spent in exchange. Shared
by ``gravel bench --gpus`` and benchmarks/multigpu.py."""

import statistics

from .. import programs
from . import algorithms, counting, vertex_programs

#: what is timed unless asked otherwise: the primitives that partition the graph
DEFAULT_ALGOS = ("bfs", "sssp", "pagerank", "cc")
#: what runs distributed, by the command line's names (the catalog's, and the library's BFS and
#: PageRank as vertex programs)
ALGOS = (*DEFAULT_ALGOS, "tc", "kcore", "bfs-program", "pagerank-program")
#: what is timed per iteration
PER_ITERATION = ("pagerank", "pagerank-program")
#: PageRank iterations per timed run (fixed: tol=0), reported per iteration
PAGERANK_ITERATIONS = 20


def runner(dg, algo, source=None, delta=None, direction="auto"):
    """A call of `algo` on the distributed graph `dg`, returning its result.

    Parameters
    ----------
    dg : PartitionedGraph, DistributedGraph or GPUGraph
        The graph, already partitioned.
    algo : str
        The algorithm, by the command line's name (one of :data:`ALGOS`).
    source : int, optional
        The source of BFS and SSSP, and of BFS as a program (they need one).
    delta : float, optional
        SSSP's bucket width (needed where `dg` is weighted).
    direction : {"auto", "top-down", "bottom-up"}, default "auto"
        BFS's direction.

    Returns
    -------
    callable
        Of no arguments, returning the algorithm's result; PageRank (the primitive and the
        program) runs ``PAGERANK_ITERATIONS`` (20) iterations with ``tol=0``, the primitive
        unweighted; triangle counting the total alone.

    Raises
    ------
    ValueError
        `algo` does not run distributed.
    """
    if algo == "bfs":
        return lambda: algorithms.bfs(dg, source, direction=direction)
    if algo == "sssp":
        return lambda: algorithms.sssp(dg, source, delta=delta)
    if algo == "pagerank":
        return lambda: algorithms.pagerank(dg, max_iter=PAGERANK_ITERATIONS, tol=0.0, weight=None)
    if algo == "cc":
        return lambda: algorithms.connected_components(dg)
    if algo == "tc":
        return lambda: counting.triangles(dg, per_vertex=False)
    if algo == "kcore":
        return lambda: counting.core_number(dg)
    if algo == "bfs-program":  # as many rounds as a BFS may take
        bfs = programs.bfs()
        return lambda: vertex_programs.run_program(
            dg, bfs, params={"source": source}, max_iter=max(dg.n, 1)
        )
    if algo == "pagerank-program":
        pagerank = programs.pagerank(tol=0.0)
        return lambda: vertex_programs.run_program(dg, pagerank, max_iter=PAGERANK_ITERATIONS)
    raise ValueError(f"{algo!r} does not run distributed (choose from {', '.join(ALGOS)})")


def delta_for(dg, max_weight=None):
    """The bucket width of SSSP on parts (:func:`~gravel.distributed.algorithms.parts_delta`)
    for `dg`, whose weights are integers uniform in 1..max_weight (or all 1).

    Parameters
    ----------
    dg : PartitionedGraph, DistributedGraph or GPUGraph
        The graph (its ``n`` and ``nnz``).
    max_weight : int, optional
        The largest weight; None where the graph is unweighted.

    Returns
    -------
    float
        The width for a mean weight of ``(1 + max_weight) / 2`` (or 1).

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> from gravel.distributed.timing import delta_for
    >>> PG = gravel.distributed.partition(gravel.generate.grid(2, 3), 2)
    >>> round(delta_for(PG), 3), round(delta_for(PG, 63), 3)
    (6.857, 219.429)
    """
    return algorithms.parts_delta(dg, 1.0 if max_weight is None else (1 + max_weight) / 2)


def measure(dg, algo, *, name, repeat=5, source=None, delta=None, direction="auto"):
    """The row of `algo` on `dg`: median, min and max seconds (per iteration for PageRank), the
    median seconds in exchange and the bytes exchanged (per iteration), after one warm-up run.

    Parameters
    ----------
    dg : PartitionedGraph, DistributedGraph or GPUGraph
        The graph, already partitioned.
    algo : str
        The algorithm, by the command line's name (one of :data:`ALGOS`).
    name : str
        The graph's name in the row.
    repeat : int, default 5
        Timed runs after the warm-up.
    source, delta, direction
        As :func:`runner` takes them.

    Returns
    -------
    dict
        ``graph``, ``algo`` (``"pagerank/iteration"`` for PageRank, the program's too), ``device``
        (``"cuda x2"``, say), ``parts``, ``n``, ``arcs``; ``time_s``, ``min_s``, ``max_s`` (on GPUs
        the slowest part's time inside its worker, ``worker_s``; else the run's time on the driver),
        ``exchange_s`` (median), ``exchange_bytes`` (of the first timed run) and ``wall_s`` (the
        median of the runs' times), per iteration for PageRank; ``iterations``, ``supersteps``,
        ``strategy``, ``gteps`` (billions of arcs / median time) and ``floor_ratio`` (NaN).

    Raises
    ------
    ValueError
        `algo` does not run distributed.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> from gravel.distributed.timing import measure
    >>> PG = gravel.distributed.partition(gravel.generate.grid(2, 3), 2)
    >>> row = measure(PG, "pagerank", name="grid 2x3", repeat=2)
    >>> row["algo"], row["device"], row["iterations"], row["supersteps"]
    ('pagerank/iteration', 'cpu x2', 20, 21)
    """
    run = runner(dg, algo, source, delta, direction)
    run()
    results = [run() for _ in range(repeat)]
    per = PAGERANK_ITERATIONS if algo in PER_ITERATION else 1
    times = [r.stats.get("worker_s", r.time_s) / per for r in results]
    exchange = [r.stats["exchange_s"] / per for r in results]
    t = statistics.median(times)
    return {
        "graph": name,
        "algo": algo + ("/iteration" if per > 1 else ""),
        "device": f"{results[0].device} x{dg.nparts}",
        "parts": dg.nparts,
        "n": dg.n,
        "arcs": dg.nnz,
        "time_s": t,
        "min_s": min(times),
        "max_s": max(times),
        "exchange_s": statistics.median(exchange),
        "exchange_bytes": results[0].stats["exchange_bytes"] // per,
        "wall_s": statistics.median(r.time_s for r in results) / per,
        "iterations": results[0].iterations,
        "supersteps": results[0].stats["supersteps"],
        "strategy": results[0].strategy,
        "gteps": dg.nnz / t / 1e9,
        "floor_ratio": float("nan"),
    }
