"""Triangle counts and core numbers over a 1-D partitioned graph (CPU parts).

Both read each local vertex's undirected neighbours (:func:`neighbour_lists`): its out-list and,
on a directed graph, its in-list, without self loops.

- Triangles: every edge is oriented from the lower to the higher (degree, id) rank, the degrees
  all-gathered once. A part finds each triangle at its lowest-ranked vertex u: for each oriented
  edge u -> v, the wedges u -> v -> w of v's oriented list whose u -> w is also one of u's. The
  oriented lists of the remote v come from their owners in one request and one reply
  (alltoall); per-vertex counts go to their vertices' owners in a third.
- Core numbers: the h-index iteration of Montresor, De Pellegrini and Miorandi (2013). Every
  estimate starts at the degree; each round a vertex takes the h-index of its neighbours'
  estimates (at most its own), and the parts all-gather only the estimates that changed; a round
  recomputes only the vertices with a neighbour that changed. The fixpoint, reached when a round
  changes none, is the core numbers.
"""

import numpy as np

from ..dispatch import to_caller
from .algorithms import _check_gather, _run, _stats
from .exchange import allgather, allreduce, alltoall
from .programs import _by_owner, rows_of
from .replicated import cpu_only

#: wedges a part checks at once: bounds its temporaries (about 40 bytes a wedge)
CHUNK_WEDGES = 1 << 22


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
    ids : numpy.ndarray of int64
        Global ids, sorted within each row; never the row's own vertex.
    """
    n, size = part.n, part.size

    def keys(offsets, ids):  # distinct local row * n + neighbour, self loops dropped
        rows = rows_of(offsets).astype(np.int64)
        k = np.unique(rows * n + ids)
        return k[k % n != k // n + part.lo]

    k = keys(part.out_offsets, part.out_targets)
    if part.directed:
        inward = keys(part.in_offsets, part.in_sources)
        k = np.sort(np.concatenate([k, inward])) if multi else np.union1d(k, inward)
    offsets = np.zeros(size + 1, np.int64)
    np.cumsum(np.bincount(k // n, minlength=size), out=offsets[1:])
    return offsets, k % n


def _rows(offsets, at):
    """The rows `at` of a CSR: their lengths, and the positions of their entries, concatenated."""
    lengths = offsets[at + 1] - offsets[at]
    ends = np.cumsum(lengths)
    return lengths, np.repeat(offsets[at] - ends + lengths, lengths) + np.arange(ends[-1:].sum())


def _member(sorted_keys, keys):
    at = np.minimum(np.searchsorted(sorted_keys, keys), max(sorted_keys.size - 1, 0))
    return sorted_keys[at] == keys if sorted_keys.size else np.zeros(keys.size, bool)


def triangles_program(part, per_vertex):
    """Count the triangles found at this part's vertices (see the module's notes).

    Parameters
    ----------
    part : Part
    per_vertex : bool
        Also count the triangles through each vertex.

    Yields
    ------
    Collective
        An allgather of the degrees, two alltoalls (the oriented lists asked for and sent), with
        `per_vertex` a third (the counts to their owners), and an allreduce of the total.

    Returns
    -------
    triangles : numpy.ndarray of int64
        Per local vertex (empty without `per_vertex`).
    total : int
        The triangles of the whole graph.
    """
    n = part.n
    offsets, ids = neighbour_lists(part)
    rank = yield allgather(np.diff(offsets))
    u = rows_of(offsets).astype(np.int64) + part.lo
    keep = (rank[u] < rank[ids]) | ((rank[u] == rank[ids]) & (u < ids))
    u, v = u[keep], ids[keep]  # the oriented edges out of this part, sorted
    out = np.zeros(part.size + 1, np.int64)
    np.cumsum(np.bincount(u - part.lo, minlength=part.size), out=out[1:])
    want = np.unique(v)
    asked = yield alltoall([s[0] for s in _by_owner(part, want)])
    replies = []
    for ask in asked:
        lengths, at = _rows(out, ask - part.lo)
        replies.append((lengths, v[at]))
    got = yield alltoall(replies)
    fetched = np.zeros(want.size + 1, np.int64)
    np.cumsum(np.concatenate([g[0] for g in got]), out=fetched[1:])
    lists = np.concatenate([g[1] for g in got])
    mine, found, total = u * n + v, [], 0
    at = np.searchsorted(want, v)
    wedges = np.cumsum(fetched[at + 1] - fetched[at])
    cuts = np.searchsorted(wedges, np.arange(CHUNK_WEDGES, wedges[-1:].sum(), CHUNK_WEDGES))
    for arcs in np.split(np.arange(v.size), cuts):
        lengths, where = _rows(fetched, at[arcs])
        uu, w = np.repeat(u[arcs], lengths), lists[where]
        hit = _member(mine, uu * n + w)
        total += int(hit.sum())
        if per_vertex:
            found.append(np.concatenate([uu[hit], np.repeat(v[arcs], lengths)[hit], w[hit]]))
    total = int((yield allreduce(np.int64(total), "sum")))
    if not per_vertex:
        return np.zeros(0, np.int64), total
    ends = np.concatenate(found) if found else np.zeros(0, np.int64)
    vertex, count = np.unique(ends, return_counts=True)
    received = yield alltoall(_by_owner(part, vertex, count.astype(np.int64)))
    counts = np.zeros(part.size, np.int64)
    for ids_in, c in received:
        np.add.at(counts, ids_in - part.lo, c)
    return counts, total


def _h_index(offsets, rows, values):
    """Per row, the largest h with at least h of its values >= h."""
    order = np.lexsort((-values, rows))
    position = np.arange(values.size) - offsets[rows]
    return np.bincount(rows[values[order] > position], minlength=offsets.size - 1)


def core_program(part):
    """Core numbers by the h-index iteration (see the module's notes).

    Parameters
    ----------
    part : Part

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
    offsets, ids = neighbour_lists(part, multi=True)
    estimate = np.diff(offsets)
    everyone = (yield allgather(estimate)).copy()
    rows, rounds = rows_of(offsets), 0
    dirty = np.arange(part.size)  # the rows with a neighbour whose estimate changed
    while True:
        lengths, where = _rows(offsets, dirty)
        sub = np.zeros(dirty.size + 1, np.int64)
        np.cumsum(lengths, out=sub[1:])
        h = _h_index(sub, np.repeat(np.arange(dirty.size), lengths), everyone[ids[where]])
        lower = h < estimate[dirty]
        changed = dirty[lower]
        estimate[changed], rounds = h[lower], rounds + 1
        at, values = yield allgather((changed + part.lo, estimate[changed]))
        if not at.size:
            return estimate.astype(np.int32), rounds
        everyone[at] = values
        moved = np.zeros(part.n, bool)
        moved[at] = True
        dirty = np.unique(rows[moved[ids]])


def triangles(G, *, per_vertex=True, parts=2, cluster=None, gather=True):
    """Triangles through each vertex and in the whole graph over `parts` parts, as
    :func:`gravel.triangles` counts them (a directed graph symmetrised; self loops and parallel
    arcs form none).

    Parameters
    ----------
    G : Graph, PartitionedGraph or DistributedGraph
        As for :func:`gravel.distributed.bfs` (CPU parts only).
    per_vertex : bool, default True
        Count the triangles through each vertex too (one more exchange).
    parts, cluster, gather
        As for :func:`gravel.distributed.bfs`.

    Returns
    -------
    TriangleResult
        ``triangles`` (int64, caller ids; None with ``per_vertex=False``) and ``total``.
        ``stats``: ``parts`` and the exchange's.

    Raises
    ------
    InvalidArgumentError
        A GPU cluster or graph; else as for :func:`gravel.distributed.bfs`.
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

    cpu_only(G, cluster, "triangles")
    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, None, gather, triangles_program, bool(per_vertex)) as run:
        dg, out, stats, t = run
        total = out.each(lambda r: r[1])[0]
        per = to_caller(dg, out.array(0, np.int64)) if per_vertex else None
    return TriangleResult(
        "triangles",
        "cpu",
        t,
        1,
        f"distributed forward, {dg.nparts} parts",
        _stats(dg, stats),
        triangles=per,
        total=int(total),
    )


def core_number(G, *, parts=2, cluster=None, gather=True):
    """Core number of every vertex over `parts` parts, as :func:`gravel.core_number` gives it
    (on a directed graph the degree is in + out, reciprocal arcs counting twice).

    Parameters
    ----------
    G : Graph, PartitionedGraph or DistributedGraph
        As for :func:`gravel.distributed.bfs` (CPU parts only).
    parts, cluster, gather
        As for :func:`gravel.distributed.bfs`.

    Returns
    -------
    CoreResult
        ``core`` (int32, caller ids); ``iterations``: the rounds of the h-index iteration.
        ``stats``: ``parts`` and the exchange's.

    Raises
    ------
    InvalidArgumentError
        A GPU cluster or graph; else as for :func:`gravel.distributed.bfs`.
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

    cpu_only(G, cluster, "core_number")
    _check_gather(G, cluster, gather)
    with _run(G, parts, cluster, None, gather, core_program) as (dg, out, stats, t):
        rounds = out.each(lambda r: r[1])[0]
        core = to_caller(dg, out.array(0, np.int32))
    return CoreResult(
        "core_number",
        "cpu",
        t,
        rounds,
        f"distributed h-index iteration, {dg.nparts} parts",
        _stats(dg, stats),
        core=core,
    )
