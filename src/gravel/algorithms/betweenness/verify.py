"""The verifier: Brandes written out with SciPy, level by level."""

import numpy as np

from ...dispatch import to_caller
from .result import rescale


def verify_betweenness(G, centrality, sources=None, *, normalized=True, rtol=1e-6):
    """Check centrality against Brandes written out with SciPy, level by level: sigma by sparse
    products over each level, dependencies back from the deepest level; parallel arcs count once
    (the simple graph's paths), as gravel's do.

    Parameters
    ----------
    G : Graph
    centrality : array_like
        The centrality of each vertex, over the caller's ids, on the host.
    sources : array_like, optional
        The sources' caller ids; every vertex if None (or if they are all of them).
    normalized : bool, default True
        Whether the run normalized, as :func:`betweenness_centrality` takes it.
    rtol : float, default 1e-6
        Relative tolerance: gravel's float64 sums meet the default; a peer's float32 sums over
        large graphs need a wider one.

    Returns
    -------
    list of str
        The first vertex whose centrality differs, as a sentence; empty if none does.
    """
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
            np.asarray(centrality, np.float64), expect, rtol=rtol, atol=1e-12, equal_nan=True
        )
    )
    if not wrong.size:
        return []
    v = int(wrong[0])
    return [f"vertex {v}: centrality {float(centrality[v]):.9g}, expected {float(expect[v]):.9g}"]
