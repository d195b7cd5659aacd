"""Betweenness centrality (Brandes 2001), unweighted shortest paths.

Each source runs a BFS that counts shortest paths (sigma), then accumulates dependencies in reverse
BFS order. Sources are split over CPU threads. Scaling follows
``networkx.betweenness_centrality(G, k, normalized, endpoints=False)`` exactly, and so do the paths
counted: those of the simple graph (a ``networkx.Graph`` or ``DiGraph``), where parallel arcs merge
into one. A graph with parallel arcs is deduplicated first (:func:`gravel.transform.deduplicate`).
"""

from dataclasses import dataclass

import numba
import numpy as np

from .. import seeds
from ..arguments import is_integer
from ..arrays import xp
from ..backends.cpu import bc as _k
from ..errors import InvalidGraphError, VertexNotFoundError
from ..transform import deduplicate
from ._common import Result, Timer, caller_id, choose_device, takes_graph, to_caller


@dataclass
class BCResult(Result):
    centrality: np.ndarray = None
    sources: np.ndarray = None


@takes_graph
def betweenness_centrality(G, k=None, *, normalized=True, seed=None, sources=None, device="auto"):
    """Betweenness centrality of every vertex.

    Parameters
    ----------
    G : Graph
        Weights are ignored (hop counts). Parallel arcs count once, as in a ``networkx.DiGraph``
        (``networkx.Graph`` when undirected); self loops lie on no shortest path.
    k : int, optional
        Use `k` sources sampled without replacement (with `seed`) instead of all n; ``1 <= k <=
        n``.
    normalized : bool, default True
        Divide by the number of ordered pairs, as NetworkX does.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seed of the source sample.
    sources : sequence, optional
        Use exactly these sources, scaled as a sample of ``k = len(sources)`` distinct vertices; a
        repeated vertex counts once. Caller ids or, on a labelled graph, labels
        (:func:`gravel.algorithms._common.caller_id`). Overrides `k` and `seed`.
    device : {"auto", "cpu", "cuda"}

    Returns
    -------
    BCResult
        ``centrality[v]`` (float64, caller ids) and the ``sources`` used (int32). As in NetworkX,
        endpoints are excluded, and with a single sampled source its own value is NaN (0 / 0).

    Raises
    ------
    InvalidGraphError
        `k` is not an integer in ``[1, n]``, or `sources` is empty or not 1-D.
    VertexNotFoundError
        A source is neither a vertex id nor a label of G.

    See Also
    --------
    gravel.transform.deduplicate : the simple graph whose paths are counted.

    Notes
    -----
    O(k m) time for k sources (all n by default), O(n) memory per CPU thread. NetworkX's
    ``MultiDiGraph`` semantics (each parallel arc a distinct path) are those of Brandes' algorithm
    run on the raw arcs; gravel never uses them.

    Examples
    --------
    >>> import gravel
    >>> r = gravel.betweenness_centrality(gravel.generate.grid(1, 3), device="cpu")
    >>> r.centrality.tolist()
    [0.0, 1.0, 0.0]
    >>> G = gravel.Graph.from_edges([0, 0, 1, 0, 3], [1, 1, 2, 3, 2])  # 0 -> 1 twice
    >>> gravel.betweenness_centrality(G, normalized=False, device="cpu").centrality.tolist()
    [0.0, 0.5, 0.0, 0.5]
    """
    dev = choose_device(device, _IMPLEMENTATIONS, "betweenness_centrality")
    n = G.n
    if sources is not None:
        sources = _check_sources(G, sources)
        k = len(sources)
    elif k is None:
        sources = np.arange(n, dtype=np.int32)
    else:
        if not is_integer(k):
            raise InvalidGraphError(f"k must be an integer number of sources, not {k!r}")
        if not 0 < k <= n:
            raise InvalidGraphError(f"k={k} sources, but the graph has {n} vertices")
        sources = seeds.rng(seed).choice(n, size=k, replace=False).astype(np.int32)
    internal = sources if G.order is None else G.order[sources]
    res = _IMPLEMENTATIONS[dev](_simple_arcs(G), internal)
    res.centrality = rescale(
        to_caller(G, res.centrality),
        n,
        xp(res.centrality).asarray(sources),
        k,
        normalized,
        G.directed,
    )
    res.sources = sources
    return res


