"""Helpers that several tests/algorithms files share."""

import networkx as nx
import numpy as np
from hypothesis import strategies as st

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
