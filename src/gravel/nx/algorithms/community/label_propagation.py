"""label_propagation_communities (networkx.algorithms.community.label_propagation).

gravel runs NetworkX's semi-synchronous method, with the same colouring, update order and initial
labels (each node's index in G), so its labels are NetworkX's; the communities come as NetworkX
returns them: the ``dict_values`` of a dict keyed by label, in order of each community's first node.
"""

import numpy as np

from gravel.algorithms import label_propagation_communities as gravel_lpa
from gravel.arrays import host

from ..._algorithm import algorithm, device


def _can_run(G):
    if G.is_directed():
        return "label propagation is not implemented for directed graphs"
    return True


@algorithm(can_run=_can_run)
def label_propagation_communities(G):
    clusters = {}
    if len(G):
        labels = host(gravel_lpa(G.graph, device=device(G.graph)).labels)
        _, first = np.unique(labels, return_index=True)
        for label in labels[np.sort(first)].tolist():
            clusters[label] = set()
        for node, label in zip(G.labels, labels.tolist()):
            clusters[label].add(node)
    return clusters.values()
