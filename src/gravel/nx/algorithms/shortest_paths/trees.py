"""Shortest-path trees from one vertex, as the backend's path functions read them.

Unit weights (``weight=None``, or every weight 1) take the BFS tree in NetworkX's discovery order
(traversal/breadth_first_search.py): NetworkX's Dijkstra and Bellman-Ford settle unit weights in
that same order, so the paths are NetworkX's, with int lengths. Other weights take gravel.sssp
(non-negative, NetworkX's Dijkstra) or gravel.bellman_ford (any sign), whose distances are sums of
float32 weights in float64: NetworkX's own where float32 holds every weight exactly; other weights
run on NetworkX. Dijkstra's paths replay NetworkX's heap on the host, so that of several tied
paths they keep NetworkX's; Bellman-Ford's take any one.
"""

from dataclasses import dataclass

import networkx as nx
import numpy as np

from gravel.algorithms import bellman_ford, sssp
from gravel.arrays import host
from gravel.backends.cpu import networkx_order
from gravel.dispatch import choose_device
from gravel.errors import NegativeCycleError

from ..._algorithm import device
from ..traversal.breadth_first_search import discovery

#: float32 sums of whole weights are exact below this (the GPU's SSSP holds float32 distances)
EXACT_FLOAT32_SUMS = 2**24


@dataclass
class Tree:
    """Vertices reached from a root: `ids` in the order NetworkX lists them, their distances
    `lengths` (Python numbers, as `ids`), and `pred`, each vertex's tree parent (-1: root or
    unreached), or None for lengths only."""

    ids: np.ndarray
    lengths: list
    pred: np.ndarray

    def lengths_dict(self, G):
        """``{label: length}`` in order."""
        return dict(zip(G.labels_of(self.ids), self.lengths))

    def paths(self, G, towards_root=False):
        """``{label: path}`` in order: from the root, or to it where `towards_root`."""
        labels, pred = G.labels, self.pred.tolist()
        known = [None] * len(pred)  # each vertex's path, by id
        out = {}
        for v in self.ids.tolist():
            p = pred[v]
            if p < 0:
                path = [labels[v]]
            else:
                if known[p] is None:  # a parent listed later (zero or negative weights)
                    self._walk_up(labels, pred, known, p, towards_root)
                path = [labels[v], *known[p]] if towards_root else known[p] + [labels[v]]
            known[v] = out[labels[v]] = path
        return out

    @staticmethod
    def _walk_up(labels, pred, known, p, towards_root):
        """The paths of `p` and of its ancestors not yet `known`."""
        chain = []
        while known[p] is None and pred[p] >= 0:
            chain.append(p)
            p = pred[p]
        if known[p] is None:
            known[p] = [labels[p]]
        for x in reversed(chain):
            up = known[pred[x]]
            known[x] = [labels[x], *up] if towards_root else up + [labels[x]]

    def _position(self, G, target):
        """Where `target` (a label) is in `ids`; None where the tree does not reach it."""
        at = np.flatnonzero(self.ids == G.index[target]) if target in G else ()
        return int(at[0]) if len(at) else None

    def length_to(self, G, target):
        """The length to `target` (a label), None where the tree does not reach it."""
        i = self._position(G, target)
        return None if i is None else self.lengths[i]

    def to(self, G, target):
        """(length, path) to `target` (a label), None where the tree does not reach it."""
        i = self._position(G, target)
        if i is None:
            return None
        path = [int(self.ids[i])]
        while self.pred[path[-1]] >= 0:
            path.append(int(self.pred[path[-1]]))
        return self.lengths[i], G.labels_of(path[::-1])


def unit_weights(G, weight):
    """Whether the call's weights are all 1 (``weight=None`` or every weight 1)."""
    g = G.graph
    return weight is None or not g.weighted or g.nnz == 0 or g.weight_stats[:2] == (1, 1)


def check_weights(G, method="dijkstra"):
    """Raise NotImplementedError (NetworkX then runs the call) for weights gravel cannot take as
    NetworkX does: not held exactly by float32, NaN or infinite, or negative for Dijkstra.

    Parameters
    ----------
    G : BackendGraph
    method : {"dijkstra", "bellman-ford"}

    Raises
    ------
    NotImplementedError
        Says which.
    """
    if not G.exact_weights:
        raise NotImplementedError("float32 does not hold these weights exactly")
    if not G.graph.weighted or not G.graph.nnz:
        return
    lo, hi, _ = G.graph.weight_stats
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise NotImplementedError("gravel takes finite weights only")
    if lo < 0 and method != "bellman-ford":
        raise NotImplementedError("gravel's Dijkstra takes non-negative weights only")


