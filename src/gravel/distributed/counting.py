"""Triangle counts and core numbers over a 1-D partitioned graph. On GPU parts, triangles count on
replicas (:func:`gravel.distributed.replicated.replica_triangles`) and core numbers run the rounds
below as array calls on the part's lists (:func:`device_neighbours`); the rest of these notes is
the CPU parts'.

Both read each local vertex's undirected neighbours (:func:`neighbour_lists`): its out-list and,
on a directed graph, its in-list, without self loops. A part's local work runs in the CPU
backend's Numba kernels, on the part's Numba threads: the neighbour lists and each vertex's
local neighbours (``arcs``), the orientation and the wedge checks (``tc``, the single machine's
forward algorithm, here counting at the local rows only), the h-indices (``kcore``).

- Triangles: every edge is oriented from the lower to the higher (degree, id) rank, the degrees
  all-gathered once. A part finds each triangle at its lowest-ranked vertex u: for each oriented
  edge u -> v, the wedges u -> v -> w of v's oriented list whose u -> w is also one of u's. The
  oriented lists of the remote v come from their owners in one request and one reply
  (alltoall); per-vertex counts go to their vertices' owners in a third.
- Core numbers: the h-index iteration of Montresor, De Pellegrini and Miorandi (2013). Every
  estimate starts at the degree; each round a vertex takes the h-index of its neighbours'
  estimates (at most its own), and the parts all-gather only the estimates that changed. A round
  recomputes only the vertices left with fewer neighbours at or above their estimate than the
  estimate (each part keeps that count, lowering it as the changes arrive): the others' h-index
  is still their estimate. The fixpoint, reached when a round changes none, is the core numbers.
"""

import numpy as np

from ..arrays import entry_rows, xp
from ..backends.cpu import arcs as _arcs
from ..backends.cpu import kcore as _kcore
from ..backends.cpu import tc as _tc
from ..dispatch import to_caller
from .algorithms import _check_gather, _device, _run, _stats
from .device_part import DevicePart
from .exchange import allgather, allreduce, alltoall
from .programs import _by_owner
from .replicated import replica_triangles


def _threads():
    """The Numba threads a part's kernels share out its work over."""
    from numba import get_num_threads

    return get_num_threads()


def neighbour_lists(part, multi=False):
    """Each local vertex's neighbours in the undirected graph: CSR over the local rows.

    Parameters
    ----------
    part : Part
    multi : bool, default False
        False: the simple undirected graph (out- and in-neighbours as one set). True: on a
        directed graph, the distinct out-neighbours then the distinct in-neighbours, so that
        reciprocal arcs give a neighbour twice (the degree of ``networkx.DiGraph``).

    Returns
    -------
    offsets : numpy.ndarray of int64
        ``part.size + 1`` offsets.
    ids : numpy.ndarray of int32
        Global ids, sorted within each row; never the row's own vertex.
    """
    inward = (part.in_offsets, part.in_sources) if part.directed else (None, None)
    return _arcs.undirected_rows(part.out_offsets, part.out_targets, *inward, part.lo, multi)


def _lists(offsets, ids, rows):
    """The lists of `rows` in a CSR: their lengths, and their entries concatenated."""
    lengths = offsets[rows + 1] - offsets[rows]
    starts = np.zeros(rows.size, np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    return lengths, _arcs.gather_rows(offsets, ids, rows, starts, int(lengths.sum()))


def _with_remote(part, offsets, ids, want, got):
    """The oriented CSR over all n rows that the wedge checks read: the local rows' lists (and
    no others) in `offsets`/`ids`, each row of `want` (remote ones) given its list from `got`."""
    n = part.n
    fetched = np.concatenate([g[0] for g in got]).astype(np.int64)
    lengths = np.diff(offsets)
    lengths[want] = fetched
    joined = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=joined[1:])
    source = np.arange(n, dtype=np.int64)  # row x of [offsets, then the fetched rows]
    source[want] = n + np.arange(want.size)
    stacked = np.concatenate([offsets, offsets[-1] + np.cumsum(fetched)])
    values = np.concatenate([ids, *(g[1] for g in got)])
    return joined, _arcs.gather_rows(stacked, values, source, joined[:-1], int(joined[-1]))


