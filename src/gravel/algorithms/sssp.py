"""Single-source shortest paths on non-negative weights.

Delta-stepping (Meyer and Sanders 2003), as in the GAP Benchmark Suite's sssp.cc: vertices are kept
in buckets of width delta by tentative distance; the lowest non-empty bucket is relaxed in parallel
until it stays empty, then the next one. Unweighted graphs use weight 1 on every edge.

On the CPU the predecessor of v is recorded as a relaxation lowers dist[v], at no measurable cost
(backends/cpu/sssp.py says why that tree is tight and acyclic). On the GPU, where concurrent atomic
minima leave no such record, predecessors come from the final distances: a BFS from the source over
the tight arcs (u -> v with dist[u] + w == dist[v], in the arithmetic of the relaxations) claims
each vertex once, so the tree has no cycle even where zero-weight cycles tie."""

from dataclasses import dataclass

import numpy as np

from ..arguments import is_integer, is_real
from ..arrays import host
from ..backends.cpu import chunks
from ..backends.cpu import sssp as _k
from ..dispatch import caller_id, check_source, choose_device, ids_to_caller, takes_graph, to_caller
from ..errors import InvalidWeightError, VertexNotFoundError
from ..results import Result, Timer
from ..transform import check_weights

#: most buckets a delta may ask for (largest weight / delta): a ring of them is allocated
MAX_BUCKETS = 2**20
#: on the GPU, a step whose output holds more than PULL_SHARE of the vertices (the first width
#: tested; a wide output of short lists doubles it) and whose lists hold more than PULL_ARCS of the
#: arcs hands its bucket to pull sweeps over every in-list, which run until one improves at most
#: PUSH_SHARE of the vertices below the split (docs/tuning.md)
PULL_SHARE, PULL_ARCS, PUSH_SHARE = 1 / 64, 1 / 4, 1 / 4


@dataclass
class SSSPResult(Result):
    distance: np.ndarray = None

    vertex_arrays = ("distance", "predecessor")
    id_arrays = ("predecessor",)
    predecessor: np.ndarray = None
    source: int = None

    def path_to(self, target):
        """The vertices of a shortest path from the source to `target`, source first.

        Parameters
        ----------
        target : int
            A vertex (caller id).

        Returns
        -------
        list of int
            ``[source, ..., target]``; ``[source]`` if `target` is the source; ``[]`` if `target`
            is unreachable.

        Raises
        ------
        VertexNotFoundError
            `target` is not a vertex of the graph.

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
        >>> gravel.sssp(G, 0, device="cpu").path_to(2)
        [0, 1, 2]
        """
        pred = host(self.predecessor)
        if not is_integer(target):
            raise VertexNotFoundError(f"target must be an integer vertex id, not {target!r}")
        if not 0 <= target < pred.size:
            raise VertexNotFoundError(
                f"target vertex {target} is not in the graph (ids 0..{pred.size - 1})"
            )
        path = [int(target)]
        if target != self.source and pred[target] < 0:
            return []
        while path[-1] != self.source and len(path) <= pred.size:
            path.append(int(pred[path[-1]]))
        return path[::-1]

    def summary(self):
        d = host(self.distance)
        finite = np.isfinite(d)
        return super().summary() | {
            "reached": int(finite.sum()),
            "max_distance": float(d[finite].max(initial=0)),
        }


