"""is_tree, is_forest, is_arborescence, is_branching (networkx.algorithms.tree.recognition).

A graph of n nodes, m edges and c (weakly) connected components is a forest when m == n - c (each
component holds at least its size less one edge), a tree when also c == 1. The edge count is read
first: only a graph with n - 1 edges or fewer needs gravel's connected components. Arborescences
and branchings are directed trees and forests whose in-degrees are at most 1.
"""

import networkx as nx
import numpy as np

from ..._algorithm import algorithm
from ..components.connected import component_labels


def _nodes(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return len(G)


def _components(G):
    return int(np.unique(component_labels(G)).size)


def _in_degrees_at_most_one(G):
    return int(G.graph.in_degree.max(initial=0)) <= 1


@algorithm
def is_tree(G):
    n = _nodes(G)
    return G.graph.m == n - 1 and _components(G) == 1


@algorithm
def is_forest(G):
    n = _nodes(G)
    return G.graph.m <= n - 1 and G.graph.m == n - _components(G)


@algorithm
def is_arborescence(G):
    return is_tree(G) and _in_degrees_at_most_one(G)


@algorithm
def is_branching(G):
    return is_forest(G) and _in_degrees_at_most_one(G)