def triangles_program(part, per_vertex):
    """Count the triangles found at this part's vertices (see the module's notes).

    Parameters
    ----------
    part : Part or DevicePart
    per_vertex : bool
        Also count the triangles through each vertex.

    Yields
    ------
    Collective
        An allgather of the degrees, two alltoalls (the oriented lists asked for and sent), with
        `per_vertex` a third (the counts to their owners), and an allreduce of the total; on a
        GPU part, :func:`~gravel.distributed.replicated.replica_triangles`' two.

    Returns
    -------
    triangles : numpy.ndarray of int64
        Per local vertex (empty without `per_vertex`).
    total : int
        The triangles of the whole graph.
    """
    if isinstance(part, DevicePart):  # a replica and the GPU's segmented intersection
        return (yield from replica_triangles(part, per_vertex))
    n, lo, hi = part.n, part.lo, part.hi
    offsets, ids = neighbour_lists(part)
    rank = yield allgather(np.diff(offsets))
    rows = np.zeros(n + 1, np.int64)  # the local rows at their global ids, the others empty
    rows[lo + 1 : hi + 1] = offsets[1:]
    rows[hi + 1 :] = offsets[-1]
    out, v = _tc.orient(rows, ids, rank)  # the oriented edges out of this part
    seen = np.zeros(n, bool)
    seen[v] = True
    seen[lo:hi] = False  # a local v's list is at hand
    want = np.flatnonzero(seen)
    asked = yield alltoall([s[0] for s in _by_owner(part, want)])
    got = yield alltoall([_lists(out, v, ask) for ask in asked])
    out, v = _with_remote(part, out, v, want, got)
    total, per = _tc.count(out, v, _threads(), per_vertex, (lo, hi))
    total = int((yield allreduce(np.int64(total), "sum")))
    if not per_vertex:
        return np.zeros(0, np.int64), total
    vertex = np.flatnonzero(per)
    received = yield alltoall(_by_owner(part, vertex, per[vertex]))
    counts = np.zeros(part.size, np.int64)
    for ids_in, c in received:
        counts[ids_in - lo] += c  # each part names a vertex once
    return counts, total


def core_program(part):
    """Core numbers by the h-index iteration (see the module's notes).

    Parameters
    ----------
    part : Part or DevicePart

    Yields
    ------
    Collective
        An allgather of the degrees, then each round an allgather of the changed estimates
        (their ids and values).

    Returns
    -------
    core : numpy.ndarray of int32
        Per local vertex.
    rounds : int
        The rounds run (the last one changed nothing).
    """
    if isinstance(part, DevicePart):  # array calls on the part's lists, on its GPU
        return (yield from _device_core(part))
    offsets, ids = neighbour_lists(part, multi=True)
    degree = np.diff(offsets)
    estimate = degree.astype(np.int32)
    everyone = (yield allgather(estimate)).copy()
    # each vertex's local neighbours, the highest degrees first
    naming, rows = _arcs.naming_rows(offsets, ids, part.n, np.argsort(-estimate, kind="stable"))
    threads, rounds = _threads(), 0
    support = np.zeros(part.size, np.int64)  # each row's values at least its estimate
    dirty = np.arange(part.size)  # the rows whose h-index may be below their estimate
    while True:
        cap = estimate[dirty]
        h, support[dirty] = _kcore.h_index(offsets, ids, everyone, dirty, cap, threads)
        lower = h < cap
        changed = dirty[lower]
        estimate[changed], rounds = h[lower], rounds + 1
        at, values = yield allgather((changed + part.lo, estimate[changed]))
        if not at.size:
            return estimate, rounds
        old = everyone[at]
        dirty = _kcore.stale_rows(naming, rows, at, old, values, estimate, support, degree)
        everyone[at] = values


def _device_core(part):
    """core_program on a GPU part: the same rounds and exchanges, each round's h-indices by array
    calls (a sort of the dirty rows' capped values, highest first, and a count per row of the
    values above their place), the rows made dirty those beside a changed estimate."""
    m = xp(part.graph.offsets)
    size, lo = part.size, part.lo
    rows, ids = device_neighbours(part)
    estimate = m.bincount(rows, minlength=size).astype(m.int32)
    known = (yield allgather(estimate))[part.ids]  # the part's vertices' and ghosts' estimates
    dirty, rounds = m.ones(size, bool), 0
    while True:
        pick = dirty[rows]
        h = _h_index(m, rows[pick], known[ids[pick]], estimate, size)
        changed = m.flatnonzero(dirty & (h < estimate))
        estimate[changed] = known[changed] = h[changed].astype(m.int32)
        rounds += 1
        at, values = yield allgather(((changed + lo).astype(m.int32), estimate[changed]))
        if not at.size:
            return estimate, rounds
        mine = part.local_ids(at)
        held = mine >= 0
        known[mine[held]] = values[held]
        moved = m.zeros(part.graph.n, bool)
        moved[mine[held]] = True
        dirty = m.zeros(size, bool)
        dirty[rows[moved[ids]]] = True


