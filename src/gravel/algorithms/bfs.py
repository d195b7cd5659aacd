"""Breadth-first search: depth of every vertex from a source, and a BFS parent tree.

Direction-optimizing (Beamer, Asanovic, Patterson, SC'12; the GAP Benchmark Suite's bfs.cc):
top-down steps push from a frontier queue; once the frontier's out-edges outnumber the unexplored
edges / alpha, bottom-up steps let every unvisited vertex search its in-edges for a frontier parent,
stopping at the first; when the frontier shrinks below n / beta, top-down resumes."""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import bfs as _k
from ..backends.cpu import chunks
from ..dispatch import check_source, choose_device, ids_to_caller, takes_graph, to_caller
from ..results import Result, Timer

ALPHA, BETA = 15, 18
#: bottom-up steps on the GPU skip the vertices without in-edges when they are at least this share
SKIP_SOURCELESS = 0.1
#: on the CPU, top-down levels of fewer vertices run on one thread (docs/tuning.md)
SERIAL_LIMIT = 256
#: one call of the CPU's top-down levels stops past so many arcs: Ctrl-C waits for it
LEVELS_ARCS = 1 << 24


@dataclass
class BFSResult(Result):
    """A BFS's depths and parents, as :func:`bfs` returns them.

    Attributes
    ----------
    depth : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: hops from the source, -1 where unreachable (a
        CuPy array from the GPU path).
    parent : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: the vertex it was reached from; the source is its
        own parent, -1 where unreachable.
    stats : dict
        ``"bottom_up_steps"``: the pull steps run; on the GPU also ``"multi_step_launches"``;
        ``"level_times"``: the loop's progress, a list of (level, seconds) pairs, one wherever the
        loop already waits for a step to finish (a step may cover several levels: a run of
        top-down levels on the CPU, a multi-step launch on the GPU): every vertex up to `level` hops
        away was found `seconds` into the run (the host's clock from the loop's start, compiling
        left out, :meth:`gravel.results.Timer.lap`; a few hundred nanoseconds a step). The first
        pair is (0, 0.0).

    See Also
    --------
    level_sizes : the vertices of each level, the frontier it expanded.
    """

    vertex_arrays = ("depth", "parent")
    id_arrays = ("parent",)

    depth: np.ndarray = None
    parent: np.ndarray = None

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries but ``level_times`` (a list), with
            ``reached``: the vertices of depth 0 or more, and ``max_depth``: the largest depth
            (-1 on a graph without vertices).
        """
        depth = host(self.depth)
        out = super().summary() | {
            "reached": int((depth >= 0).sum()),
            "max_depth": int(depth.max(initial=-1)),
        }
        out.pop("level_times", None)  # a list, not a fact of the summary
        return out

    def level_sizes(self):
        """The number of vertices at each depth 0, 1, ..., max_depth: level l's frontier.

        Returns
        -------
        numpy.ndarray
            int64 counts on the host, entry l for depth l; empty on a graph without vertices.

        Examples
        --------
        >>> import gravel
        >>> r = gravel.bfs(gravel.generate.grid(2, 3), 0, device="cpu")
        >>> r.level_sizes().tolist()
        [1, 2, 2, 1]
        """
        depth = host(self.depth)
        return np.bincount(depth[depth >= 0], minlength=1 if depth.size else 0)


@takes_graph
def bfs(G, source, *, device="auto"):
    """Breadth-first search from `source`: the depth of every vertex and a BFS parent tree.

    Direction-optimizing: top-down steps push from the frontier; once the frontier's out-edges
    outnumber the unexplored edges / ALPHA (15), bottom-up steps let every unvisited vertex look
    for a parent among its in-neighbours in the frontier.

    Parameters
    ----------
    G : Graph
        Directed or undirected; weights are ignored (hop counts).
    source : int or label
        Start vertex: an id, or on a graph with labels a label that is not an integer
        (``bfs(G, "a")``); an integer is always an id
        (:func:`gravel.dispatch.caller_id`).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    BFSResult
        ``depth[v]``: hops from `source` (-1 if unreachable); ``parent[v]``: the vertex v was
        reached from (the source is its own parent, -1 if unreachable); both int32 over the
        caller's ids, NumPy arrays on the CPU and CuPy arrays on the GPU. Any valid BFS tree may be
        returned. ``stats["level_times"]``: (level, seconds) at each step's end and
        ``level_sizes()``: the vertices per level (:class:`BFSResult`; plotted by
        :func:`gravel.plots.traversal_levels`).

    Raises
    ------
    VertexNotFoundError
        `source` is neither a vertex id nor a label of G.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.sssp : weighted distances from a source.
    scipy.sparse.csgraph.breadth_first_order

    Notes
    -----
    After Beamer, Asanovic and Patterson (SC'12), as in the GAP Benchmark Suite's bfs.cc; on the
    CPU, top-down steps resume once the frontier shrinks below n / BETA (18), while the GPU keeps
    pulling to the end. Graphs of up to SMALL_ARCS arcs run top-down in one serial kernel
    (docs/tuning.md). Where the GPU reads the lists over the bus (placement "host" or "tiered")
    every step pushes, as in EMOGI.

    Examples
    --------
    >>> import gravel
    >>> r = gravel.bfs(gravel.generate.grid(2, 3), 0, device="cpu")
    >>> r.depth.tolist()
    [0, 1, 2, 1, 2, 3]
    >>> r.parent.tolist()
    [0, 0, 1, 0, 1, 2]
    """
    s = check_source(G, source)
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "bfs")](G, s)
    res.depth, res.parent = to_caller(G, res.depth), ids_to_caller(G, to_caller(G, res.parent))
    return res


def _bfs_cpu(G, source):
    from ..backends.cpu.fill import full as filled
    from ..backends.cpu.serial import is_small

    n = G.n
    small = is_small(G.nnz)
    full = np.full if small else filled  # no parallel kernel to compile for a small graph
    parent, depth = full(n, -1, np.int32), full(n, -1, np.int32)
    parent[source], depth[source] = source, 0
    if small:
        return _bfs_cpu_serial(G, source, parent, depth)
    in_off, in_idx, _ = G.csc()
    with Timer() as t:
        level, pulls, marks = search(G.offsets, G.indices, in_off, in_idx, source, parent, depth, t)
    return BFSResult(
        "bfs",
        "cpu",
        t.seconds,
        level,
        "direction-optimizing",
        {"bottom_up_steps": pulls, "level_times": marks},
        depth=depth,
        parent=parent,
    )


def search(offsets, indices, in_offsets, in_indices, source, parent, depth, timer=None):
    """The CPU's direction-optimizing BFS from `source`, claiming each vertex it reaches whose
    ``parent`` is -1 (one whose parent is set on entry is never entered: a subgraph's search).

    Parameters
    ----------
    offsets, indices, in_offsets, in_indices : numpy.ndarray
        The out-arcs' CSR and the in-arcs' (its transpose).
    source : int
        Where it starts; ``parent[source]`` and ``depth[source]`` set by the caller.
    parent, depth : numpy.ndarray of int32
        Written for each vertex claimed: the vertex it was reached from, and its level.
    timer : gravel.results.Timer, optional

    Returns
    -------
    tuple
        (the last level, the bottom-up steps, the (level, seconds) marks of `timer`'s laps).
    """
    import numba  # a CPU run: Numba is loaded

    n = parent.shape[0]
    frontier = np.array([source], np.int32)
    edges_to_check = indices.shape[0]
    scout = int(offsets[source + 1] - offsets[source])
    level, pulls = int(depth[source]), 0
    marks = [(level, 0.0)]  # (level done, seconds): stats["level_times"]
    lap = timer.lap if timer else lambda: 0.0
    # one thread runs every level serially: the same order of work, without atomics
    serial_below = SERIAL_LIMIT if numba.get_num_threads() > 1 else n + 1
    while frontier.size:
        if scout * ALPHA <= edges_to_check:
            frontier, level, edges_to_check, scout = _k.top_down_levels(
                offsets, indices, frontier, parent, depth, level, edges_to_check,
                ALPHA, serial_below, LEVELS_ARCS, chunks(),
            )  # fmt: skip
            marks.append((level, lap()))
            continue
        level += 1
        front = np.empty(_k.bitmap_words(n), np.uint64)  # cleared by queue_to_bitmap
        nxt = np.empty_like(front)
        _k.queue_to_bitmap(frontier, front)
        awake, old = frontier.size, 0
        while True:
            old = awake
            awake = _k.bottom_up_step(in_offsets, in_indices, front, nxt, parent, depth, level)
            marks.append((level, lap()))
            pulls += 1
            front, nxt = nxt, front
            if awake == 0 or (awake < old and awake <= n / BETA):
                break
            level += 1
        frontier = _k.bitmap_to_queue(front, chunks())
        scout = _k.degree_sum(offsets, frontier)
    return level, pulls, marks


def _bfs_cpu_serial(G, source, parent, depth):
    """Top-down levels in one serial kernel, on graphs of up to SMALL_ARCS arcs: it finishes before
    the direction-optimizing kernels, which are parallel, would have compiled (docs/tuning.md)."""
    with Timer() as t:
        level = _k.top_down_serial(G.offsets, G.indices, source, parent, depth)
        marks = [(0, 0.0), (level, t.lap())]  # one step: every level
    return BFSResult(
        "bfs",
        "cpu",
        t.seconds,
        level,
        "top-down, serial",
        {"bottom_up_steps": 0, "level_times": marks},
        depth=depth,
        parent=parent,
    )


def _bfs_cuda(G, source):
    """The direction-optimizing loop on the GPU operators: push steps are an advance whose functor
    claims parent[dst] by compare-and-swap (so each vertex is emitted once: no filter, no output
    scan); once the frontier's edges exceed the unexplored ones / alpha, pull steps let every
    unvisited vertex scan its in-edges for a parent in the frontier bitmap, with early exit, and
    emit the next bitmap, many steps in one cooperative launch
    (:func:`gravel.operators.advance_pull_steps`; it never switches back, which never paid on the
    GPU: docs/tuning.md, "BFS's direction switch"); vertices without in-edges are left out of them
    (_pull_candidates). On graphs
    without hubs, runs of frontiers too small to ever pass the switch test go to one multi-step
    launch (the thousands of thin levels of road graphs and meshes;
    :func:`gravel.operators.thin_frontier_limit`). The switch tests the frontier's degrees only
    where its size, gated by the degree spread (max / mean: 1 on a grid, thousands on kron), could
    pass: a test every level costs a sync per level (docs/tuning.md, "BFS's direction switch").

    Where the lists are read over the bus (placement "host" or "tiered"), every step is a push
    advance, as in EMOGI: its line-aligned reads fetch whole lines of the frontier's lists, where
    pull steps and fused thin steps would read lines for a few ids each. Its frontier is sorted
    first: lists read in address order share lines and pages, 2.6-5x faster on kron and urand
    (docs/tuning.md, "Frontiers over the bus")."""
    import cupy

    from ..frontier import Frontier, FrontierQueue
    from ..operators import (
        THIN_BLOCKS_PER_SM,
        advance,
        advance_pull_steps,
        advance_steps,
        thin_frontier_limit,
    )

    dg = G.to("cuda")
    n = G.n
    parent = cupy.full(n, -1, cupy.int32)
    depth = cupy.full(n, -1, cupy.int32)
    parent[source], depth[source] = source, 0
    # the source is checked (bfs's check_source): from_ids's range check would read the device twice
    frontier = Frontier(n, ids=cupy.full(1, source, cupy.int32), length=1)
    n_unvisited = n - 1
    arcs = int(G.out_degree[source])  # the frontier's out-arcs where known: spares advance a sync
    level, pulls, fused, pulling = 0, 0, 0, False
    avg = G.nnz / max(n, 1)
    max_degree = G.max_out_degree
    over_bus = dg.placement in ("host", "tiered")
    thin_limit = 0 if over_bus else thin_frontier_limit(dg)
    # a frontier can pass the edge test only if its vertices' degrees could make up for its size
    gate = max(1.0, max_degree / max(avg, 1e-9))
    claim = "atomicCAS(&parent[dst], -1, src) == -1 && (depth[dst] = level + step, true)"
    if over_bus:  # every step pushes: a plain read first spares the atomics on visited vertices
        claim = "parent[dst] < 0 && " + claim
    candidates = _pull_candidates(dg)

    def pull(front, lv):
        """Bottom-up steps from level lv on, in one launch: the unvisited candidates find a parent
        in the frontier. Returns (each step's count, the last step's output)."""
        return advance_pull_steps(
            dg,
            front,
            candidates,
            "(parent[dst] = src, depth[dst] = level + step, true)",
            where="depth[v] < 0",
            params={"parent": parent, "depth": depth, "level": np.int32(lv)},
        )

    marks = [(0, 0.0)]  # (level done, seconds) at the syncs the loop makes anyway (its lengths)
    with Timer("cuda") as t:
        while len(frontier):
            if level:
                marks.append((level, t.lap()))
            level += 1
            lv = np.int32(level)
            thin = min(thin_limit, int(n_unvisited / (ALPHA * gate)))
            if len(frontier) <= thin:
                queue = FrontierQueue(n, len(frontier) + n_unvisited, frontier)
                steps = advance_steps(
                    dg,
                    queue,
                    claim,
                    params={"parent": parent, "depth": depth, "level": lv},
                    limit=thin,
                    blocks_per_sm=THIN_BLOCKS_PER_SM,
                )
                level += steps - 1
                n_unvisited -= queue.bounds[-1] - queue.bounds[1]
                frontier, arcs = queue.last, None
                fused += 1
                continue
            if not over_bus:
                # GAP's rule on edges: pull once the frontier's out-edges exceed the unexplored
                # edges / alpha
                limit = n_unvisited * avg / ALPHA
                pulling, arcs = _pull_pays(dg, frontier, arcs, limit, max_degree)
            if pulling:
                # every later level pulls too, many in a launch: a launch ends after a step that
                # finds no vertex (the traversal's end) or after its most steps (then another)
                while True:
                    sizes, frontier = pull(frontier, level)
                    pulls += len(sizes)
                    level += len(sizes) - 1  # the last step's level
                    if not sizes[-1]:
                        break
                    marks.append((level, t.lap()))
                    level += 1
                break
            else:
                if over_bus:  # in address order: sharing lines and pages
                    frontier = frontier.sorted()
                # its out-arcs read back with its length: the next test and push need no sum
                frontier = advance(
                    dg,
                    frontier,
                    claim,
                    params={"parent": parent, "depth": depth, "level": lv},
                    capacity=n_unvisited,
                    arcs=arcs,
                    count_arcs=not over_bus,
                )
            n_unvisited -= len(frontier)
            arcs = frontier.arcs
        marks.append((level, t.lap()))
    return BFSResult(
        "bfs",
        "cuda",
        t.seconds,
        level,
        f"top-down, {dg.placement} lists" if over_bus else "direction-optimizing",
        {"bottom_up_steps": pulls, "multi_step_launches": fused, "level_times": marks},
        depth=depth,
        parent=parent,
    )


def _pull_pays(dg, frontier, arcs, limit, max_degree):
    """Whether the frontier's out-arcs pass `limit` (the switch to pulls of BFS, BC and SSSP), and
    those arcs where counted. `arcs`: the count where the caller knows it; else the degree sum, a
    sync, is taken only where the frontier's size times `max_degree` (the graph's largest
    out-degree) could pass. Returns (whether they pass, the arcs or None)."""
    if arcs is None:
        if len(frontier) * max_degree <= limit:
            return False, None
        arcs = int(dg.out_degree[frontier.ids].sum())
    return arcs > limit, arcs


def _pull_candidates(dg):
    """The vertices a bottom-up step must examine: those with in-edges (no parent can be found for
    the others), or None (every vertex) where few lack them (SKIP_SOURCELESS, docs/tuning.md). Kept
    with the graph."""
    import cupy

    from ..frontier import Frontier

    def find():
        in_off = dg.csc()[0]
        has_in = cupy.flatnonzero(in_off[1:] != in_off[:-1]).astype(cupy.int32)
        few = has_in.size <= (1 - SKIP_SOURCELESS) * dg.n
        return Frontier(dg.n, ids=has_in, length=int(has_in.size)) if few else None

    return dg.cached("pull_candidates", find)


def verify_bfs(G, source, depth, parent):
    """GAP-style check of a BFS result: depths match a serial BFS, and every reached non-source
    vertex's parent is an in-neighbour one level closer.

    Parameters
    ----------
    G : Graph
        The graph searched.
    source : int
        The source's id (the caller's, as the result's).
    depth : numpy.ndarray
        The result's depths, on the host (-1 where unreachable), over the caller's ids.
    parent : numpy.ndarray
        The result's parents, on the host (the source its own, -1 where unreachable), over the
        caller's ids.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the result is right.

    Notes
    -----
    The serial BFS is SciPy's ``breadth_first_order`` on G's stored ids; on a reordered graph
    (``G.order`` set) the result is moved to the stored ids first.
    """
    from scipy.sparse.csgraph import breadth_first_order

    if G.order is not None:  # the caller's vertex i is stored as order[i]
        source, depth, parent = _to_stored(G.order, source, depth, parent)
    problems = []
    order, pred = breadth_first_order(G.to_scipy(), source, directed=True, return_predecessors=True)
    expect = _tree_depths(order, pred, G.n)
    if not np.array_equal(expect, depth):
        problems.append(f"depth differs at {int(np.flatnonzero(expect != depth)[0])}")
    reached = np.flatnonzero(depth > 0)
    p = parent[reached]
    if np.any(p < 0) or np.any(depth[p] != depth[reached] - 1):
        problems.append("a parent is not one level closer")
    elif not np.all(G.has_arcs(p, reached)):
        problems.append("a parent is not an in-neighbour")
    if parent[source] != source:
        problems.append("the source is not its own parent")
    return problems


def _tree_depths(order, pred, n):
    """Each vertex's depth in the search tree (`order`: the reached vertices, the root first;
    `pred`: their parents), -1 where unreached, by pointer jumping: each round adds the hops to
    a vertex's ancestor and moves the ancestor twice as far up, log2(depth) NumPy rounds."""
    up, hops = np.arange(n), np.zeros(n, np.int64)
    up[order[1:]], hops[order[1:]] = pred[order[1:]], 1
    while True:
        above = up[up]
        if np.array_equal(above, up):
            break
        hops += hops[up]
        up = above
    depth = np.full(n, -1, np.int64)
    depth[order] = hops[order]
    return depth


def _to_stored(order, source, depth, parent):
    """A BFS result over the caller's ids moved to a reordered graph's stored ids."""
    stored_depth = np.empty_like(depth)
    stored_depth[order] = depth
    stored_parent = np.empty_like(parent)
    stored_parent[order] = np.where(parent >= 0, order[np.maximum(parent, 0)], parent)
    return int(order[source]), stored_depth, stored_parent


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _bfs_cpu, "cuda": _bfs_cuda}
