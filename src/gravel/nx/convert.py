"""NetworkX graphs to :class:`BackendGraph` and back (NetworkX caches the conversion)."""

from itertools import chain
from operator import methodcaller

import networkx as nx
import numpy as np

from ..graph import Graph
from .graph import BackendGraph


def require_networkx(graph):
    """Refuse, with a TypeError that says what to pass, a graph argument the backend cannot take.

    NetworkX hands gravel's functions (and their ``can_run``) any graph argument that names no
    backend, a :class:`gravel.Graph` included, which has none of NetworkX's methods.

    Parameters
    ----------
    graph : object
        The graph argument of a NetworkX call.

    Raises
    ------
    TypeError
        `graph` is a :class:`gravel.Graph` (the message names ``G.to_networkx()`` and gravel's own
        functions), or neither a NetworkX graph nor a converted one (a BackendGraph).
    """
    if isinstance(graph, Graph):
        raise TypeError(
            "NetworkX's functions take a NetworkX graph, not a gravel.Graph: call gravel's own "
            "function (gravel.pagerank(G), say), or pass G.to_networkx() to NetworkX"
        )
    if not isinstance(graph, (nx.Graph, BackendGraph)):
        raise TypeError(
            f"the gravel backend takes a NetworkX graph, not a {type(graph).__module__}."
            f"{type(graph).__qualname__}"
        )


def from_networkx(graph, edge_attrs=None, *, attributes_left=False):
    """Convert a NetworkX graph; `edge_attrs` is NetworkX's ``{attribute: default}`` (at most one).

    The lists are read straight from the adjacency (``graph._adj``, as NetworkX's own converters
    read it), each row in its dict's order and sorted after: C-level iteration over the dicts into
    NumPy, no tuple per edge and no edge list to symmetrise, since an undirected graph's adjacency
    holds every edge both ways already. Node labels 0..n-1 in node order are the ids themselves.

    Raises NotImplementedError (NetworkX then falls back to its own code) for multigraphs,
    several edge attributes, and weights that are not real numbers; TypeError for what is no
    NetworkX graph (:func:`require_networkx`). Other attributes stay with
    the NetworkX graph, which the result keeps a weak reference to.
    """
    require_networkx(graph)
    if graph.is_multigraph():
        raise NotImplementedError("gravel does not hold multigraphs")
    if edge_attrs and len(edge_attrs) > 1:
        raise NotImplementedError("gravel holds one numeric edge attribute at most")
    labels = list(graph)
    rows, offsets, indices = adjacency_lists(graph, labels)
    nnz = int(offsets[-1])
    attr, default = next(iter(edge_attrs.items())) if edge_attrs else (None, None)
    weights, exact = None, True
    if attr:
        data = _edge_data(rows)
        try:
            weights = np.fromiter(map(methodcaller("get", attr, default), data), np.float64, nnz)
        except (TypeError, ValueError) as exc:
            raise NotImplementedError(f"edge attribute {attr!r} holds non-numbers") from exc
        exact = bool(np.array_equal(weights.astype(np.float32), weights, equal_nan=True))
    # NetworkX's adjacency holds an undirected edge both ways: no mirror check needed
    G = Graph.from_csr(
        offsets, indices, weights, directed=graph.is_directed(), trusted=True, sorted_rows=False
    )
    return BackendGraph(
        G, labels, origin=graph, exact_weights=exact, attributes_left=attributes_left
    )


#: the key under which a NetworkX graph's ``__networkx_cache__`` keeps with_attribute's
#: conversions, by attribute (NetworkX clears that cache when the graph changes)
ATTRIBUTE_CACHE = "gravel:attributes"


def with_attribute(G, weight):
    """`G`, or where its conversion left the edge attributes with the caller's graph (a call for
    which NetworkX keeps them all, of a function that reads the one it needs), that graph converted
    with `weight` (default 1, as NetworkX's functions read it; none where `weight` is None).

    NetworkX caches the partial conversion as holding every attribute and would hand it to later
    calls for any of them: it is taken back out of the caller's graph's cache here. The conversion
    with `weight` is kept in that cache under ATTRIBUTE_CACHE (where NetworkX caches conversions),
    which NetworkX clears when the graph changes.

    Parameters
    ----------
    G : BackendGraph
    weight : str or None
        The edge attribute the function reads.

    Returns
    -------
    BackendGraph
    """
    if not G.attributes_left:
        return G
    origin = G.origin()
    attrs = None if weight is None else {weight: 1}
    cache = getattr(origin, "__networkx_cache__", None)
    if cache is None:
        return from_networkx(origin, attrs)
    converted = cache.get("backends", {}).get("gravel", {})
    for key in [k for k, v in converted.items() if v is G]:
        del converted[key]
    if not nx.config.cache_converted_graphs:
        return from_networkx(origin, attrs)
    kept = cache.setdefault(ATTRIBUTE_CACHE, {})
    if weight not in kept:
        kept[weight] = from_networkx(origin, attrs)
    return kept[weight]


def adjacency_lists(graph, labels, index=None):
    """A NetworkX graph's adjacency as CSR arrays, each row in its dict's order (unsorted).

    Parameters
    ----------
    graph : networkx.Graph or networkx.DiGraph
    labels : list
        The nodes, in the order of the rows (``list(graph)``).
    index : dict, optional
        Node -> id, where the caller has it already (built here unless the nodes are 0..n-1).

    Returns
    -------
    rows : list of dict
        Each node's adjacency row.
    offsets : numpy.ndarray of int64
        n + 1 row offsets.
    indices : numpy.ndarray of int64
        The neighbours' ids, row by row in each row's order.
    """
    n, rows = len(labels), list(map(graph._adj.__getitem__, labels))  # each node's row, in order
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.fromiter(map(len, rows), np.int64, n), out=offsets[1:])
    neighbours = chain.from_iterable(rows)
    if not _numbered(labels):
        index = {v: i for i, v in enumerate(labels)} if index is None else index
        neighbours = map(index.__getitem__, neighbours)
    return rows, offsets, np.fromiter(neighbours, np.int64, int(offsets[-1]))


def _edge_data(rows):
    """Each edge's attribute dict, row by row, from adjacency rows (dicts of neighbour: data)."""
    return chain.from_iterable(map(methodcaller("values"), rows))


def edges_hold_data(graph):
    """Whether any edge of the NetworkX graph `graph` has an attribute."""
    return any(map(len, _edge_data(graph._adj.values())))


def _numbered(labels):
    """Whether the node labels are the ints 0..n-1 in order (then each is its own id)."""
    return all(type(v) is int for v in labels) and labels == list(range(len(labels)))


def to_networkx(obj):
    """A :class:`BackendGraph` as a NetworkX graph; anything else unchanged."""
    return obj.to_networkx() if isinstance(obj, BackendGraph) else obj
