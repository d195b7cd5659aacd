"""greedy_color (networkx.algorithms.coloring.greedy_coloring), strategy "largest_first".

gravel's Jones-Plassmann colouring with ties between equal degrees broken by node order gives the
colours of NetworkX's sequential largest-first colouring; the dict lists the nodes in that order
(degree, largest first, ties in G's order), as NetworkX's does.
"""

import numpy as np

from gravel.algorithms import greedy_color as gravel_greedy_color
from gravel.arrays import host
from gravel.dispatch import to_caller

from ..._algorithm import algorithm, device


def _can_run(G, strategy, interchange):
    if G.is_directed():
        return "gravel colours a directed graph as undirected; NetworkX reads successors only"
    if not (isinstance(strategy, str) and strategy == "largest_first"):
        return f"gravel implements strategy 'largest_first' only, not {strategy!r}"
    if interchange:
        return "interchange is not implemented in gravel"
    return True


@algorithm(can_run=_can_run)
def greedy_color(G, strategy="largest_first", interchange=False):
    if len(G) == 0:
        return {}
    g = G.graph
    ids = np.arange(g.n, dtype=np.int32)
    degree = to_caller(g, g.out_degree + g.has_arcs(ids, ids))  # a self loop counts 2
    order = np.argsort(-degree.astype(np.int64), kind="stable")
    return G.to_dict(host(gravel_greedy_color(g, device=device(g)).colors), order)
