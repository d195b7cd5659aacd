"""Betweenness centrality (Brandes 2001), unweighted shortest paths.

Each source runs a BFS that counts shortest paths (sigma), then accumulates dependencies in reverse
BFS order. Sources are split over CPU threads. Scaling follows
``networkx.betweenness_centrality(G, k, normalized, endpoints=False)`` exactly.
"""

from dataclasses import dataclass

import numba
import numpy as np

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
    choose_device(device, _IMPLEMENTATIONS, "betweenness_centrality")
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
    res = _bc_cpu(G, internal)
    res.centrality = rescale(to_caller(G, res.centrality), n, sources, k, normalized, G.directed)
    res.sources = sources
    return res


def _bc_cpu(G, sources):
    threads = max(1, min(numba.get_num_threads(), len(sources)))
    with Timer() as t:
        raw = _k.brandes(G.offsets, G.indices, sources, threads) if G.n else np.zeros(0)
    return BCResult("betweenness_centrality", "cpu", t.seconds, len(sources), "brandes",
                    {"sources": len(sources)}, centrality=raw)


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


_IMPLEMENTATIONS = {"cpu": _bc_cpu}
