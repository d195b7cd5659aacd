"""The bucket width: its check, and the default from the weights and the shape of the graph."""

import numpy as np

from ...arguments import is_real
from ...errors import InvalidWeightError

#: most buckets a delta may ask for (largest weight / delta): a ring of them is allocated
MAX_BUCKETS = 2**20


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
    """Bucket width from the mean weight and the average degree.

    The GPU's is wider: a relaxation step there costs little next to each bucket's host round
    trips. Except on dense random graphs (no hubs, no local structure: urand): there a vertex has
    many in-arcs of like length, a wide bucket lowers it again and again, and a width of
    DENSE_DEGREE / degree mean weights pays. A geometric graph as dense (rgg) advances as a
    wavefront, and narrow buckets only add phases (docs/tuning.md, default_delta).

    Parameters
    ----------
    G : Graph
    device : {"cpu", "cuda"}, default "cpu"
        The path the width is for; anything but "cuda" gets the CPU's.

    Returns
    -------
    float
        The mean weight times max(1/32, 1 / average degree) for the CPU. For the GPU, times
        DENSE_DEGREE / average degree on graphs of average degree DENSE_DEGREE (24) or more whose
        largest out-degree is at most HUB_RATIO (8) times the average and whose sampled share of
        closed wedges is below LOCAL_CLUSTERING (0.1); else times max(8, 256 / average degree).
        1.0 on a graph without arcs. :func:`sssp` raises it to the largest weight / MAX_BUCKETS
        where that is wider.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.sssp import default_delta
    >>> G = gravel.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0])
    >>> default_delta(G)  # mean weight 2, average degree 1
    2.0
    >>> default_delta(G, "cuda")  # 2 * max(8, 256 / 1)
    512.0
    """
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
