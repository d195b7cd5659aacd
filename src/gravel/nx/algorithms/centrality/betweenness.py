"""betweenness_centrality and edge_betweenness_centrality
(networkx.algorithms.centrality.betweenness), unweighted.

gravel runs Brandes' algorithm from the same sources NetworkX samples (the same ``seed.sample``
call), and returns NetworkX's endpoint-excluded scaling. This module undoes that scaling to get
Brandes' raw sums, adds the endpoint terms when asked (each source reaches ``r(s)`` vertices:
``r(s) - 1`` on s, 1 on each vertex it reaches), and scales as NetworkX's ``_rescale`` does.
Edge scores come from the same run (``edges=True``), scaled by gravel as NetworkX scales them.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import betweenness_centrality as gravel_bc
from gravel.algorithms import bfs
from gravel.algorithms.betweenness import rescale_edges
from gravel.arrays import host

from ..._algorithm import algorithm, device
from ...convert import adjacency_lists
from ..components.connected import component_labels


def _can_run(G, k, normalized, weight, endpoints, seed):
    if weight is not None:
        return "weighted betweenness is not implemented in gravel"
    return True


def _raw(G, sources):
    """Brandes' sums over `sources` (ids, distinct), endpoints excluded, unscaled."""
    n, K = len(G), len(sources)
    r = gravel_bc(G.graph, sources=sources, normalized=False, device=device(G.graph))
    scaled = host(r.centrality)
    if n < 3:  # gravel leaves these unscaled, as NetworkX does
        return scaled
    # gravel scales a sample of K as N / ((K - 1) c) on sources and N / (K c) elsewhere
    c = 1 if G.is_directed() else 2
    raw = scaled * (K * c / (n - 1))
    raw[sources] = 0.0 if K == 1 else scaled[sources] * ((K - 1) * c / (n - 1))
    return raw


def _reached(G, sources):
    """How many sources reach each vertex (itself excluded), and each source's reach r(s)."""
    n = len(G)
    if not G.is_directed():
        labels = component_labels(G)
        size = np.bincount(labels, minlength=n)
        hits = np.bincount(labels[sources], minlength=n)
        by, reach = hits[labels].astype(float), size[labels[sources]]
        by[sources] -= 1
        return by, reach
    by, reach = np.zeros(n), np.empty(len(sources), np.int64)
    for i, s in enumerate(sources.tolist()):
        seen = host(bfs(G.graph, s, device=device(G.graph)).depth) >= 0
        by += seen
        reach[i] = seen.sum()
    by[sources] -= 1
    return by, reach


def _rescale(b, n, sources, normalized, directed, endpoints, sampled):
    """NetworkX's ``_rescale`` over an array."""
    N = n if endpoints else n - 1
    if N < 2:
        return b
    K = len(sources) if sampled else N
    c = 1 if directed else 2
    if not sampled or endpoints:
        return b * (1 / (K * (N - 1)) if normalized else N / (K * c))
    if normalized:
        on_source, elsewhere = (1 / ((K - 1) * (N - 1)) if K > 1 else np.nan), 1 / (K * (N - 1))
    else:
        on_source, elsewhere = (N / ((K - 1) * c) if K > 1 else np.nan), N / (K * c)
    out = b * elsewhere
    out[sources] = b[sources] * on_source
    return out


def _sources(G, k, seed):
    """All vertex ids (k None), or the k NetworkX samples with `seed` (the same call)."""
    if k is None:
        return np.arange(len(G), dtype=np.int32)
    picked = nx.utils.create_py_random_state(seed).sample(list(G.labels), k)
    return np.array([G.index[v] for v in picked], np.int32)


def scores(G, k=None, normalized=True, endpoints=False, seed=None):
    """NetworkX's unweighted betweenness_centrality of every vertex, as an array over the ids."""
    n = len(G)
    if k == n:
        k = None
    sources = _sources(G, k, seed)
    b = _raw(G, sources) if len(sources) else np.zeros(n)  # k=0: NetworkX's 0 / 0 below
    if endpoints and n:
        by, reach = _reached(G, sources)
        b += by
        b[sources] += reach - 1
    return _rescale(b, n, sources, normalized, G.is_directed(), endpoints, k is not None)


@algorithm(can_run=_can_run)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    return G.to_dict(scores(G, k, normalized, endpoints, seed))


def _can_run_edges(G, k, normalized, weight, seed):
    return _can_run(G, k, normalized, weight, False, seed)


def _edge_keys(G):
    """The arcs NetworkX keys, as their positions among gravel's arcs and their label pairs: an
    undirected edge once, from its first node in node order, as ``G.edges()`` gives them, and in
    its order while the NetworkX graph is at hand (each row in its adjacency's order; gravel's
    rows are sorted), else each row in node order."""
    src, dst = G.graph.edges()
    at, theirs = np.arange(len(dst)), _adjacency_order(G)
    if theirs is not None:  # gravel's k-th arc is NetworkX's order[k]: rows sorted by neighbour
        dst = theirs
        at[np.lexsort((dst, src))] = np.arange(len(dst))
    keep = slice(None) if G.is_directed() else src <= dst
    return at[keep], list(zip(G.labels_of(src[keep]), G.labels_of(dst[keep])))


def _adjacency_order(G):
    """Each arc's neighbour in the NetworkX graph's adjacency order (rows in node order), or None
    where that graph is gone or holds other edges now."""
    try:
        graph = G.origin()
    except NotImplementedError:
        return None
    if graph.number_of_edges() != G.graph.m or len(graph) != len(G):
        return None
    _, offsets, indices = adjacency_lists(graph, G.labels, G.index)
    return indices if np.array_equal(offsets, G.graph.offsets) else None


@algorithm(can_run=_can_run_edges)
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    n = len(G)
    sources = _sources(G, k, seed)
    at, keys = _edge_keys(G)
    if len(sources):  # gravel scales as a sample of len(sources): NetworkX's k, or n
        res = gravel_bc(
            G.graph, sources=sources, normalized=normalized, edges=True, device=device(G.graph)
        )
        arcs = host(res.edge_centrality)[at]
    else:  # k=0: NetworkX divides by 0
        arcs = rescale_edges(np.zeros(len(keys)), n, 0, normalized, G.is_directed())
    return dict(zip(keys, arcs.tolist()))
