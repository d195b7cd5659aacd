"""Delta-stepping on the CPU: buckets relaxed in parallel batches, small frontiers serially."""

import numpy as np

from ...backends.cpu import chunks
from ...backends.cpu import sssp as _k
from ...results import Timer
from .result import SSSPResult

#: frontiers of fewer vertices and out-arcs than this run serially, many phases per call, and
#: buckets of fewer entries are taken serially (all of them on graphs of up to SMALL_ARCS arcs)
SERIAL_ARCS = 1 << 12

#: a limit no count reaches
UNBOUNDED = np.iinfo(np.int64).max

#: most out-arcs relaxed in one parallel batch: its requests and their room in the bucket pool take
#: 32 bytes an arc
BATCH_ARCS = 2**22


#: distances are held as int32 where every weight is whole and n times the largest stays below this
INT_DISTANCES_BELOW = 2**31 - 1


def distance_type(G):
    """The CPU kernels' distance type: int32 (half the bytes of each random read of a distance,
    half the pages the relaxations touch) where every weight is a whole number and n times the
    largest stays below INT_DISTANCES_BELOW, so that every tentative distance (a simple path's
    length, or one arc past it) is exact; else float64.

    The sums are exact either way, so the distances are the same; :func:`sssp` returns float64
    distances on the CPU whichever type its kernels held them in (``stats["distances"]``).

    Parameters
    ----------
    G : Graph
        An unweighted graph has whole weights (1).

    Returns
    -------
    type
        ``numpy.int32`` or ``numpy.float64``.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.sssp import distance_type
    >>> distance_type(gravel.Graph.from_edges([0, 1], [1, 2], [1.0, 2.0])).__name__
    'int32'
    >>> distance_type(gravel.Graph.from_edges([0, 1], [1, 2], [1.5, 2.0])).__name__
    'float64'
    """
    heaviest = G.weight_stats[1]
    if G.whole_weights and max(G.n, 1) * heaviest < INT_DISTANCES_BELOW:
        return np.int32
    return np.float64


def _sssp_cpu(G, source, weights, delta, predecessors=True):
    from ...backends.cpu.fill import full as filled
    from ...backends.cpu.serial import is_small  # Numba: loaded on a CPU run

    n = G.n
    dtype = distance_type(G)
    unreached = np.iinfo(np.int32).max if dtype is np.int32 else np.inf
    full = np.full if is_small(G.nnz) else filled  # no parallel kernel to compile for a small graph
    dist = full(n, unreached, dtype)
    dist[source] = 0
    pred = full(n, -1, np.int32)
    room = min(max(BATCH_ARCS, G.max_out_degree), G.nnz)
    pool = _k.bucket_pool(n, int(G.weight_stats[1] / delta) + 2, room, dtype)
    requests = (np.empty(room, np.int32), np.empty(room, dtype), np.empty(room, np.int32))
    arcs = (G.offsets, G.indices, weights)
    frontier = np.array([source], np.int32)
    with Timer() as t:
        if is_small(G.nnz):
            # every phase serially: the parallel kernels take seconds to compile
            _, _, phases = _k.serial_phases(
                arcs, frontier, 0, dist, pred, delta, pool, requests, UNBOUNDED
            )
        else:
            phases = _sssp_cpu_phases(G, arcs, frontier, dist, pred, delta, pool, requests)
    if dtype is np.float64:
        distance = dist  # inf where unreached already
    elif is_small(G.nnz):
        distance = np.where(dist == unreached, np.inf, dist)  # no parallel kernel to compile
    else:
        distance = _k.as_distances(dist, unreached)
    return SSSPResult(
        "sssp",
        "cpu",
        t.seconds,
        phases,
        "delta-stepping",
        {"delta": delta, "distances": np.dtype(dtype).name},
        distance=distance,
        predecessor=pred if predecessors else None,  # recorded as it relaxes: no time to save
    )


def _sssp_cpu_phases(G, arcs, frontier, dist, pred, delta, pool, requests):
    """Delta-stepping's phases: small frontiers serially, many per call, big ones in parallel
    batches of at most BATCH_ARCS out-arcs; big buckets are taken in parallel. Returns the number
    of phases."""
    parts = chunks()
    counts, widths = np.zeros(parts, np.int64), np.zeros(parts, np.int64)
    buf = np.empty(G.n, np.int64)
    b, phases = 0, 0
    while frontier.size:
        frontier, b, steps = _k.serial_phases(
            arcs, frontier, b, dist, pred, delta, pool, requests, SERIAL_ARCS
        )
        phases += steps
        if frontier.size:
            phases += 1
            ends = _k.arc_ends(G.offsets, frontier, buf, parts)
            start = 0
            for end in _k.batch_ends(ends, BATCH_ARCS):
                base = ends[start - 1] if start else 0
                part, part_ends = frontier[start:end], ends[start:end]
                starts = _k.relax(
                    arcs, part, part_ends, base, dist, b, delta, requests, counts, widths
                )
                _k.file_lowered(requests, starts, counts, widths, b, dist, pred, delta, pool)
                start = end
        frontier, b = _k.next_frontier(b, dist, pred, pool, UNBOUNDED)
    return phases


# Relaxation on the GPU: an atomic min on the distance's bits (non-negative floats order like their
# bits), skipped where a plain read already shows no gain (a stale read is never below the
# distance); improved vertices below the split join the next near frontier (once per step, by a
# stamp), the others go to the far pile; a full pile sends them to near instead (only work done
# early). A pull sweep's apply files its improved vertices the same way.
