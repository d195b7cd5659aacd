"""closeness_centrality (networkx.algorithms.centrality.closeness), exact.

gravel's closeness reads the distances into each vertex, as NetworkX's (which reverses a directed
graph first): BFS per vertex, or gravel's SSSP where `distance` names the weights, which must be
numbers float32 holds exactly (others run on NetworkX), on the GPU only where its float32 path
sums are exact too (whole weights whose paths stay below 2**24, as for the Dijkstra lengths).
"""

import networkx as nx
import numpy as np

from gravel.algorithms import closeness_centrality as gravel_closeness
from gravel.arrays import host
from gravel.errors import InvalidWeightError

from ..._algorithm import algorithm, device
from ..shortest_paths.trees import exact_sssp_device


def _can_run(G, u, distance, wf_improved):
    if callable(distance):
        return "distance functions are not supported by gravel"
    return True


@algorithm(can_run=_can_run)
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    if distance is not None and not G.exact_weights:
        raise NotImplementedError("float32 does not hold these weights exactly")
    sources = None
    if u is not None:
        sources = np.array([G.id_of(u, nx.NodeNotFound(f"Source {u} is not in G"))])
    try:
        c = gravel_closeness(
            G.graph,
            sources,
            weight=distance is not None,
            wf_improved=bool(wf_improved),
            # with weights, the GPU only where its float32 sums are exact, as for Dijkstra
            device=device(G.graph) if distance is None else exact_sssp_device(G.graph),
        ).closeness
    except InvalidWeightError as exc:
        raise NotImplementedError(str(exc)) from exc
    c = host(c)
    return float(c[sources[0]]) if u is not None else G.to_dict(c)
