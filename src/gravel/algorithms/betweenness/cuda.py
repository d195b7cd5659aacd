"""Brandes on the GPU: in batches of sparse-dense products, or source by source on the operators
(a direction-optimizing forward BFS counting paths, then a backward pass level by level)."""

import numpy as np

from ...arrays import entry_rows
from ...backends.cuda.graph import INT32_ARCS
from ...results import Timer
from .result import BCResult

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


def _bc_cuda(G, sources, edges=False):
    """Brandes on the GPU: in batches of sources (:func:`_bc_batched`) when there are many and the
    graph is shallow (a BFS from the first source with out-arcs is at most BATCH_MAX_DEPTH deep:
    an isolated one would call any graph shallow), else source by source on the operators
    (:func:`_bc_each`). With `edges`, each arc's dependencies too (``edge_centrality``, in CSR
    order)."""
    import cupy

    from ..bfs import bfs

    if len(sources) >= BATCH_MIN_SOURCES and G.nnz < INT32_ARCS:  # cuSPARSE's int32 offsets
        degree = G.to("cuda").out_degree[cupy.asarray(sources)]
        depth = bfs(G, int(sources[int((degree > 0).argmax())]), device="cuda").depth
        if int(depth.max()) <= BATCH_MAX_DEPTH:
            return _bc_batched(G, sources, edges)
    return _bc_each(G, sources, edges)


def _arc_shares(depth, sigma, delta, rows, cols):
    """Each arc's share of the dependencies, sigma[v] / sigma[w] (1 + delta[w]) for an arc v -> w
    one level down, else 0 (arrays of one source, or (n, width) of a batch, summed over it)."""
    import cupy

    down = (depth[rows] >= 0) & (depth[cols] == depth[rows] + 1)
    share = cupy.where(down, sigma[rows] * (1 + delta[cols]) / cupy.maximum(sigma[cols], 1), 0)
    return share if share.ndim == 1 else share.sum(axis=1)


def _bc_batched(G, sources, edges):
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
    arcs = cupy.zeros(dg.nnz, cupy.float64) if edges else None
    rows = entry_rows(dg.offsets, dg.nnz) if edges else None
    with Timer("cuda") as t:
        for lo in range(0, len(sources), width):
            batch = cupy.asarray(sources[lo : lo + width])
            bc += _batch(A, AT, batch, rows, dg.indices, arcs)
    return BCResult(
        "betweenness_centrality",
        "cuda",
        t.seconds,
        len(sources),
        "brandes, batched",
        {"sources": len(sources), "batch": width},
        centrality=bc,
        edge_centrality=arcs,
    )


def _batch(A, AT, sources, rows=None, cols_of_arcs=None, arcs=None):
    """The dependencies of every vertex on the `sources` (one column each), summed over them;
    where `rows` is given, each arc's (rows[i] -> cols_of_arcs[i]) added to `arcs` too, in chunks
    of arcs of about BATCH_BYTES."""
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
    if rows is not None:
        chunk = max(1, BATCH_BYTES // (32 * len(sources)))
        for lo in range(0, len(rows), chunk):
            part = slice(lo, lo + chunk)
            arcs[part] += _arc_shares(depth, sigma, delta, rows[part], cols_of_arcs[part])
    return delta.sum(axis=1)


def _bc_each(G, sources, edges):
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

    from ...frontier import Frontier, FrontierQueue
    from ...operators import (
        THIN_BLOCKS_PER_SM,
        advance,
        advance_steps,
        compute,
        thin_frontier_limit,
    )
    from ..bfs import _pull_candidates, _pull_pays

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
    edge_bc = cupy.zeros(dg.nnz, cupy.float64) if edges else None
    rows = entry_rows(dg.offsets, dg.nnz) if edges else None
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
            if edges:
                edge_bc += _arc_shares(depth, sigma, delta, rows, dg.indices)
    return BCResult(
        "betweenness_centrality",
        "cuda",
        t.seconds,
        len(sources),
        "brandes",
        {"sources": len(sources), "pulled_levels": pulls, "scattered_levels": scatters},
        centrality=bc,
        edge_centrality=edge_bc,
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
    from ...operators import THIN_BLOCKS_PER_SM, advance, advance_replay

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
    from ...operators import filter_frontier as keep_if
    from ...operators import neighbor_reduce_steps, split
    from ...operators.compute import SPLIT_MAX

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
