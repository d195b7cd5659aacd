"""Single-source shortest paths on non-negative weights.

Delta-stepping (Meyer and Sanders 2003), as in the GAP Benchmark Suite's sssp.cc: vertices are kept
in buckets of width delta by tentative distance; the lowest non-empty bucket is relaxed in parallel
until it stays empty, then the next one. Unweighted graphs use weight 1 on every edge."""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import sssp as _k
from ..errors import InvalidWeightError
from ..transform import check_weights
from ._common import Result, Timer, check_source, choose_device, chunks, to_caller


@dataclass
class SSSPResult(Result):
    distance: np.ndarray = None

    def summary(self):
        d = host(self.distance)
        finite = np.isfinite(d)
        return super().summary() | {
            "reached": int(finite.sum()),
            "max_distance": float(d[finite].max(initial=0)),
        }


def sssp(G, source, *, delta=None, device="auto"):
    """Shortest-path distances from `source` (``inf`` where unreachable).

    Parameters
    ----------
    G : Graph
        Weights must be non-negative and not NaN; an unweighted graph has unit weights.
    source : int
    delta : float, optional
        Bucket width. Default: the mean edge weight times max(1, 16 / average degree) on the CPU and
        max(8, 256 / average degree) on the GPU; wider buckets mean fewer phases but more
        re-relaxations.
    device : {"auto", "cpu", "cuda"}

    Raises
    ------
    InvalidWeightError
        A weight is negative, NaN or infinite (the message names the arc); see
        :func:`gravel.check_weights`.
    VertexNotFoundError
        `source` is not a vertex of G.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
    >>> gravel.sssp(G, 0, device="cpu").distance.tolist()
    [0.0, 1.0, 2.0]
    """
    s = check_source(G, source)
    check_weights(G, name="sssp")
    weights = G.weights if G.weighted else np.ones(G.nnz, np.float32)
    dev = choose_device(device, _IMPLEMENTATIONS, "sssp")
    if delta is None:
        delta = default_delta(G, weights, dev)
    elif not delta > 0:
        raise InvalidWeightError(f"delta must be positive, not {delta}")
    res = _IMPLEMENTATIONS[dev](G, s, weights, float(delta))
    res.distance = to_caller(G, res.distance)
    return res


def default_delta(G, weights, device="cpu"):
    """Bucket width from the mean weight and the average degree. The GPU's is wider: a relaxation
    step there costs little next to each bucket's host round trips (docs/tuning.md,
    default_delta)."""
    if G.nnz == 0:
        return 1.0
    mean = float(weights.mean()) or 1.0
    degree = G.nnz / max(G.n, 1)
    if device == "cuda":
        return mean * max(8.0, 256.0 / degree)
    return mean * max(1.0, 16.0 / degree)


#: frontiers smaller than this run serially, many phases per call
SERIAL_LIMIT = 1024


def _sssp_cpu(G, source, weights, delta):
    n = G.n
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    ring = int(float(weights.max(initial=0)) / delta) + 2
    head = np.full(ring, -1, np.int64)
    cap = max(16, n)
    nxt, entry_v = np.empty(cap, np.int64), np.empty(cap, np.int32)
    stamp = np.zeros(n, np.int64)
    out = np.empty(n, np.int32)
    parts = chunks()
    counts = np.zeros(parts, np.int64)
    frontier = np.array([source], np.int32)
    b, used, rounds, phases = 0, 0, 0, 0
    with Timer() as t:
        while True:
            if 0 < frontier.size < SERIAL_LIMIT:
                if used + G.nnz > cap:  # a serial run relaxes each arc at most once per improvement
                    cap = max(2 * cap, used + G.nnz)
                    nxt, entry_v = np.resize(nxt, cap), np.resize(entry_v, cap)
                frontier, b, used, rounds = _k.serial_phases(
                    G.offsets,
                    G.indices,
                    weights,
                    frontier,
                    b,
                    dist,
                    delta,
                    head,
                    nxt,
                    entry_v,
                    used,
                    stamp,
                    rounds,
                    out,
                    SERIAL_LIMIT,
                )
                phases += 1
                continue
            if frontier.size:
                phases += 1
                edges = int(np.sum(G.out_degree[frontier], dtype=np.int64))
                req_v, req_d = np.empty(edges, np.int32), np.empty(edges, np.float64)
                starts = _k.relax(
                    G.offsets, G.indices, weights, frontier, dist, parts, req_v, req_d, counts
                )
                if used + int(counts.sum()) > cap:
                    cap = max(2 * cap, used + int(counts.sum()))
                    nxt, entry_v = np.resize(nxt, cap), np.resize(entry_v, cap)
                used = _k.apply(req_v, req_d, starts, counts, dist, delta, head, nxt, entry_v, used)
                rounds += 1
                frontier = _k.take_bucket(
                    b, delta, head, nxt, entry_v, dist, stamp, rounds, out
                ).copy()
                continue
            # next non-empty bucket; after a full empty ring, no work is left
            for step in range(1, ring + 1):
                if head[(b + step) % ring] >= 0:
                    break
            else:
                break
            b += step
            rounds += 1
            frontier = _k.take_bucket(b, delta, head, nxt, entry_v, dist, stamp, rounds, out).copy()
    return SSSPResult(
        "sssp", "cpu", t.seconds, phases, "delta-stepping", {"delta": delta}, distance=dist
    )


