"""jaccard_coefficient, adamic_adar_index, resource_allocation_index, preferential_attachment,
common_neighbor_centrality (networkx.algorithms.link_prediction).

Each yields ``(u, v, score)`` in NetworkX's order: that of `ebunch`, or by default that of
``nx.non_edges`` (Python's set order, replayed on the node labels). Pairs are scored in batches
of BATCH: their common neighbours counted at once by :func:`gravel.algorithms.link_prediction.
neighbor_sums` on the simple graph, then corrected for self loops as NetworkX's sets see them (a
node with a self loop is its own neighbour, and its degree counts the loop twice).
"""

from itertools import repeat

import networkx as nx
import numpy as np

from gravel.algorithms import bfs
from gravel.algorithms.link_prediction import neighbor_sums
from gravel.arrays import host

from .._algorithm import algorithm, device

#: pairs scored at once: the default, every non-edge, is quadratic, so it streams
BATCH = 1 << 16


def _non_edges(G):
    """``nx.non_edges(G)`` of an undirected graph, in its order, as batches of label lists."""
    off, idx = G.graph.offsets, G.graph.indices
    nodes = set(G.labels)
    us, vs = [], []
    while nodes:
        u = nodes.pop()
        i = G.index[u]
        rest = nodes - set(G.labels_of(idx[off[i] : off[i + 1]]))
        us.extend(repeat(u, len(rest)))
        vs.extend(rest)
        if len(us) >= BATCH:
            yield us, vs
            us, vs = [], []
    if us:
        yield us, vs


def _given(G, ebunch):
    """`ebunch` as one batch, its nodes checked now, as NetworkX checks them before yielding."""
    us, vs = [], []
    for u, v in ebunch:
        if u not in G:
            raise nx.NodeNotFound(f"Node {u} not in G.")
        if v not in G:
            raise nx.NodeNotFound(f"Node {v} not in G.")
        us.append(u)
        vs.append(v)
    if iter(ebunch) is ebunch:  # NetworkX's check consumed it: its generator then yields nothing
        return []
    return [(us, vs)] if us else []


def _predict(G, ebunch, score):
    """NetworkX's ``_apply_prediction``: ebunch checked now, then a generator of (u, v, score).

    ``score(i, j)`` takes the id arrays of a batch and returns its scores (a list) and the first
    failure, ``(position, exception)`` or None: the pairs before it are yielded, then it raises.
    """
    batches = _non_edges(G) if ebunch is None else _given(G, ebunch)
    return _stream(G, batches, score)


def _stream(G, batches, score):
    for us, vs in batches:
        ids = [np.fromiter(map(G.index.__getitem__, w), np.int64, len(w)) for w in (us, vs)]
        values, failure = score(*ids)
        stop = len(us) if failure is None else failure[0]
        yield from zip(us[:stop], vs[:stop], values[:stop])
        if failure is not None:
            raise failure[1]


class _Scorer:
    """What every score of G reads: the simple graph, NetworkX's degrees and the self loops."""

    def __init__(self, G):
        self.graph = G.graph
        self.simple = G.graph.simple_undirected()
        ids = np.arange(G.graph.n)
        self.loop = G.graph.has_arcs(ids, ids).astype(np.int64)
        self.degree = self.simple.out_degree.astype(np.int64) + 2 * self.loop  # G.degree

    def common(self, i, j, weights=None):
        """|N(u) ∩ N(v) - {u, v}| per pair (NetworkX's common_neighbors), and the sums of
        per-node `weights` over them."""
        counts, sums = neighbor_sums(self.simple, i, j, weights, device=device(self.simple))
        return host(counts), (None if sums is None else host(sums))


def _with_int_zeros(values, zero):
    """The scores as a list, the int 0 where `zero` (NetworkX returns ``0`` or an empty
    ``sum``)."""
    out = values.astype(object)
    out[zero] = 0
    return out.tolist()


@algorithm
def jaccard_coefficient(G, ebunch=None):
    s = _Scorer(G)

    def score(i, j):
        c, _ = s.common(i, j)
        d = s.simple.out_degree
        union = d[i].astype(np.int64) + d[j] - c
        if s.graph.self_loops:  # a looped node is in its own set, and so in the union
            apart = ~s.graph.has_arcs(i, j)
            union += np.where(i == j, s.loop[i], (s.loop[i] + s.loop[j]) * apart)
        return _with_int_zeros(c / np.maximum(union, 1), union == 0), None

    return _predict(G, ebunch, score)


def _degree_sums(G, term):
    """The score sum over common neighbours w of ``term(G.degree(w))``; ZeroDivisionError at a
    pair where a term divides by zero, as NetworkX's."""
    s = _Scorer(G)
    with np.errstate(divide="ignore"):
        weights = 1 / term(s.degree.astype(np.float64))

    def score(i, j):
        c, sums = s.common(i, j, weights)
        bad = np.flatnonzero(~np.isfinite(sums))
        failure = (int(bad[0]), ZeroDivisionError("float division by zero")) if bad.size else None
        return _with_int_zeros(sums, c == 0), failure

    return score


@algorithm
def adamic_adar_index(G, ebunch=None):
    return _predict(G, ebunch, _degree_sums(G, np.log))


@algorithm
def resource_allocation_index(G, ebunch=None):
    return _predict(G, ebunch, _degree_sums(G, lambda d: d))


@algorithm
def preferential_attachment(G, ebunch=None):
    degree = _Scorer(G).degree
    return _predict(G, ebunch, lambda i, j: ((degree[i] * degree[j]).tolist(), None))


@algorithm
def common_neighbor_centrality(G, ebunch=None, alpha=0.8):
    s = _Scorer(G)
    n = len(G)

    def score(i, j):
        c, _ = s.common(i, j)
        if alpha == 1:
            values = c.tolist()
        else:
            hops = np.full(len(i), np.inf)
            order = np.argsort(i, kind="stable")
            starts = np.flatnonzero(np.diff(i[order], prepend=-1))
            for at in np.split(order, starts[1:]):  # one BFS per distinct first node
                depth = host(bfs(s.graph, int(i[at[0]]), device=device(s.graph)).depth)[j[at]]
                hops[at] = np.where(depth >= 0, depth, np.inf)
            with np.errstate(divide="ignore"):  # a pair (u, u), which raises below
                values = (alpha * c + (1 - alpha) * n / hops).tolist()
        loops = np.flatnonzero(i == j)
        failure = (
            (int(loops[0]), nx.NetworkXAlgorithmError("Self loops are not supported"))
            if loops.size
            else None
        )
        return values, failure

    return _predict(G, ebunch, score)
