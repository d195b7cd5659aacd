"""The graph NetworkX hands to gravel's functions: a :class:`gravel.Graph` and its node labels."""

import weakref
from functools import cached_property

import numpy as np

from ..graph import Graph
from ..interop import networkx_graph


class BackendGraph:
    """A NetworkX graph converted for gravel.

    Node ``labels[i]`` (any hashable) is gravel's vertex ``i``; ``graph`` holds the edges, with the
    weights of the one edge attribute the conversion read (or none). The NetworkX graph it came
    from is kept by weak reference, for functions that return a subgraph of it (``k_core``).
    """

    __networkx_backend__ = "gravel"

    def __init__(self, graph, labels, *, origin=None, exact_weights=True, attributes_left=False):
        self.graph = graph
        self.labels = labels
        self.exact_weights = exact_weights  # every weight held exactly as float32
        self.attributes_left = attributes_left
        self._origin = None if origin is None else weakref.ref(origin)

    # what NetworkX's decorators (not_implemented_for, argmap) ask of a graph
    def is_directed(self):
        return self.graph.directed

    def is_multigraph(self):
        return False

    def __len__(self):
        return len(self.labels)

    def __iter__(self):
        return iter(self.labels)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:  # unhashable
            return False

    @cached_property
    def index(self):
        """Label -> vertex id."""
        return {v: i for i, v in enumerate(self.labels)}

    def id_of(self, node, error):
        """The vertex id of `node`, or `error` raised (NetworkX's exception for the function)."""
        if node not in self:
            raise error
        return self.index[node]

    def to_dict(self, values, ids=None):
        """``{label: value}`` of per-vertex `values` (all vertices, or those of `ids`, in order)."""
        values = np.asarray(values)
        if ids is None:
            return dict(zip(self.labels, values.tolist()))
        return {self.labels[i]: x for i, x in zip(ids.tolist(), values[ids].tolist())}

    def labels_of(self, ids):
        """The labels of vertex ids, in order."""
        return [self.labels[i] for i in np.asarray(ids).tolist()]

    @cached_property
    def reverse(self):
        """The graph with every arc reversed, weights kept (itself when undirected)."""
        if not self.graph.directed:
            return self.graph
        src, dst = self.graph.edges()
        return Graph.from_edges(dst, src, self.graph.weights, n=self.graph.n)

    def origin(self):
        """The NetworkX graph this was converted from; NotImplementedError when it is gone."""
        g = None if self._origin is None else self._origin()
        if g is None:
            raise NotImplementedError("the NetworkX graph this graph came from is gone")
        return g

    def to_networkx(self):
        """A new ``nx.Graph`` / ``nx.DiGraph`` with the labels and the weights as ``"weight"``."""
        g = self.graph
        return networkx_graph(self.labels, *g.edges(), g.weights, directed=g.directed)

    def __repr__(self):
        return f"<gravel.nx.BackendGraph of {self.graph!r}>"