def _check_sources(G, sources):
    """The distinct caller ids of `sources` (int32, sorted), refused unless each is a vertex: an
    id, or on a labelled graph a label (:func:`caller_id`)."""
    a = np.asarray(sources)
    if a.ndim != 1:
        raise InvalidGraphError(f"sources must be a 1-D array of vertices, not {a.ndim}-D")
    if a.size == 0:
        raise InvalidGraphError("sources is empty: betweenness needs at least one source")
    if not np.issubdtype(a.dtype, np.integer):  # labels, or ids among them
        a = np.array([caller_id(G, s, "source") for s in sources], np.int64)
    bad = a[(a < 0) | (a >= G.n)]
    if bad.size:
        raise VertexNotFoundError(
            f"source vertex {int(bad[0])} is not in the graph (ids 0..{G.n - 1})"
        )
    return np.unique(a).astype(np.int32)


def _simple_arcs(G):
    """G itself, or G with its parallel arcs merged where it has any."""
    return deduplicate(G) if G.has_parallel_arcs else G


def _bc_cpu(G, sources):
    """Brandes with the sources split over the threads; with fewer sources than threads (on a
    graph past the serial kernels' size), every thread on each source in turn: the depths from
    the parallel BFS, then :func:`gravel.backends.cpu.bc.dependencies` level by level."""
    from ..backends.cpu._serial import is_small
    from .bfs import _bfs_cpu

    threads = numba.get_num_threads()
    by_levels = len(sources) < threads and not is_small(G.nnz)
    with Timer() as t:
        if not G.n:
            raw = np.zeros(0)
        elif by_levels:
            in_off, in_idx, _ = G.csc()
            raw = np.zeros(G.n)
            work = np.empty(G.n), np.empty(G.n), np.empty(G.n, np.int32)  # sigma, delta, order
            for s in sources:
                depth = _bfs_cpu(G, int(s)).depth
                _k.dependencies(G.offsets, G.indices, in_off, in_idx, s, depth, *work, raw)
        else:
            raw = _k.brandes(G.offsets, G.indices, sources, min(threads, len(sources)))
    return BCResult(
        "betweenness_centrality",
        "cpu",
        t.seconds,
        len(sources),
        "brandes, level-parallel" if by_levels else "brandes",
        {"sources": len(sources)},
        centrality=raw,
    )


# Forward step of Brandes on the GPU: claim dst for the next level, and add src's path count to
# every dst on that level (the claimant and the later arrivals alike). A plain read skips the
# atomics for the many edges into earlier levels; otherwise the CAS's old value decides (a plain
# read could see a stale cached -1 after another thread's claim).
_VISIT = """
__device__ bool gravel_bc_visit(int* depth, double* sigma, int src, int dst, int level) {
    int seen = depth[dst];  // a stale read can only be -1: then the CAS decides
    if (seen != -1 && seen != level) return false;
    int old = atomicCAS(&depth[dst], -1, level);
    if (old == -1 || old == level) atomicAdd(&sigma[dst], sigma[src]);
    return old == -1;
}
"""


#: a forward level of the GPU's per-source Brandes pulls once the frontier's out-arcs exceed the
#: unvisited vertices' in-arcs times this: a pull reads every in-arc of the unvisited, a push every
#: out-arc of the frontier with an atomic per discovery (docs/tuning.md)
BC_PULL_ABOVE = 1 / 32
#: the pulled levels' candidates are filtered down to the unvisited once the visited pass this share
#: of them: below it, a pull step's warps pass over the few visited for less than the filter's
#: pass and sync (docs/tuning.md)
PULL_FILTER_ABOVE = 1 / 8
#: sources from which the GPU runs Brandes in batches of matrix products (:func:`_bc_batched`)
#: rather than source by source: below it, the per-source launches cost less than the batch's
#: work over every vertex at every level
BATCH_MIN_SOURCES = 64
#: columns of one batch: sources at once
BATCH_WIDTH = 512
#: device memory for a batch's (n, width) arrays: about 64 bytes an entry
BATCH_BYTES = 1 << 30
#: deepest BFS level (from the first source) with which batches still pay: each level of a batch
#: costs a product over the whole graph, where the per-source advance touches only the frontier
BATCH_MAX_DEPTH = 64


def _bc_cuda(G, sources):
    """Brandes on the GPU: in batches of sources (:func:`_bc_batched`) when there are many and the
    graph is shallow (a BFS from the first source is at most BATCH_MAX_DEPTH deep), else source by
    source on the operators (:func:`_bc_each`)."""
    from .bfs import bfs

    if len(sources) >= BATCH_MIN_SOURCES and G.nnz < 2**31:  # cuSPARSE's int32 ids
        depth = bfs(G, int(sources[0]), device="cuda").depth
        if int(depth.max()) <= BATCH_MAX_DEPTH:
            return _bc_batched(G, sources)
    return _bc_each(G, sources)


