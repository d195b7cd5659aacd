"""single_source_shortest_path_length (networkx.algorithms.shortest_paths.unweighted)."""

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.arrays import host

from ..._algorithm import algorithm, device


def hop_lengths(G, source, cutoff):
    """``{label: hops}`` of the vertices within `cutoff` hops, nearest first (NetworkX's order).
    NetworkX walks a level while `cutoff` exceeds the one before: a fractional cutoff reaches the
    next whole level, and the source is always in."""
    s = G.id_of(source, nx.NodeNotFound(f"Source {source} is not in G"))
    depth = host(bfs(G.graph, s, device=device()).depth)
    reached = depth >= 0
    if cutoff is not None:
        reached &= (depth < cutoff + 1) | (depth == 0)
    ids = np.flatnonzero(reached)
    return G.to_dict(depth, ids[np.argsort(depth[ids], kind="stable")])


@algorithm
def single_source_shortest_path_length(G, source, cutoff=None):
    return hop_lengths(G, source, cutoff)