@takes_graph
def sssp(G, source, *, delta=None, device="auto"):
    """Shortest-path distances and a shortest-path tree from `source`.

    Parameters
    ----------
    G : Graph
        Weights must be non-negative and finite (zero is allowed); an unweighted graph has unit
        weights. Parallel arcs: the lightest counts.
    source : int or label
        Start vertex: an id, or on a graph with labels a label that is not an integer
        (``bfs(G, "a")``); an integer is always an id
        (:func:`gravel.dispatch.caller_id`). ``result.source`` is the id.
    delta : float, optional
        Bucket width, positive and finite, at least the largest weight / MAX_BUCKETS (2**20).
        Default: the mean edge weight times max(1/32, 1 / average degree) on the CPU and max(8,
        256 / average degree) on the GPU (24 / average degree on random graphs of average degree
        24 or more: no vertex of more than 8 times the average degree, few closed wedges), raised
        to that least width where the weights span a wider range; wider buckets mean fewer phases
        but more re-relaxations.
    device : {"auto", "cpu", "cuda"}
        On the GPU, wide frontiers are pulled over every in-list; on large graphs whose distances
        stage (as PageRank's ranks: :func:`gravel.operators.plan_sweep`), the first call that
        pulls builds the staged layout of the in-arcs and their weights (in that call's time),
        kept with the graph for later calls.

    Returns
    -------
    SSSPResult
        ``distance[v]`` (float64 on the CPU, float32 on the GPU; ``inf`` where unreachable) and
        ``predecessor[v]`` (int32): the vertex before v on a shortest path, -1 for the source and
        unreachable vertices, as SciPy's ``return_predecessors`` (whose sentinel is -9999). Both
        are indexed by caller ids; :meth:`SSSPResult.path_to` walks the tree back.

    Raises
    ------
    InvalidWeightError
        A weight is negative, NaN or infinite (the message names the arc; see
        :func:`gravel.check_weights`), or `delta` is not a usable width; on the GPU, a path is
        longer than float32's range (about 3.4e38): use ``device="cpu"``.
    VertexNotFoundError
        `source` is not a vertex of G.

    See Also
    --------
    scipy.sparse.csgraph.dijkstra, networkx.single_source_dijkstra

    Notes
    -----
    Delta-stepping does O(m + n) work per phase and one phase per non-empty bucket (far fewer on
    graphs with wide weight ranges); on the GPU the predecessor pass is one O(n + m) BFS. Extra
    memory on the CPU: 35 bytes a vertex (20 more while buckets are compacted), 32 bytes per arc
    of a batch (BATCH_ARCS; 24 with whole weights), 56 per bucket (largest weight / delta buckets)
    and, in parallel, 8 per bucket and chunk of a batch (4 chunks a thread) for its tally, and at
    most 32 MiB more for the runs its chunks are cut into. With several shortest paths to a
    vertex, any one may be returned.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
    >>> r = gravel.sssp(G, 0, device="cpu")
    >>> r.distance.tolist()
    [0.0, 1.0, 2.0]
    >>> r.predecessor.tolist()
    [-1, 0, 1]
    """
    source = caller_id(G, source)  # a label names its vertex
    s = check_source(G, source)
    check_weights(G, name="sssp")
    # unit weights as a zero-stride view: no array of m ones
    weights = G.weights if G.weighted else np.broadcast_to(np.float32(1), G.nnz)
    dev = choose_device(device, IMPLEMENTATIONS, "sssp")
    heaviest = G.weight_stats[1]
    if delta is None:
        delta = max(default_delta(G, dev), heaviest / MAX_BUCKETS)
    else:
        check_delta(delta, heaviest)
    res = IMPLEMENTATIONS[dev](G, s, weights, float(delta))
    res.distance = to_caller(G, res.distance)
    res.predecessor = to_caller(G, ids_to_caller(G, res.predecessor))
    res.source = int(source)
    return res


def check_delta(delta, heaviest):
    """Refuse a bucket width that is not a positive finite number, or so narrow that the ring of
    buckets (largest weight / delta of them) would pass MAX_BUCKETS.

    Parameters
    ----------
    delta : float
        The bucket width asked for.
    heaviest : float
        The graph's largest weight.

    Raises
    ------
    InvalidWeightError
        Naming `delta`, and the smallest width that would do where it is too narrow.
    """
    if not is_real(delta):
        raise InvalidWeightError(f"delta must be a number, not {delta!r}")
    if not (np.isfinite(delta) and delta > 0):
        raise InvalidWeightError(f"delta must be positive and finite, not {delta}")
    if heaviest / delta > MAX_BUCKETS:
        raise InvalidWeightError(
            f"delta={delta} is too narrow: the largest weight {heaviest:g} would span "
            f"{heaviest / delta:.3g} buckets (at most {MAX_BUCKETS}); use delta >= "
            f"{heaviest / MAX_BUCKETS:.3g}, or leave it out"
        )


#: a graph whose largest out-degree passes this many times its average degree has hubs
HUB_RATIO = 8

