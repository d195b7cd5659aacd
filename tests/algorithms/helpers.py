"""Helpers that several tests/algorithms files share."""

import networkx as nx
import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import gravel


def as_array(d, G):
    """NetworkX's per-node dict in gravel's vertex order (nodes are labels when G has them)."""
    keys = G.labels.tolist() if G.labels is not None else range(G.n)
    return np.array([d[k] for k in keys])


@st.composite
def multigraphs(draw, max_n=9, max_m=40, directed=None):
    """Arc lists on few vertices, so that parallel arcs, reciprocal arcs and loops are common."""
    n = draw(st.integers(1, max_n))
    if directed is None:
        directed = draw(st.booleans())
    arcs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=max_m))
    src = np.array([a for a, _ in arcs], np.int64)
    dst = np.array([b for _, b in arcs], np.int64)
    return gravel.Graph.from_edges(src, dst, n=n, directed=directed), arcs


#: weights that stress the arithmetic: zero (ties, zero cycles), tiny, huge but finite in float32
AWKWARD_WEIGHTS = [0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 1e30, 3e38]


@st.composite
def weighted_multigraphs(draw, weights=AWKWARD_WEIGHTS, directed=None):
    G, arcs = draw(multigraphs(directed=directed))
    w = draw(st.lists(st.sampled_from(weights), min_size=len(arcs), max_size=len(arcs)))
    W = gravel.Graph.from_edges(
        np.array([a for a, _ in arcs], np.int64),
        np.array([b for _, b in arcs], np.int64),
        np.array(w, np.float32),
        n=G.n,
        directed=G.directed,
    )
    return W, arcs, w


def scipy_dijkstra(G, arcs, w, source):
    """SciPy's distances and predecessors on the lightest arc of each pair (explicit zeros are
    arcs to SciPy)."""
    lightest = {}
    for (a, b), x in zip(arcs, w):
        pairs = [(a, b)] if G.directed else [(a, b), (b, a)]
        for key in pairs:
            lightest[key] = min(lightest.get(key, np.inf), float(np.float32(x)))
    rows = np.array([k[0] for k in lightest], np.int64)
    cols = np.array([k[1] for k in lightest], np.int64)
    A = sp.csr_array((np.array(list(lightest.values())), (rows, cols)), shape=(G.n, G.n))
    return dijkstra(A, directed=True, indices=source, return_predecessors=True)


def nx_simple_undirected(G):
    """NetworkX's simple undirected graph of G, self loops removed."""
    g = nx.Graph(G.to_networkx())
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    return g


def nx_without_loops(G):
    """NetworkX's simple graph of G (a DiGraph when G is directed), self loops removed."""
    g = G.to_networkx()
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    return g


def nx_simple(G, arcs):
    """The networkx.DiGraph (networkx.Graph when undirected) of the same arcs."""
    g = nx.DiGraph() if G.directed else nx.Graph()
    g.add_nodes_from(range(G.n))
    g.add_edges_from(arcs)
    return g


def both(function, G, **options):
    """(GPU result, CPU result) of one primitive."""
    gpu = function(G, device="cuda", **options)
    assert gpu.device == "cuda"
    return gpu, function(G, device="cpu", **options)
