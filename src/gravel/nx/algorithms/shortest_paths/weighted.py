"""single_source_dijkstra_path_length (networkx.algorithms.shortest_paths.weighted).

gravel's SSSP (delta-stepping) adds float32 weights in float64 on the CPU, so distances equal
NetworkX's where float32 holds every weight exactly; other weights run on NetworkX.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import sssp
from gravel.arrays import host
from gravel.errors import InvalidWeightError

from ..._algorithm import algorithm, device
from .unweighted import hop_lengths


def _can_run(G, source, cutoff, weight, **_):
    if callable(weight):
        return "weight functions are not supported by gravel"
    return True


def weighted_lengths(G, source, cutoff, weight):
    """``{label: distance}`` within `cutoff`, nearest first; hop counts when `weight` is None."""
    if weight is None:
        return hop_lengths(G, source, cutoff)
    s = G.id_of(source, nx.NodeNotFound(f"Node {source} not found in graph"))
    if not G.exact_weights:
        raise NotImplementedError("float32 does not hold these weights exactly")
    try:
        dist = host(sssp(G.graph, s, device=device()).distance)
    except InvalidWeightError as exc:
        raise NotImplementedError(str(exc)) from exc
    reached = np.isfinite(dist) if cutoff is None else dist <= cutoff
    ids = np.flatnonzero(reached)
    return G.to_dict(dist, ids[np.argsort(dist[ids], kind="stable")])


@algorithm(can_run=_can_run)
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    return weighted_lengths(G, source, cutoff, weight)