#: average degree from which the GPU's buckets narrow on graphs without hubs or local structure
DENSE_DEGREE = 24

#: a graph with fewer closed wedges than this share has no local structure (urand; rgg ~0.6)
LOCAL_CLUSTERING = 0.1

#: wedges drawn to estimate that share
WEDGE_SAMPLES = 128


def default_delta(G, device="cpu"):
    """Bucket width from the mean weight and the average degree. The GPU's is wider: a relaxation
    step there costs little next to each bucket's host round trips. Except on dense random graphs
    (no hubs, no local structure: urand): there a vertex has many in-arcs of like length, a wide
    bucket lowers it again and again, and a width of DENSE_DEGREE / degree mean weights pays. A
    geometric graph as dense (rgg) advances as a wavefront, and narrow buckets only add phases
    (docs/tuning.md, default_delta)."""
    if G.nnz == 0:
        return 1.0
    mean = G.weight_stats[2] or 1.0
    degree = G.nnz / max(G.n, 1)
    if device == "cuda":
        dense = degree >= DENSE_DEGREE and G.max_out_degree <= HUB_RATIO * degree
        if dense and _closed_wedges(G) < LOCAL_CLUSTERING:
            return mean * DENSE_DEGREE / degree
        return mean * max(8.0, 256.0 / degree)
    return mean * max(1 / 32, 1.0 / degree)


def _closed_wedges(G):
    """The share of closed wedges among WEDGE_SAMPLES drawn at random (a vertex of out-degree 2
    or more and two of its out-neighbours, closed where one is an out-neighbour of the other), as
    NetworkX's approximation.average_clustering draws them: about the clustering coefficient."""
    rng = np.random.default_rng(0)
    centre = rng.integers(0, G.n, WEDGE_SAMPLES)
    degree = G.out_degree[centre].astype(np.int64)
    centre, degree = centre[degree >= 2], degree[degree >= 2]
    if not centre.size:
        return 0.0
    first = rng.integers(0, degree)
    second = (first + rng.integers(1, degree)) % degree  # another of the centre's arcs
    a = G.indices[G.offsets[centre] + first]
    b = G.indices[G.offsets[centre] + second]
    closed = G.has_arcs(a, b) | G.has_arcs(b, a)
    return int(closed.sum()) / centre.size


#: frontiers of fewer vertices and out-arcs than this run serially, many phases per call, and
#: buckets of fewer entries are taken serially (all of them on graphs of up to SMALL_ARCS arcs)
SERIAL_ARCS = 1 << 10

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
    length, or one arc past it) is exact; else float64. The sums are exact either way, so the
    distances are the same."""
    heaviest = G.weight_stats[1]
    if G.whole_weights and max(G.n, 1) * heaviest < INT_DISTANCES_BELOW:
        return np.int32
    return np.float64


def _sssp_cpu(G, source, weights, delta):
    from ..backends.cpu.fill import full as filled
    from ..backends.cpu.serial import is_small  # Numba: loaded on a CPU run

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
        predecessor=pred,
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
_RELAX = """
__device__ bool gravel_sssp_far(int* far, unsigned long long* far_len, long long far_cap, int v) {
    unsigned long long k = atomicAdd(far_len, 1ULL);
    if (k >= (unsigned long long)far_cap) return false;
    far[k] = v;
    return true;
}

