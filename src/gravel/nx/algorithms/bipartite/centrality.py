"""bipartite_betweenness_centrality (networkx.algorithms.bipartite.centrality): gravel's
unweighted betweenness, each side divided by its largest possible value, as NetworkX does."""

import numpy as np

from ..._algorithm import algorithm
from ..centrality.betweenness import scores


def _largest(n, m):
    """The largest betweenness of a vertex on a side of `n` vertices facing `m` (NetworkX's)."""
    s, t = divmod(n - 1, m)
    return (m**2 * (s + 1) ** 2 + m * (s + 1) * (2 * t - s - 1) - t * (2 * s - t + 3)) / 2.0


@algorithm
def bipartite_betweenness_centrality(G, nodes):
    top = set(nodes)
    bottom = set(G) - top
    bet_max_top, bet_max_bot = _largest(len(top), len(bottom)), _largest(len(bottom), len(top))
    b = scores(G, normalized=False)
    for node in top:  # NetworkX's KeyError for a node of `nodes` that is not in G
        if node not in G:
            raise KeyError(node)
    if bet_max_top == 0 or bet_max_bot == 0:
        raise ZeroDivisionError("float division by zero")  # NetworkX's, dividing each side
    on_top = np.fromiter(map(top.__contains__, G.labels), bool, len(G))
    return G.to_dict(b / np.where(on_top, bet_max_top, bet_max_bot))
