"""The result of betweenness centrality and NetworkX's scaling of its raw sums."""

from dataclasses import dataclass

import numpy as np

from ...results import Result


@dataclass
class BCResult(Result):
    """What :func:`betweenness_centrality` returns: ``centrality`` per vertex and the ``sources``
    used.

    Attributes
    ----------
    centrality : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids (a CuPy array from the GPU path).
    sources : numpy.ndarray
        int32 caller ids of the sources used, on the host.
    edge_centrality : numpy.ndarray or cupy.ndarray or None
        With ``edges=True``, float64 per arc of ``G.edges()``, in its order (an undirected edge's
        score on both of its arcs), scaled as ``networkx.edge_betweenness_centrality``; else None.
    stats : dict
        ``"sources"``: how many; on the GPU, how the work was split (``"batch"``, or
        ``"pulled_levels"`` and ``"scattered_levels"``).
    """

    vertex_arrays = ("centrality",)

    centrality: np.ndarray = None
    sources: np.ndarray = None
    edge_centrality: np.ndarray = None


def rescale(raw, n, sources, k, normalized, directed):
    """NetworkX's scaling of Brandes' raw sums, endpoints excluded
    (``networkx.algorithms.centrality.betweenness``).

    Parameters
    ----------
    raw : numpy.ndarray or cupy.ndarray
        float64 per vertex: the dependencies summed over the sources (an undirected graph's pairs
        counted both ways).
    n : int
        The graph's vertices.
    sources : numpy.ndarray or cupy.ndarray
        The sources' ids, in `raw`'s array module (read only where `k` is given).
    k : int or None
        How many sources were sampled; None where every vertex was a source.
    normalized : bool
        Divide by the number of ordered pairs, as NetworkX does.
    directed : bool
        Whether the graph is directed.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        The scaled centrality; `raw` itself where n < 3. With a sample, the sources' own values are
        scaled by k - 1 in place of k (NaN with a single source, 0 / 0).

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.algorithms.betweenness import rescale
    >>> rescale(np.array([0.0, 2.0, 0.0]), 3, None, None, True, False).tolist()  # path 0 - 1 - 2
    [0.0, 1.0, 0.0]
    """
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


def rescale_edges(raw, n, k, normalized, directed):
    """NetworkX's scaling of Brandes' raw sums per edge (``edge_betweenness_centrality``, which
    scales as its vertices' with endpoints counted).

    Parameters
    ----------
    raw : numpy.ndarray or cupy.ndarray
        float64 per edge: the dependencies summed over the sources (an undirected edge's two
        arcs added).
    n : int
        The graph's vertices.
    k : int or None
        How many sources were sampled; None where every vertex was a source.
    normalized : bool
        Divide by the number of ordered pairs, as NetworkX does.
    directed : bool
        Whether the graph is directed.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        The scaled scores; `raw` itself where n < 2.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.algorithms.betweenness import rescale_edges
    >>> rescale_edges(np.array([4.0, 4.0]), 3, None, True, False).tolist()  # path 0 - 1 - 2
    [0.6666666666666666, 0.6666666666666666]
    """
    if n < 2:
        return raw
    K = n if k is None else k
    return raw * (1 / (K * (n - 1)) if normalized else n / (K * (1 if directed else 2)))