def hop_tree(G, s, reverse=False, cutoff=None):
    """The BFS tree of vertex id `s` within `cutoff` hops, in NetworkX's discovery order."""
    ids, parents, depths = discovery(G, [s], reverse, cutoff)
    pred = np.full(G.graph.n, -1, np.int64)
    pred[ids] = parents
    return Tree(ids, depths.tolist(), pred)


def shortest_tree(G, s, weight, method="dijkstra", reverse=False, cutoff=None, ordered=True):
    """The shortest-path tree of vertex id `s`, nearest first.

    Parameters
    ----------
    G : BackendGraph
    s : int
        The root's vertex id.
    weight : str or None
        The call's ``weight``; None or unit weights take :func:`hop_tree`.
    method : {"dijkstra", "bellman-ford"}
        Dijkstra refuses negative weights (NetworkX then runs); Bellman-Ford takes them.
    reverse : bool, default False
        Paths into `s` (a directed graph's arcs reversed).
    cutoff : float, optional
        Leave out vertices farther than this (Dijkstra's ``cutoff``).
    ordered : bool, default True
        Dijkstra's paths as NetworkX's own: its heap replayed on the host
        (backends/cpu/networkx_order.py), which keeps the same one of several tied paths and
        lists the vertices as NetworkX settles them; else gravel.sssp on the call's device,
        for lengths only: the tree's `pred` is None (no predecessor pass on the GPU).

    Returns
    -------
    Tree

    Raises
    ------
    NotImplementedError
        Weights float32 does not hold exactly, or that the method cannot take: NetworkX runs.
    networkx.NetworkXUnbounded
        Bellman-Ford found a negative cycle reachable from `s`.
    """
    if unit_weights(G, weight):
        if cutoff is not None:
            cutoff = max(np.floor(cutoff), 0)  # the hops of a length <= cutoff; the root always
        return hop_tree(G, s, reverse, cutoff)
    check_weights(G, method)
    graph = G.reverse if reverse else G.graph
    if ordered and method == "dijkstra":
        return _settled(graph, s, cutoff)
    try:
        if method == "bellman-ford":
            r = bellman_ford(graph, s, device=device(graph))
        else:
            r = sssp(graph, s, predecessors=False, device=exact_sssp_device(graph))
    except NegativeCycleError as exc:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from exc
    dist = host(r.distance).astype(np.float64)
    reached = np.isfinite(dist) if cutoff is None else dist <= cutoff
    ids = np.flatnonzero(reached)
    ids = ids[np.argsort(dist[ids], kind="stable")]
    pred = None if r.predecessor is None else host(r.predecessor).astype(np.int64)
    return Tree(ids, dist[ids].tolist(), pred)


def exact_sssp_device(graph):
    """The call's device for SSSP, but the CPU (float64 sums) where the GPU's float32 distances
    could round: weights that are not whole, or paths that may pass EXACT_FLOAT32_SUMS.

    Parameters
    ----------
    graph : gravel.Graph
        The weighted graph the SSSP reads.

    Returns
    -------
    str
        "cpu" or "cuda".

    Raises
    ------
    DeviceUnavailableError
        The backend's device is "cuda" and no GPU is usable.
    """
    dev = choose_device(device(graph), ("cpu", "cuda"), "sssp")
    exact = graph.whole_weights and graph.n * graph.weight_stats[1] < EXACT_FLOAT32_SUMS
    return dev if exact else "cpu"


def _settled(graph, s, cutoff):
    """NetworkX's Dijkstra from `s`: the tree of the vertices in the order it settles them."""
    dist, pred = np.full(graph.n, np.inf), np.full(graph.n, -1, np.int64)
    limit = np.inf if cutoff is None else float(cutoff)
    ids = networkx_order.dijkstra(graph.offsets, graph.indices, graph.weights, s, limit, dist, pred)
    return Tree(ids, dist[ids].tolist(), pred)
