"""Delta-stepping on the GPU: buckets relaxed by advances, wide steps handed to pull sweeps, and
predecessors from a BFS over the tight arcs."""

import numpy as np

from ...errors import InvalidWeightError
from ...operators.buckets import PILE_PUSH
from ...results import Timer
from .result import SSSPResult

#: on the GPU, a step whose output holds more than PULL_SHARE of the vertices (the first width
#: tested; a wide output of short lists doubles it) and whose lists hold more than PULL_ARCS of the
#: arcs hands its bucket to pull sweeps over every in-list, which run until one improves at most
#: PUSH_SHARE of the vertices below the split (docs/tuning.md)
PULL_SHARE, PULL_ARCS, PUSH_SHARE = 1 / 64, 1 / 4, 1 / 4


_RELAX = (
    PILE_PUSH
    + """
__device__ bool gravel_sssp_relax(float* dist, unsigned int* stamp, int* far,
                                  unsigned long long* far_len, long long far_cap, int src, int dst,
                                  float weight, float split, unsigned int tag) {
    float d = dist[src] + weight;
    if (!(d < dist[dst])) return false;
    if (!(__int_as_float(atomicMin((int*)&dist[dst], __float_as_int(d))) > d)) return false;
    if (d >= split && gravel_pile_push(far, far_len, far_cap, dst)) return false;
    return atomicExch(&stamp[dst], tag) != tag;
}
"""
)
_PULL_APPLY = (
    "if (acc < dist[v]) { dist[v] = acc; "
    "if (!(acc >= split[0] && gravel_pile_push(far, far_len, far_cap, v))) stamp[v] = tag; }"
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


def _sssp_cuda(G, source, weights, delta, predecessors=True):
    """Near/far SSSP on the GPU operators (Davidson et al.; Gunrock's SSSP): relax the near pile
    with an advance whose functor does an atomic min on float distances; improved vertices below
    the split go back to the near pile, the rest to the far pile; when near empties, the split
    moves past the far pile's lowest distance (by delta at least). Steps and bucket changes run on
    the device (:func:`gravel.operators.advance_buckets`: one launch for many relaxation rounds
    and buckets, instead of launches, scans and host round trips per round), and where a step
    leaves a wide frontier, pull sweeps over every in-list take over (direction-optimizing, as
    BFS: a sweep reads each arc once, without atomics) until few vertices improve. Where the lists
    are read over the bus (placement "host" or "tiered"), one advance a round drains the near
    pile, its frontier sorted (line-aligned reads in address order, as BFS's), and each bucket
    change is a launch of its own. Float32 distances."""
    import cupy

    from ...frontier import FrontierQueue
    from ...operators import Buckets, advance, advance_buckets
    from ..bfs import _pull_pays

    dg = G.to("cuda")  # every kernel reads weight 1 where the graph has none
    n = G.n
    dist = cupy.full(n, cupy.inf, cupy.float32)
    dist[source] = 0
    stamp = cupy.zeros(n, cupy.uint32)
    buckets = Buckets(dist, delta)
    # each segment holds a vertex at most once: room for n more keeps every one in the queue
    capacity = 3 * n + 1
    near = FrontierQueue(n, capacity, [source])
    phases, tag, sweeps = 0, 1, 0
    wide, max_degree = max(1, int(PULL_SHARE * n)), G.max_out_degree
    relax = (
        "gravel_sssp_relax(dist, stamp, far, far_len, far_cap, src, dst, weight, split[0], "
        "tag + step)"
    )
    over_bus = dg.placement in ("host", "tiered")

    def relax_params(tag):
        return {"dist": dist, "stamp": stamp, "tag": np.uint32(tag)} | buckets.params()

    with Timer("cuda") as t:
        while not buckets.done:
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
            if over_bus:
                near = FrontierQueue(n, capacity, [])
            steps = advance_buckets(
                dg,
                near,
                relax,
                buckets,
                stamp=stamp,
                tag=tag,
                params=relax_params(tag),
                limit=wide,
                max_steps=0 if over_bus else None,
                step_bound=n,
                preamble=_RELAX,
            )
            phases, tag = phases + steps, tag + steps
            if not over_bus and len(near.last) > wide:
                # its relaxations cost more than a sweep: BFS's and BC's test (a sync)
                pulls, _ = _pull_pays(dg, near.last, None, PULL_ARCS * dg.nnz, max_degree)
                if pulls:
                    ids, swept = _pull_sweeps(dg, relax_params, tag, int(PUSH_SHARE * n))
                    phases, tag, sweeps = phases + swept, tag + swept, sweeps + swept
                    near = FrontierQueue(n, capacity, ids)
                    continue
                wide = 2 * len(near.last)  # wide frontiers of short lists (meshes): push on
            if not over_bus:  # room again for the frontier's next segments
                near = FrontierQueue(n, capacity, near.last)
        if not predecessors and not _may_overflow(dist, G.weight_stats[1]):
            pred, overflow, how = None, False, None
        elif over_bus:  # a pull would read every in-list over the bus
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


def _may_overflow(dist, heaviest):
    """Whether a path through a reached vertex could grow beyond float32's range, which leaves
    its head unreached: the farthest distance plus the heaviest weight against half the range (a
    margin no rounding crosses), one sync. Where it could, the predecessors' pass, which checks
    every arc, decides."""
    import cupy

    farthest = float(cupy.where(cupy.isfinite(dist), dist, 0).max())  # sync
    return farthest + float(heaviest) > float(np.finfo(np.float32).max) / 2


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

    from ...operators import neighbor_reduce

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

    from ...operators import neighbor_reduce

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

    from ...frontier import FrontierQueue
    from ...operators import advance_steps

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