# Relaxation on the GPU: an atomic min on the distance's bits (non-negative floats order like their
# bits); improved vertices below the split join the next near frontier (once per step, by a stamp),
# the others go to the far pile; a full pile sends them to near instead (only work done early).
_RELAX = """
__device__ bool gravel_sssp_relax(float* dist, unsigned int* stamp, int* far,
                                  unsigned long long* far_len, long long far_cap, int src, int dst,
                                  float weight, float split, unsigned int tag) {
    float d = dist[src] + weight;
    if (!(__int_as_float(atomicMin((int*)&dist[dst], __float_as_int(d))) > d)) return false;
    if (d >= split) {
        unsigned long long k = atomicAdd(far_len, 1ULL);
        if (k < (unsigned long long)far_cap) { far[k] = dst; return false; }
    }
    return atomicExch(&stamp[dst], tag) != tag;
}
"""


def _sssp_cuda(G, source, weights, delta):
    """Near/far SSSP on the GPU operators (Davidson et al.; Gunrock's SSSP): relax the near pile
    with an advance whose functor does an atomic min on float distances; improved vertices below the
    split go back to the near pile, the rest to the far pile; when near empties, the split moves up
    by delta. The near pile is drained by multi-step advances (one launch for many relaxation
    rounds, instead of launches, scans and host round trips per round). Float32 distances."""
    import cupy

    from ..frontier import Frontier, FrontierQueue
    from ..operators import advance_steps
    from ..operators import filter as keep_if

    dg = G.to("cuda")
    if not G.weighted:
        dg = dg.with_weights(cupy.ones(G.nnz, cupy.float32))
    n = G.n
    dist = cupy.full(n, cupy.inf, cupy.float32)
    dist[source] = 0
    stamp = cupy.zeros(n, cupy.uint32)
    far = cupy.empty(max(n, 1), cupy.int32)
    far_len = cupy.zeros(1, cupy.uint64)
    # each step emits a vertex at most once: room for n more keeps every step's output in the queue
    capacity = 3 * n + 1
    near = FrontierQueue(n, capacity, [source])
    split, phases, tag = delta, 0, 1
    relax = (
        "gravel_sssp_relax(dist, stamp, far, far_len, far_cap, src, dst, weight, split, tag + step)"
    )
    with Timer("cuda") as t:
        while True:
            while len(near.last):
                steps = advance_steps(
                    dg,
                    near,
                    relax,
                    params={
                        "dist": dist,
                        "stamp": stamp,
                        "far": far,
                        "far_len": far_len,
                        "far_cap": np.int64(far.size),
                        "split": np.float32(split),
                        "tag": np.uint32(tag),
                    },
                    limit=n,
                    step_bound=n,
                    preamble=_RELAX,
                )
                phases, tag = phases + steps, tag + steps
                if len(near.last):  # the queue ran out of room
                    near = FrontierQueue(n, capacity, near.last)
            k = min(int(far_len.get()[0]), far.size)  # sync: the far pile's size
            if not k:
                break
            ids = cupy.unique(far[:k])
            pile = Frontier(n, ids=ids, length=ids.size)
            lowest = float(dist[pile.ids].min())  # sync: jump over empty buckets
            split = max(split + delta, (np.floor(lowest / delta) + 1) * delta)
            params = {"dist": dist, "split": np.float32(split)}
            rest = keep_if(pile, "dist[v] >= split", params=params)
            far[: len(rest)] = rest.ids
            far_len.fill(len(rest))
            near = FrontierQueue(n, capacity, keep_if(pile, "dist[v] < split", params=params))
    return SSSPResult(
        "sssp", "cuda", t.seconds, phases, "near-far", {"delta": delta}, distance=dist
    )


def verify_sssp(G, source, distance, rtol=1e-6):
    """Compare with SciPy's Dijkstra (parallel arcs: minimum weight). Returns a list of problems."""
    from scipy.sparse.csgraph import dijkstra

    from ..transform import deduplicate

    # SciPy would sum parallel arcs; a path takes the lightest
    expect = dijkstra(deduplicate(G).to_scipy(), directed=True, indices=source)
    if not np.allclose(expect, distance, rtol=rtol, equal_nan=False):
        bad = int(np.flatnonzero(~np.isclose(expect, distance, rtol=rtol))[0])
        return [f"distance of {bad} is {distance[bad]}, Dijkstra says {expect[bad]}"]
    return []


_IMPLEMENTATIONS = {"cpu": _sssp_cpu, "cuda": _sssp_cuda}