__device__ bool gravel_sssp_relax(float* dist, unsigned int* stamp, int* far,
                                  unsigned long long* far_len, long long far_cap, int src, int dst,
                                  float weight, float split, unsigned int tag) {
    float d = dist[src] + weight;
    if (!(d < dist[dst])) return false;
    if (!(__int_as_float(atomicMin((int*)&dist[dst], __float_as_int(d))) > d)) return false;
    if (d >= split && gravel_sssp_far(far, far_len, far_cap, dst)) return false;
    return atomicExch(&stamp[dst], tag) != tag;
}
"""
_PULL_APPLY = (
    "if (acc < dist[v]) { dist[v] = acc; "
    "if (!(acc >= split && gravel_sssp_far(far, far_len, far_cap, v))) stamp[v] = tag; }"
)


# Predecessors on the GPU: a BFS over the tight arcs claims each vertex once. dst is reached (it has
# a finite distance) wherever src is, unless dist[src] + weight overflowed float32: that is flagged.
_TIGHT = """
__device__ bool gravel_sssp_tight(const float* dist, int* pred, int* overflow, int src, int dst,
                                  float weight) {
    float d = dist[dst];
    if (d > 3.402823466e38f) { *overflow = 1; return false; }  // infinite
    return dist[src] + weight == d && atomicCAS(&pred[dst], -1, src) == -1;
}
"""


def _sssp_cuda(G, source, weights, delta):
    """Near/far SSSP on the GPU operators (Davidson et al.; Gunrock's SSSP): relax the near pile
    with an advance whose functor does an atomic min on float distances; improved vertices below the
    split go back to the near pile, the rest to the far pile; when near empties, the split moves up
    by delta. The near pile is drained by multi-step advances (one launch for many relaxation
    rounds, instead of launches, scans and host round trips per round), and where a step leaves a
    wide frontier, by pull sweeps over every in-list (direction-optimizing, as BFS: a sweep reads
    each arc once, without atomics) until few vertices improve. Where the lists are read over the
    bus (placement "host" or "tiered"), one advance a round drains it, its frontier sorted
    (line-aligned reads in address order, as BFS's). Float32 distances."""
    import cupy

    from ..frontier import Frontier, FrontierQueue
    from ..operators import advance, advance_steps
    from ..operators import filter_frontier as keep_if
    from .bfs import _pull_pays

    dg = G.to("cuda")  # every kernel reads weight 1 where the graph has none
    n = G.n
    dist = cupy.full(n, cupy.inf, cupy.float32)
    dist[source] = 0
    stamp = cupy.zeros(n, cupy.uint32)
    far = cupy.empty(max(n, 1), cupy.int32)
    far_len = cupy.zeros(1, cupy.uint64)
    # each step emits a vertex at most once: room for n more keeps every step's output in the queue
    capacity = 3 * n + 1
    near = FrontierQueue(n, capacity, [source])
    split, phases, tag, sweeps = delta, 0, 1, 0
    wide, max_degree = max(1, int(PULL_SHARE * n)), G.max_out_degree
    relax = (
        "gravel_sssp_relax(dist, stamp, far, far_len, far_cap, src, dst, weight, split, tag + step)"
    )
    over_bus = dg.placement in ("host", "tiered")

    def relax_params(tag):
        return {
            "dist": dist,
            "stamp": stamp,
            "far": far,
            "far_len": far_len,
            "far_cap": np.int64(far.size),
            "split": _float32(split),
            "tag": np.uint32(tag),
        }

    with Timer("cuda") as t:
        while True:
            frontier = near.last
            while over_bus and len(frontier):  # a round at a time, in address order (as BFS)
                frontier = advance(
                    dg,
                    frontier.sorted(),
                    relax,
                    params=relax_params(tag),
                    capacity=n,
                    preamble=_RELAX,
                )
                phases, tag = phases + 1, tag + 1
            while not over_bus and len(near.last):
                steps = advance_steps(
                    dg,
                    near,
                    relax,
                    params=relax_params(tag),
                    limit=wide,
                    step_bound=n,
                    preamble=_RELAX,
                )
                phases, tag = phases + steps, tag + steps
                if len(near.last) > wide:
                    # its relaxations cost more than a sweep: BFS's and BC's test (a sync)
                    pulls, _ = _pull_pays(dg, near.last, None, PULL_ARCS * dg.nnz, max_degree)
                    if pulls:
                        ids, swept = _pull_sweeps(dg, relax_params, tag, int(PUSH_SHARE * n))
                        phases, tag, sweeps = phases + swept, tag + swept, sweeps + swept
                        near = FrontierQueue(n, capacity, ids)
                        continue
                    wide = 2 * len(near.last)  # wide frontiers of short lists (meshes): push on
                if len(near.last):  # the queue ran out of room, or the frontier stays pushed
                    near = FrontierQueue(n, capacity, near.last)
            k = min(int(far_len.get()[0]), far.size)  # sync: the far pile's size
            if not k:
                break
            ids = cupy.unique(far[:k])
            pile = Frontier(n, ids=ids, length=ids.size)
            lowest = float(dist[pile.ids].min())  # sync: jump over empty buckets
            split = max(split + delta, (np.floor(lowest / delta) + 1) * delta)
            params = {"dist": dist, "split": _float32(split)}
            rest = keep_if(pile, "dist[v] >= split", params=params)
            far[: len(rest)] = rest.ids
            far_len.fill(len(rest))
            near = FrontierQueue(n, capacity, keep_if(pile, "dist[v] < split", params=params))
        if over_bus:  # a pull would read every in-list over the bus
            pred, overflow, how = *_tight_bfs(dg, dist, source), "bfs"
        else:
            pred, overflow, how = _predecessors_cuda(dg, dist, source)
    if overflow:
        raise InvalidWeightError(
            "sssp: a path is longer than float32's range (about 3.4e38) on the GPU, whose "
            "distances are float32; use device='cpu'"
        )
    return SSSPResult(
        "sssp",
        "cuda",
        t.seconds,
        phases,
        "near-far",
        {"delta": delta, "predecessors": how, "pull_sweeps": sweeps},
        distance=dist,
        predecessor=pred,
    )


def _pull_sweeps(dg, params, tag, few):
    """Pull sweeps for a wide frontier: every vertex takes the least dist[u] + weight over its
    in-arcs, from every u (a sweep relaxes the frontier's arcs and more), and files an improvement
    as a relaxation does (stamped with the sweep's tag: tag, tag + 1, ...). Runs until a sweep
    stamps at most `few` vertices (those below the split, and past it where the far pile is full);
    returns (their ids, the sweeps run). `params` gives the relaxation's parameters for a tag. The
    sweep is planned as PageRank's (:func:`gravel.operators.plan_sweep`, "auto"); a staged one
    gathers the weights in its layout's order and reads the distances as they were when it began.
    One sync a sweep."""
    import cupy

    from ..operators import neighbor_reduce

    swept = 0
    while True:
        p = params(tag + swept)
        neighbor_reduce(
            dg,
            None,
            p["dist"],
            "min",
            identity=np.float32(np.inf),
            combine="+",
            apply=_PULL_APPLY,
            params=p,
            preamble=_RELAX,
            blocking="auto",
        )
        ids = cupy.flatnonzero(p["stamp"] == p["tag"]).astype(cupy.int32)  # sync: its size
        swept += 1
        if ids.size <= few:
            return ids, swept


def _float32(split):
    """A split in float32: infinity past float32's range (every distance is below it), without
    NumPy's overflow warning."""
    with np.errstate(over="ignore"):
        return np.float32(split)


#: the predecessor pull's value where an arc u -> v gives v no predecessor: "any"'s identity
_NO_PRED = np.iinfo(np.int32).max
# Each arc u -> v offers u as v's predecessor where it is tight with dist[u] < dist[v] strictly
# (predecessors strictly closer to the source make a tree); into an unreached v, a reached u means
# that dist[u] + weight overflowed float32 (-2).
_PRED_VALUE = (
    "isinf(dist[v]) ? (isinf(dist[u]) ? {none} : -2) "
    ": (dist[u] < dist[v] && dist[u] + weight == dist[v] ? u : {none})"
).format(none=_NO_PRED)


def _predecessors_cuda(dg, dist, source):
    """(predecessor tree, whether a distance overflowed float32, how it was found) of final
    distances: a pull over every vertex's in-arcs, each vertex stopping at its first strictly
    closer tight arc ("pull"), as one sweep, where every reached vertex has one; else (zero
    weights, or a sum rounding to dist[u]) the BFS over tight arcs (:func:`_tight_bfs`, "bfs").
    One sync, two with the BFS."""
    import cupy

    from ..operators import neighbor_reduce

    pred = neighbor_reduce(dg, None, _PRED_VALUE, "any", dtype=np.int32, params={"dist": dist})
    pred[source] = -1
    overflow = (pred == -2).any()
    missing = (cupy.isfinite(dist) & (pred == _NO_PRED)).any()
    overflow, missing = (bool(x) for x in cupy.stack([overflow, missing]).get())  # sync
    if missing and not overflow:
        return *_tight_bfs(dg, dist, source), "bfs"
    pred[pred == _NO_PRED] = -1  # unreached
    return pred, overflow, "pull"


def _tight_bfs(dg, dist, source):
    """The predecessor tree of final distances (a BFS over tight arcs, in multi-step launches), and
    whether a distance overflowed float32 (one sync)."""
    import cupy

    from ..frontier import FrontierQueue
    from ..operators import advance_steps

    n = dg.n
    pred = cupy.full(n, -1, cupy.int32)
    pred[source] = source
    overflow = cupy.zeros(1, cupy.int32)
    queue = FrontierQueue(n, n + 1, [source])  # each vertex enters once
    while len(queue.last):
        advance_steps(
            dg,
            queue,
            "gravel_sssp_tight(dist, pred, overflow, src, dst, weight)",
            params={"dist": dist, "pred": pred, "overflow": overflow},
            limit=n,
            preamble=_TIGHT,
        )
    pred[source] = -1
    return pred, bool(overflow.get()[0])  # sync


def verify_sssp(G, source, distance, predecessor=None, *, rtol=1e-6):
    """Compare distances (caller ids) with SciPy's Dijkstra (parallel arcs: minimum weight), and
    check a predecessor tree if given: -1 for the source and unreachable vertices; for every other
    vertex v an arc p -> v with distance[p] + w equal to distance[v] (to float32 rounding), and a
    chain of predecessors that ends at the source. Returns a list of problems."""
    from scipy.sparse.csgraph import dijkstra

    from ..transform import deduplicate

    n = G.n
    order = np.arange(n) if G.order is None else G.order.astype(np.int64)
    # SciPy would sum parallel arcs; a path takes the lightest
    D = deduplicate(G)
    expect = to_caller(G, dijkstra(D.to_scipy(), directed=True, indices=int(order[source])))
    distance = np.asarray(distance, np.float64)
    if not np.allclose(expect, distance, rtol=rtol, equal_nan=False):
        bad = int(np.flatnonzero(~np.isclose(expect, distance, rtol=rtol))[0])
        return [f"distance of {bad} is {distance[bad]}, Dijkstra says {expect[bad]}"]
    if predecessor is None:
        return []
    pred = np.asarray(predecessor, np.int64)
    reached = np.isfinite(distance)
    reached[source] = False
    wrong = np.flatnonzero((pred != -1) & ~reached)
    if wrong.size:
        v = int(wrong[0])
        return [f"vertex {v} is the source or unreachable, but its predecessor is {pred[v]}"]
    wrong = np.flatnonzero(reached & ((pred < 0) | (pred >= n)))
    if wrong.size:
        v = int(wrong[0])
        return [f"vertex {v} is reached, but its predecessor is {pred[v]}"]
    v = np.flatnonzero(reached)
    p = pred[v]
    # the lightest arc p -> v, found in D's sorted rows by its key (internal ids)
    src, dst = D.edges()
    keys = src.astype(np.int64) * n + dst
    want = order[p] * n + order[v]
    at = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
    has = keys[at] == want if keys.size else np.zeros(v.size, bool)
    w = np.where(has, D.weights[at] if D.weighted else 1.0, np.inf) if keys.size else np.inf
    step = distance[p] + w
    slack = (rtol + 4 * np.finfo(np.float32).eps) * np.abs(distance[v])
    wrong = np.flatnonzero(~(np.abs(step - distance[v]) <= slack))
    if wrong.size:
        i = int(wrong[0])
        arc = f"arc {p[i]} -> {v[i]}" + ("" if has[i] else " (no such arc)")
        return [f"predecessor of {v[i]} is {p[i]}: {arc} gives {step[i]}, not {distance[v[i]]}"]
    # pointer doubling: after k rounds each entry is the 2**k-th ancestor, -1 past the source
    up = pred.copy()
    for _ in range(max(1, n.bit_length())):
        up = np.where(up >= 0, up[np.maximum(up, 0)], -1)
    if (up >= 0).any():
        return [f"the predecessors of vertex {int(np.flatnonzero(up >= 0)[0])} form a cycle"]
    return []


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _sssp_cpu, "cuda": _sssp_cuda}