def _bc_batched(G, sources):
    """Brandes for a batch of sources at once, one per column of dense (n, width) matrices, with
    sparse-dense products (cuSPARSE): level by level, the path counts sigma of one level's frontier
    times A^T give the next level's; then, deepest level first, (1 + delta) / sigma of a level
    times A gives each vertex of the level above its sum over successors. A few launches per level
    for the whole batch, where the per-source way launches several per level per source."""
    import cupy
    import cupyx.scipy.sparse as csp

    dg = G.to("cuda")
    n = G.n
    offsets = dg.offsets.astype(cupy.int32)
    A = csp.csr_matrix((cupy.ones(dg.nnz), dg.indices, offsets), shape=(n, n))
    AT = A.T.tocsr()
    width = max(1, min(BATCH_WIDTH, len(sources), BATCH_BYTES // (64 * max(n, 1))))
    bc = cupy.zeros(n, cupy.float64)
    with Timer("cuda") as t:
        for lo in range(0, len(sources), width):
            bc += _batch(A, AT, cupy.asarray(sources[lo : lo + width]))
    return BCResult(
        "betweenness_centrality",
        "cuda",
        t.seconds,
        len(sources),
        "brandes, batched",
        {"sources": len(sources), "batch": width},
        centrality=bc,
    )


def _batch(A, AT, sources):
    """The dependencies of every vertex on the `sources` (one column each), summed over them."""
    import cupy

    n, cols = A.shape[0], cupy.arange(len(sources))
    depth = cupy.full((n, len(sources)), -1, cupy.int32)
    depth[sources, cols] = 0
    sigma = cupy.zeros((n, len(sources)))
    sigma[sources, cols] = 1
    frontier, level = sigma, 0
    while True:
        paths = AT @ frontier  # into each vertex, from the frontier's
        paths *= depth < 0
        reached = paths > 0
        if not bool(reached.any()):
            break
        level += 1
        depth[reached] = level
        sigma += paths
        frontier = paths
    delta = cupy.zeros_like(sigma)
    for d in range(level - 1, 0, -1):
        below = cupy.where(depth == d + 1, (1 + delta) / cupy.maximum(sigma, 1), 0)
        delta += cupy.where(depth == d, sigma * (A @ below), 0)
    return delta.sum(axis=1)


def _bc_each(G, sources):
    """Brandes per source on the operators: a forward BFS whose advance counts shortest paths
    (sigma) level by level, keeping every level's frontier in one queue; then, deepest level first,
    an advance over each level whose functor adds sigma[v] / sigma[w] * (1 + delta[w]) into delta[v]
    for successors w (:func:`_backward`). On graphs without hubs (road graphs, meshes), thin levels
    go forward in multi-step launches and come back in replay launches
    (:func:`gravel.operators.thin_frontier_limit`).

    Direction-optimizing forward: once the frontier's out-arcs pass BC_PULL_ABOVE times the
    unvisited vertices' in-arcs (estimated from their count, as BFS's switch does), every later
    level pulls (:func:`_pull_levels`, all in one cooperative launch): every unvisited vertex sums
    sigma over its in-arcs from the frontier (no early exit, as the whole sum is needed; no
    atomics), reading the few arcs left instead of the frontier's many."""
    import cupy

    from ..frontier import Frontier, FrontierQueue
    from ..operators import (
        THIN_BLOCKS_PER_SM,
        advance,
        advance_steps,
        compute,
        thin_frontier_limit,
    )
    from .bfs import _pull_candidates, _pull_pays

    dg = G.to("cuda")
    n = G.n
    bc = cupy.zeros(n, cupy.float64)
    depth = cupy.empty(n, cupy.int32)
    sigma = cupy.empty(n, cupy.float64)
    delta = cupy.empty(n, cupy.float64)
    thin = thin_frontier_limit(dg)
    candidates = _pull_candidates(dg) or Frontier.all(n)  # the vertices with in-arcs
    arcs_each = dg.nnz / max(len(candidates), 1)
    max_degree = G.max_out_degree
    visit = "gravel_bc_visit(depth, sigma, src, dst, level + step)"
    pulls = scatters = 0  # forward levels pulled, backward levels scattered, over every source
    with Timer("cuda") as t:
        for s in sources.tolist():
            depth.fill(-1)
            sigma.fill(0)
            delta.fill(0)
            depth[s], sigma[s] = 0, 1
            levels = FrontierQueue(n, n, [s])  # segment i: the vertices at depth i
            known = int(G.out_degree[s])  # the first frontier's out-arcs, on the host
            while len(levels.last):
                params = {"depth": depth, "sigma": sigma, "level": np.int32(len(levels))}
                arcs, known = known, None  # the frontier's out-arcs, where counted
                left = (len(candidates) - levels.bounds[-1]) * arcs_each * BC_PULL_ABOVE
                pulling, arcs = _pull_pays(dg, levels.last, arcs, left, max_degree)
                if pulling:
                    pulls += _pull_levels(dg, levels, candidates, params)
                elif len(levels.last) <= thin:
                    advance_steps(
                        dg,
                        levels,
                        visit,
                        params=params,
                        blocks_per_sm=THIN_BLOCKS_PER_SM,
                        preamble=_VISIT,
                    )
                else:
                    pushed = advance(
                        dg,
                        levels.last,
                        visit,
                        params=params,
                        capacity=levels.room,
                        preamble=_VISIT,
                        arcs=arcs,
                        count_arcs=True,
                    )
                    levels.push(pushed)
                    known = pushed.arcs  # read back with its length
            params = {"depth": depth, "sigma": sigma, "delta": delta}
            scatters += _backward(dg, levels, params, thin)
            compute(
                None,
                "if (v != s && depth[v] >= 0) bc[v] += delta[v]",
                params={"bc": bc, "depth": depth, "delta": delta, "s": np.int32(s)},
                n=n,
            )
    return BCResult(
        "betweenness_centrality",
        "cuda",
        t.seconds,
        len(sources),
        "brandes",
        {"sources": len(sources), "pulled_levels": pulls, "scattered_levels": scatters},
        centrality=bc,
    )


# Brandes' backward step, two ways: a vertex of the level (src) gathers from its successors (dst)
# over its out-arcs, or a vertex of the level below (src) scatters to its predecessors (dst) over
# its in-arcs. Either way, one atomic per arc between the two levels; `{}` is the level's depth.
_GATHER = (
    "depth[dst] == {} + 1 && "
    "(atomicAdd(&delta[src], sigma[src] / sigma[dst] * (1.0 + delta[dst])), false)"
)
_SCATTER = (
    "depth[dst] == {} && "
    "(atomicAdd(&delta[dst], sigma[dst] / sigma[src] * (1.0 + delta[src])), false)"
)


def _backward(dg, levels, params, thin):
    """Brandes' backward pass over the queue's levels: the last segment is empty and the one before
    it, the deepest level, has no successors, so dependencies flow from the level above it back to
    depth 1. A run of consecutive levels of at most `thin` vertices each gathers in one replay
    launch of THIN_BLOCKS_PER_SM. A wider level goes in an advance with every block of the device,
    whichever way reads fewer arcs: it gathers over its own out-arcs, or the level below scatters
    over its in-arcs (on kron and urand, the deepest wide level has millions of out-arcs and a few
    thousand vertices below it). The arcs per level, counted once, spare each advance a sync.
    Returns the levels scattered."""
    from ..operators import THIN_BLOCKS_PER_SM, advance, advance_replay

    out_arcs = in_arcs = None  # per level, counted at the first wide level
    scattered = 0
    lv = len(levels) - 3
    while lv >= 1:
        low = lv
        while low >= 1 and levels.bounds[low + 1] - levels.bounds[low] <= thin:
            low -= 1
        if low < lv:
            advance_replay(
                dg,
                levels,
                _GATHER.format("step"),
                first=low + 1,
                last=lv + 1,
                reverse=True,
                params=params,
                blocks_per_sm=THIN_BLOCKS_PER_SM,
            )
            lv = low
            continue
        if out_arcs is None:
            out_arcs = _level_arcs(dg, levels)
            in_arcs = _level_arcs(dg.reverse(), levels) if dg.directed else out_arcs
        at = params | {"level": np.int32(lv)}
        if out_arcs[lv] <= in_arcs[lv + 1]:
            gather = _GATHER.format("level")
            advance(dg, levels.segment(lv), gather, params=at, output=None, arcs=out_arcs[lv])
        else:
            below = levels.segment(lv + 1)
            scatter = _SCATTER.format("level")
            advance(dg.reverse(), below, scatter, params=at, output=None, arcs=in_arcs[lv + 1])
            scattered += 1
        lv -= 1
    return scattered


def _level_arcs(dg, levels):
    """The out-arcs of each of the queue's segments, as a host list (one sync)."""
    import cupy

    ends = levels.bounds
    prefix = cupy.zeros(ends[-1] + 1, dtype=cupy.int64)
    cupy.cumsum(dg.out_degree[levels.buffer[: ends[-1]]], dtype=cupy.int64, out=prefix[1:])
    at = prefix[cupy.asarray(ends)]
    return (at[1:] - at[:-1]).get().tolist()


def _pull_levels(dg, levels, candidates, params):
    """Every level from the next on by pulls (:func:`gravel.operators.neighbor_reduce_steps`, one
    cooperative launch per PULL_STEPS_MAX levels): at each step, every unvisited vertex v among the
    `candidates` sums sigma over its in-arcs (u -> v) from the level before and, where the sum is
    positive, takes it and the step's depth. The candidates are filtered down to the unvisited
    first where the visited pass PULL_FILTER_ABOVE of them. The vertices so claimed, split by
    depth, become the queue's segments, and an empty one ends it. Returns the levels pulled (one
    sync per launch, and the filter's where it runs)."""
    from ..operators import filter_frontier as keep_if
    from ..operators import neighbor_reduce_steps, split
    from ..operators.compute import SPLIT_MAX

    if levels.bounds[-1] > PULL_FILTER_ABOVE * len(candidates):  # the vertices visited so far
        candidates = keep_if(candidates, "depth[v] < 0", params=params)
    first, sizes = len(levels), []
    while not sizes or sizes[-1]:
        made = neighbor_reduce_steps(
            dg,
            candidates,
            "depth[u] == level + step - 1 ? sigma[u] : 0.0",
            "acc > 0 && (sigma[v] = acc, depth[v] = level + step, true)",
            where="depth[v] < 0",
            dtype=np.float64,
            params=params | {"level": np.int32(first + len(sizes))},
        )
        sizes += made
    for lo in range(0, len(sizes), SPLIT_MAX):  # the last size is 0: the segment ending the queue
        part = sizes[lo : lo + SPLIT_MAX]
        at = {"depth": params["depth"], "level": np.int32(first + lo)}
        for level in split(candidates, "depth[v] - level", len(part), lengths=part, params=at):
            levels.push(level)
    return len(sizes) - 1


def rescale(raw, n, sources, k, normalized, directed):
    """NetworkX's scaling with endpoints excluded (networkx.algorithms.centrality.betweenness)."""
    N = n - 1
    if N < 2:
        return raw
    K = N if k is None else k
    if k is None:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * (1 if directed else 2))
        return raw * scale
    corr = 1 if directed else 2
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else np.nan
        s_other = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * corr) if K > 1 else np.nan
        s_other = N / (K * corr)
    out = raw * s_other
    out[sources] = raw[sources] * s_src
    return out


