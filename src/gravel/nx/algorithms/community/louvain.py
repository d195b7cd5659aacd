"""louvain_communities and louvain_partitions (networkx.algorithms.community.louvain),
undirected graphs.

gravel shuffles the vertices with NumPy's generator, NetworkX with ``seed.shuffle``: for one seed
the two visit orders, hence the partitions, differ (their modularity is comparable). NetworkX's
``py_random_state`` runs before dispatch and hands the backend a ``random.Random``-like object
(``random``'s global one for ``seed=None``); gravel draws its int seed from it, so an int seed
gives one partition every time, and ``random.seed`` fixes the ``seed=None`` calls as in NetworkX.
``louvain_partitions`` yields each level's partition (:attr:`LouvainResult.partitions`), the
last refined as ``louvain_communities``' answer is; ``max_level`` takes the partition of that level.
"""

import math
import numbers

import numpy as np

from gravel.algorithms import louvain_communities as gravel_louvain
from gravel.arguments import is_integer, is_real
from gravel.arrays import host

from ..._algorithm import algorithm, device
from ..components.connected import components


def _can_run(G, weight, resolution, threshold, seed, max_level=None):
    if G.is_directed():
        return "directed Louvain (directed modularity) is not implemented in gravel"
    if max_level is not None and not is_integer(max_level):
        return f"gravel takes an integer max_level, not {max_level!r}"
    for name, x in (("resolution", resolution), ("threshold", threshold)):
        if not is_real(x) or not math.isfinite(x) or x < 0:
            return f"gravel takes a finite {name} >= 0, not {x!r}"
    if seed is not None and not is_real(seed) and not callable(getattr(seed, "random", None)):
        return f"gravel cannot draw a seed from a {type(seed).__name__}"
    return True


def gravel_seed(seed):
    """An int seed for gravel: an int as it is, else one drawn from NetworkX's random state (the
    same state gives the same int); None stays None."""
    if seed is None or isinstance(seed, numbers.Integral):
        return seed
    return int(seed.random() * 2**53)


def _partitions(G, weight, resolution, threshold, seed):
    """Each level's labels, over vertex ids, each community by its smallest id."""
    w = G.graph.weights
    if weight is not None and w is not None and not (np.isfinite(w).all() and (w >= 0).all()):
        # before the seed is drawn: NetworkX's own code then gets the caller's state untouched
        raise NotImplementedError("gravel's Louvain needs finite non-negative weights")
    return gravel_louvain(
        G.graph,
        weight=weight is not None,
        resolution=resolution,
        threshold=threshold,
        seed=gravel_seed(seed),
        device=device(G.graph),
    ).partitions


@algorithm(can_run=_can_run)
def louvain_communities(
    G, weight="weight", resolution=1, threshold=0.0000001, max_level=None, seed=None
):
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    levels = _partitions(G, weight, resolution, threshold, seed)
    labels = levels[-1] if max_level is None else levels[:max_level][-1]
    # each community is labelled by its smallest vertex id: by first node
    return list(components(G, host(labels)))


@algorithm(can_run=_can_run, large_items=True)
def louvain_partitions(G, weight="weight", resolution=1, threshold=0.0000001, seed=None):
    # run now, not at the first next(): a refusal (NotImplementedError) then reaches NetworkX's
    # dispatch, which runs its own generator (NetworkX's louvain_communities consumes this one)
    levels = _partitions(G, weight, resolution, threshold, seed)
    return (list(components(G, host(labels))) for labels in levels)
