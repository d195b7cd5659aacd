"""The result of betweenness centrality and NetworkX's scaling of its raw sums."""

from dataclasses import dataclass

import numpy as np

from ...results import Result


@dataclass
class BCResult(Result):
    """What :func:`betweenness_centrality` returns: ``centrality`` per vertex and the ``sources``
    used."""

    vertex_arrays = ("centrality",)

    centrality: np.ndarray = None
    sources: np.ndarray = None


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
