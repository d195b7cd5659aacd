"""complement (networkx.algorithms.operators.unary).

The complement's edges are the zeros of the dense adjacency matrix off its diagonal, found with
NumPy in node order, as NetworkX adds them (so its adjacency has NetworkX's order). The matrix
holds n * n booleans: graphs of more than MAX_NODES nodes run on NetworkX.
"""

import numpy as np

from ..._algorithm import algorithm

#: the most nodes whose dense n x n boolean matrix gravel builds (25 MB)
MAX_NODES = 5_000


def _can_run(G):
    if len(G) > MAX_NODES:
        return f"gravel's complement builds an n x n matrix: at most {MAX_NODES} nodes"
    return True


@algorithm(can_run=_can_run)
def complement(G):
    graph, n = G.graph, len(G)
    absent = np.ones((n, n), bool)
    absent[np.repeat(np.arange(n), np.diff(graph.offsets)), graph.indices] = False
    np.fill_diagonal(absent, False)
    if not graph.directed:
        absent = np.triu(absent)
    u, v = np.nonzero(absent)
    R = G.origin().__class__()
    R.add_nodes_from(G.labels)
    R.add_edges_from(zip(G.labels_of(u), G.labels_of(v)))
    return R
