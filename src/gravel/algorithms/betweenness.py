"""Betweenness centrality (Brandes 2001), unweighted shortest paths.

Each source runs a BFS that counts shortest paths (sigma), then accumulates dependencies in reverse
BFS order. Sources are split over CPU threads. Scaling follows
``networkx.betweenness_centrality(G, k, normalized, endpoints=False)`` exactly.
"""

from dataclasses import dataclass

import numba
import numpy as np

from ..arrays import xp
from ..backends.cpu import bc as _k
from ..errors import InvalidGraphError, VertexNotFoundError
from ._common import Result, Timer, choose_device, to_caller


@dataclass
class BCResult(Result):
    centrality: np.ndarray = None
    sources: np.ndarray = None


def betweenness_centrality(G, k=None, *, normalized=True, seed=None, sources=None, device="auto"):
    """Betweenness centrality of every vertex.

    Parameters
    ----------
    G : Graph
        Weights are ignored (hop counts).
    k : int, optional
        Use `k` sources sampled without replacement (with `seed`) instead of all n.
    normalized : bool, default True
        Divide by the number of ordered pairs, as NetworkX does.
    seed : int, optional
        Seed of the source sample.
    sources : array of int, optional
        Use exactly these sources (scaled as a sample of ``k = len(sources)``); overrides `k` and `seed`.
    device : {"auto", "cpu", "cuda"}

    Examples
    --------
    >>> import gravel
    >>> r = gravel.betweenness_centrality(gravel.generate.grid(1, 3), device="cpu")
    >>> r.centrality.tolist()
    [0.0, 1.0, 0.0]
    """
    dev = choose_device(device, _IMPLEMENTATIONS, "betweenness_centrality")
    n = G.n
    if sources is not None:
        sources = np.unique(np.asarray(sources))
        if sources.size and (sources.min() < 0 or sources.max() >= n):
            raise VertexNotFoundError(f"a source is not in the graph (ids 0..{n - 1})")
        sources, k = sources.astype(np.int32), len(sources)
    elif k is None:
        sources = np.arange(n, dtype=np.int32)
    else:
        if not 0 < k <= n:
            raise InvalidGraphError(f"k={k} sources, but the graph has {n} vertices")
        sources = np.random.default_rng(seed).choice(n, size=k, replace=False).astype(np.int32)
    internal = sources if G.order is None else G.order[sources]
    res = _IMPLEMENTATIONS[dev](G, internal)
    res.centrality = rescale(to_caller(G, res.centrality), n, xp(res.centrality).asarray(sources), k, normalized,
                             G.directed)
    res.sources = sources
    return res


def _bc_cpu(G, sources):
    threads = max(1, min(numba.get_num_threads(), len(sources)))
    with Timer() as t:
        raw = _k.brandes(G.offsets, G.indices, sources, threads) if G.n else np.zeros(0)
    return BCResult("betweenness_centrality", "cpu", t.seconds, len(sources), "brandes",
                    {"sources": len(sources)}, centrality=raw)


# Forward step of Brandes on the GPU: claim dst for the next level, and add src's path count to every
# dst on that level (the claimant and the later arrivals alike). A plain read skips the atomics for the
# many edges into earlier levels; otherwise the CAS's old value decides (a plain read could see a stale
# cached -1 after another thread's claim).
_VISIT = """
__device__ bool gravel_bc_visit(int* depth, double* sigma, int src, int dst, int level) {
    int seen = depth[dst];  // a stale read can only be -1: then the CAS decides
    if (seen != -1 && seen != level) return false;
    int old = atomicCAS(&depth[dst], -1, level);
    if (old == -1 || old == level) atomicAdd(&sigma[dst], sigma[src]);
    return old == -1;
}
"""


def _bc_cuda(G, sources):
    """Brandes per source on the operators: a forward BFS whose advance counts shortest paths (sigma)
    level by level, keeping every level's frontier in one queue; then, deepest level first, an advance
    over each level whose functor adds sigma[v] / sigma[w] * (1 + delta[w]) into delta[v] for successors
    w. On graphs without hubs (road graphs, meshes), levels go forward in multi-step launches and come
    back in one replay launch (on kron:22 they made a source 1.6x slower when a step gave each list to
    one block, and 4 sources still took 43.3 ms against 29.0 once steps spread long lists). A pull
    backward pass (neighbor_reduce over each level's out-edges, no atomics) was tried and measured
    slower on kron:22 (H200, 2026-11-26): 4 sources took 75.4 ms with it and 44.9-45.0 ms with the
    push (benchmarks/results/*kron22-run5*, *kron22.json)."""
    import cupy

    from ..frontier import FrontierQueue
    from ..operators import (THIN_BLOCKS_PER_SM, advance, advance_replay, advance_steps, compute, steps_fit,
                             steps_width)

    dg = G.to("cuda")
    n = G.n
    bc = cupy.zeros(n, cupy.float64)
    depth = cupy.empty(n, cupy.int32)
    sigma = cupy.empty(n, cupy.float64)
    delta = cupy.empty(n, cupy.float64)
    thin = steps_width(THIN_BLOCKS_PER_SM) if steps_fit(G) else 0
    visit = "gravel_bc_visit(depth, sigma, src, dst, level + step)"
    back = "depth[dst] == {} + 1 && (atomicAdd(&delta[src], sigma[src] / sigma[dst] * (1.0 + delta[dst])), false)"
    with Timer("cuda") as t:
        for s in sources.tolist():
            depth.fill(-1)
            sigma.fill(0)
            delta.fill(0)
            depth[s], sigma[s] = 0, 1
            levels = FrontierQueue(n, n, [s])  # segment i: the vertices at depth i
            while len(levels.last):
                params = {"depth": depth, "sigma": sigma, "level": np.int32(len(levels))}
                if len(levels.last) <= thin:
                    advance_steps(dg, levels, visit, params=params, blocks_per_sm=THIN_BLOCKS_PER_SM,
                                  preamble=_VISIT)
                else:
                    levels.push(advance(dg, levels.last, visit, params=params, capacity=levels.room,
                                        preamble=_VISIT))
            # segment L is the empty last one: dependencies flow from depth L - 1 back to depth 1
            params = {"depth": depth, "sigma": sigma, "delta": delta}
            if thin:
                advance_replay(dg, levels, back.format("step"), first=1, last=len(levels) - 2, reverse=True,
                               params=params, blocks_per_sm=THIN_BLOCKS_PER_SM)
            else:
                for lv in range(len(levels) - 3, 0, -1):
                    advance(dg, levels.segment(lv), back.format("level"), params=params | {"level": np.int32(lv)},
                            output=None)
            compute(None, "if (v != s && depth[v] >= 0) bc[v] += delta[v]",
                    params={"bc": bc, "depth": depth, "delta": delta, "s": np.int32(s)}, n=n)
    return BCResult("betweenness_centrality", "cuda", t.seconds, len(sources), "brandes",
                    {"sources": len(sources)}, centrality=bc)


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


_IMPLEMENTATIONS = {"cpu": _bc_cpu, "cuda": _bc_cuda}
