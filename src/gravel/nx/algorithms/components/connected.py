"""connected_components and friends (networkx.algorithms.components.connected).

gravel labels each vertex with the smallest vertex id of its component, so sorting by label yields
the components in NetworkX's order (by their first node).
"""

import networkx as nx
import numpy as np

from gravel.algorithms import connected_components as gravel_cc
from gravel.arrays import host

from ..._algorithm import algorithm, device
from ..isolate import isolated


def component_labels(G):
    """Per vertex, the smallest vertex id of its (weakly) connected component."""
    return host(gravel_cc(G.graph, device=device(G.graph)).labels)


def components(G, labels):
    """Yield each component (vertices of one label) as a set of node labels, by first node."""
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    for ids in np.split(order, cuts) if len(G) else ():
        yield set(G.labels_of(ids))


@algorithm
def connected_components(G):
    yield from components(G, component_labels(G))


@algorithm
def number_connected_components(G):
    return int(np.unique(component_labels(G)).size)


def one_component(G, labels=component_labels, stranded=isolated):
    """Whether every vertex is in one component: of ``labels(G)`` (default: the (weakly)
    connected ones). A stranded vertex (``stranded(G, ids)``: bool per vertex of `ids`, default
    those without arcs either way), which shares a component with no other, answers False before
    any labelling; the first vertex is asked first, as NetworkX's search from the first node ends
    at once where that node is isolated."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    if len(G) > 1 and (stranded(G, 0) or np.any(stranded(G, slice(None)))):
        return False
    return bool(np.all(labels(G) == 0))


@algorithm
def is_connected(G):
    return one_component(G)


@algorithm
def node_connected_component(G, n):
    labels = component_labels(G)
    if n not in G:
        raise KeyError(n)
    return set(G.labels_of(np.flatnonzero(labels == labels[G.index[n]])))