def verify_betweenness(G, centrality, sources=None, *, normalized=True):
    """Check normalized centrality (caller ids) from `sources` (every vertex if None or all of them)
    against Brandes written out with SciPy, level by level: sigma by sparse products over each
    level, dependencies back from the deepest level; parallel arcs count once (the simple graph's
    paths), as gravel's do. Returns a list of problems."""
    n = G.n
    sources = np.arange(n) if sources is None else np.unique(np.asarray(sources, np.int64))
    every = len(sources) == n
    internal = sources if G.order is None else G.order[sources]
    A = G.to_scipy()
    A.sum_duplicates()  # parallel arcs merge: a neighbour is one step, whatever the arc count
    A.data[:] = 1
    raw = np.zeros(n)
    for s in internal.tolist():
        depth, sigma = np.full(n, -1), np.zeros(n)
        depth[s], sigma[s] = 0, 1.0
        levels = [np.array([s])]
        while levels[-1].size:
            x = np.zeros(n)
            x[levels[-1]] = sigma[levels[-1]]
            paths = A.T @ x
            new = np.flatnonzero((paths > 0) & (depth < 0))
            depth[new], sigma[new] = len(levels), paths[new]
            levels.append(new)
        delta = np.zeros(n)
        for d in range(len(levels) - 2, 0, -1):
            z = np.zeros(n)
            z[levels[d]] = (1.0 + delta[levels[d]]) / sigma[levels[d]]
            above = levels[d - 1]
            delta[above] = sigma[above] * (A @ z)[above]
        delta[s] = 0.0
        raw += delta
    expect = rescale(
        to_caller(G, raw), n, sources, None if every else len(sources), normalized, G.directed
    )
    wrong = np.flatnonzero(
        ~np.isclose(
            np.asarray(centrality, np.float64), expect, rtol=1e-6, atol=1e-12, equal_nan=True
        )
    )
    if not wrong.size:
        return []
    v = int(wrong[0])
    return [f"vertex {v}: centrality {float(centrality[v]):.6g}, expected {float(expect[v]):.6g}"]


_IMPLEMENTATIONS = {"cpu": _bc_cpu, "cuda": _bc_cuda}