def device_neighbours(part):
    """A GPU part's own vertices' neighbours as :func:`neighbour_lists` gives them with
    ``multi=True``: the distinct out-neighbours, then (a directed part) the distinct
    in-neighbours, never the vertex itself.

    Parameters
    ----------
    part : DevicePart

    Returns
    -------
    rows, ids : arrays of int32
        Per neighbour, its row (an own vertex) and its id, in the part's numbering.
    """
    m = xp(part.graph.offsets)
    g, size, n = part.graph, part.size, part.graph.n
    rows, ids = [], []
    for offsets, named in [(g.offsets, g.indices)] + ([g.csc()[:2]] if part.directed else []):
        arcs = int(offsets[size])
        r = entry_rows(offsets[: size + 1], arcs)
        v = named[:arcs].astype(m.int64)
        key = m.unique(r[r != v] * n + v[r != v])  # each (row, neighbour) once
        rows.append(key // n)
        ids.append(key % n)
    return m.concatenate(rows).astype(m.int32), m.concatenate(ids).astype(m.int32)


def _h_index(m, rows, values, cap, size):
    """Per row 0 .. size - 1, the h-index of its `values` (one per entry of `rows`) capped at
    ``cap[row]``: sorted by row, then highest first, the values greater than their place."""
    if not rows.size:
        return m.zeros(size, m.int64)
    v = m.minimum(values, cap[rows]).astype(m.int64)
    top = int(v.max()) + 1
    order = m.argsort(rows.astype(m.int64) * top + (top - 1 - v))
    r, v = rows[order], v[order]
    place = m.arange(r.size) - m.searchsorted(r, r)
    return m.bincount(r[v > place], minlength=size)


def triangles(G, *, per_vertex=True, parts=2, cluster=None, gpus=None, gather=True):
    """Triangles through each vertex and in the whole graph over `parts` parts, as
    :func:`gravel.triangles` counts them (a directed graph symmetrised; self loops and parallel
    arcs form none).

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        As for :func:`gravel.distributed.bfs`.
    per_vertex : bool, default True
        Count the triangles through each vertex too (one more exchange on CPU parts).
    parts, cluster, gpus, gather
        As for :func:`gravel.distributed.bfs`. On GPUs every worker holds a replica of the
        graph and intersects the lists of its own rows' edges
        (:func:`gravel.distributed.replicated.replica_triangles`): the graph must fit in each
        GPU's memory.

    Returns
    -------
    TriangleResult
        ``triangles`` (int64, caller ids; None with ``per_vertex=False``) and ``total``.
        ``stats``: ``parts`` and the exchange's.

    Raises
    ------
    InvalidArgumentError
        As for :func:`gravel.distributed.bfs`.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.triangles : The single-process count.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False)
    >>> r = gravel.distributed.triangles(G, cluster="in-process")
    >>> r.triangles.tolist(), r.total
    ([1, 1, 1, 0], 1)
    """
    from ..algorithms.triangles import TriangleResult

    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, gpus, gather, triangles_program, bool(per_vertex)) as run:
        dg, out, stats, t = run
        total = out.each(lambda r: r[1])[0]
        per = to_caller(dg, out.array(0, np.int64)) if per_vertex else None
    device = _device(dg)
    how = "segmented intersection on replicas" if device == "cuda" else "forward"
    return TriangleResult(
        "triangles",
        device,
        t,
        1,
        f"distributed {how}, {dg.nparts} parts",
        _stats(dg, stats),
        triangles=per,
        total=int(total),
    )


def core_number(G, *, parts=2, cluster=None, gpus=None, gather=True):
    """Core number of every vertex over `parts` parts, as :func:`gravel.core_number` gives it
    (on a directed graph the degree is in + out, reciprocal arcs counting twice).

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        As for :func:`gravel.distributed.bfs`.
    parts, cluster, gpus, gather
        As for :func:`gravel.distributed.bfs`.

    Returns
    -------
    CoreResult
        ``core`` (int32, caller ids); ``iterations``: the rounds of the h-index iteration.
        ``stats``: ``parts`` and the exchange's.

    Raises
    ------
    InvalidArgumentError
        As for :func:`gravel.distributed.bfs`.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.core_number : The single-process peeling.

    Notes
    -----
    The rounds are at most the longest chain of vertices whose estimates wait on each other
    (a path's core number travels one vertex a round); each exchanges only changed estimates.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False)
    >>> gravel.distributed.core_number(G, cluster="in-process").core.tolist()
    [2, 2, 2, 1]
    """
    from ..algorithms.kcore import CoreResult

    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, gpus, gather, core_program) as (dg, out, stats, t):
        rounds = out.each(lambda r: r[1])[0]
        core = to_caller(dg, out.array(0, np.int32))
    return CoreResult(
        "core_number",
        _device(dg),
        t,
        rounds,
        f"distributed h-index iteration, {dg.nparts} parts",
        _stats(dg, stats),
        core=core,
    )
