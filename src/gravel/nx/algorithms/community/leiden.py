"""leiden_communities and leiden_partitions (networkx.algorithms.community.leiden), undirected
graphs: NetworkX declares both and leaves them to backends (it has no code of its own to fall
back to).

gravel runs :func:`gravel.leiden_communities` (its defaults: two runs of Leiden, theta 0.01), whose
result holds each level's partition too: ``leiden_partitions`` yields them, from one run, so
``leiden_communities(G, max_level=L, seed=s)`` is the L-th partition ``leiden_partitions(G,
seed=s)`` yields. Seeds are taken as the Louvain wrapper takes them: an int seed gives one
partition every time, and ``random.seed`` fixes the ``seed=None`` calls.
"""

import math
import numbers

import numpy as np

from gravel.algorithms import leiden_communities as gravel_leiden
from gravel.arguments import is_real

from ..._algorithm import algorithm, device
from ..components.connected import components
from .louvain import gravel_seed


def _can_run(G, weight="weight", resolution=1, max_level=None, seed=None):
    if G.is_directed():
        return "directed Leiden (directed modularity) is not implemented in gravel"
    if not is_real(resolution) or not math.isfinite(resolution) or resolution < 0:
        return f"gravel takes a finite resolution >= 0, not {resolution!r}"
    if seed is not None and not is_real(seed) and not callable(getattr(seed, "random", None)):
        return f"gravel cannot draw a seed from a {type(seed).__name__}"
    return True


def _levels(G, weight, resolution, seed, max_level=None):
    """gravel's Leiden on the converted graph: its result (labels by smallest vertex id)."""
    w = G.graph.weights
    if weight is not None and w is not None and not (np.isfinite(w).all() and (w >= 0).all()):
        # before the seed is drawn: the caller's random state stays untouched
        raise NotImplementedError("gravel's Leiden needs finite non-negative weights")
    return gravel_leiden(
        G.graph,
        weight=weight is not None,
        resolution=resolution,
        max_level=max_level,
        seed=gravel_seed(seed),
        device=device(G.graph),
    )


@algorithm(can_run=_can_run)
def leiden_communities(G, weight="weight", resolution=1, max_level=None, seed=None):
    if max_level is not None:
        if max_level <= 0:
            raise ValueError("max_level argument must be a positive integer or None")
        if not isinstance(max_level, numbers.Integral):  # as NetworkX's islice refuses it
            raise ValueError(
                "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
            )
    labels = _levels(G, weight, resolution, seed, max_level=max_level).labels
    # each community is labelled by its smallest vertex id: by first node
    return list(components(G, labels))


@algorithm(can_run=_can_run, large_items=True)
def leiden_partitions(G, weight="weight", resolution=1, seed=None):
    kept = _levels(G, weight, resolution, seed).partitions
    return (list(components(G, labels)) for labels in kept)
