"""Helpers that several tests/nx files share: random NetworkX graphs, the comparison of results,
NetworkX's function by name, the graphs and arrays that the structure tests build, and the LFR
graph of the community tests."""

import inspect
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import strategies as st


@st.composite
def nx_graphs(draw, directed=None, max_n=25):
    """Random NetworkX graphs, int or string labels; edges inserted in node order so that
    NetworkX's neighbour order is gravel's (the documented difference of the BFS functions)."""
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans()) if directed is None else directed
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    weights = draw(st.lists(st.integers(1, 9), min_size=len(pairs), max_size=len(pairs)))
    label = (lambda i: f"v{i:02d}") if draw(st.booleans()) else (lambda i: i)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(label(i) for i in range(n))
    edges = sorted(
        ((u, v) if directed else (min(u, v), max(u, v)), w) for (u, v), w in zip(pairs, weights)
    )
    G.add_edges_from((label(u), label(v), {"weight": w}) for (u, v), w in edges)
    return G


def first(G):
    return next(iter(G))


def same(a, b):
    if isinstance(a, nx.Graph):
        return set(a.nodes) == set(b.nodes) and set(a.edges) == set(b.edges)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == pytest.approx(b, rel=1e-6, abs=1e-9, nan_ok=True)
    return a == b


DICT_VALUES = type({}.values())


def nx_function(name):
    """NetworkX's function `name` (the community functions live in ``nx.community``)."""
    if name.startswith("bipartite_"):
        return getattr(nx.bipartite, name.removeprefix("bipartite_"))
    return getattr(nx, name) if hasattr(nx, name) else getattr(nx.community, name)


def called(name, G, **kwargs):
    """The function's result, generators as lists; an exception's type where NetworkX raises."""
    try:
        out = nx_function(name)(G, **kwargs)
        return list(out) if inspect.isgenerator(out) or isinstance(out, DICT_VALUES) else out
    except (nx.NetworkXException, ZeroDivisionError) as exc:
        return type(exc)


def bare(G):
    """G without edge data: the functions that keep every attribute run on gravel then."""
    H = G.copy()
    for *_, d in H.edges(data=True):
        d.clear()
    return H


def distinct_weights(G, seed):
    """G with its edges weighed by a random permutation of 1..m (no ties)."""
    H = G.copy()
    w = random.Random(seed).sample(range(1, 10 * H.number_of_edges() + 2), H.number_of_edges())
    for (u, v), x in zip(H.edges, w):
        H[u][v]["weight"] = float(x)
    return H


def as_array(G, pos):
    return np.array([pos[v] for v in G])


def lfr():
    """NetworkX's LFR benchmark graph of 250 nodes with planted communities (seed 10)."""
    return nx.LFR_benchmark_graph(250, 3, 1.5, 0.009, average_degree=5, min_community=20, seed=10)
