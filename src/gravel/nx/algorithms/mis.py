"""maximal_independent_set (networkx.algorithms.mis).

gravel's greedy set in a random priority order (:func:`gravel.maximal_independent_set`), the
required `nodes` given the first priorities. NetworkX draws each member with ``seed.choice`` over
a set in Python's hashing order; gravel ranks the vertices by a NumPy permutation whose seed it
draws from NetworkX's random state (as Louvain does): both sets are maximal and independent, and
both contain `nodes`, but for one seed they differ. The list holds `nodes` first (as NetworkX
lists them), then the other members in priority order, the order a sequential greedy draw adds
them. NetworkX raises NetworkXUnfeasible when its random first member has a self loop; gravel
ignores self loops (a member may have one, as in NetworkX's later draws).
"""

import networkx as nx
import numpy as np

from gravel.algorithms import maximal_independent_set as gravel_mis
from gravel.arguments import is_real
from gravel.arrays import host

from .._algorithm import algorithm, device
from .community.louvain import gravel_seed


def _can_run(G, nodes, seed):
    if seed is not None and not is_real(seed) and not callable(getattr(seed, "random", None)):
        return f"gravel cannot draw a seed from a {type(seed).__name__}"
    return True


@algorithm(can_run=_can_run)
def maximal_independent_set(G, nodes=None, seed=None):
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if len(G) == 0 and not nodes:
        raise IndexError("Cannot choose from an empty sequence")
    required = None
    if nodes:
        required = set(nodes)
        if not all(v in G for v in required):
            raise nx.NetworkXUnfeasible(f"{required} is not a subset of the nodes of G")
        ids = np.array([G.index[v] for v in required], np.int64)
        graph = G.graph
        mark = np.zeros(graph.n, bool)
        mark[ids] = True
        rows = np.repeat(mark, np.diff(graph.offsets))
        if np.any(mark[graph.indices[rows]]):  # a self loop too, as NetworkX's neighbour sets
            raise nx.NetworkXUnfeasible(f"{required} is not an independent set of G")
        required = list(required)
    r = gravel_mis(
        G.graph,
        nodes=None if required is None else ids,
        seed=gravel_seed(seed),
        device=device(G.graph),
    )
    in_set = host(r.in_set).copy()
    if required is None:
        required = []
    else:
        in_set[ids] = False
    rest = np.flatnonzero(in_set)
    return required + G.labels_of(rest[np.argsort(r.priority[rest])])
