"""number_of_selfloops (networkx.classes.function): the graph's count, found once."""

from .._algorithm import algorithm


@algorithm
def number_of_selfloops(G):
    return G.graph.self_loops
