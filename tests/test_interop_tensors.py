"""Arrays of other libraries in: Graph.from_dlpack and Graph.from_pyg, checked against
Graph.from_edges on NumPy copies and against NetworkX."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel


@st.composite
def arcs(draw, max_id=20, max_m=50):
    m = draw(st.integers(0, max_m))
    ids = st.lists(st.integers(0, max_id), min_size=m, max_size=m)
    w = st.lists(st.floats(0, 100, width=32), min_size=m, max_size=m)
    return np.array(draw(ids)), np.array(draw(ids)), np.array(draw(w), np.float32)


@settings(max_examples=40, deadline=None)
@given(arcs(), st.booleans())
def test_from_dlpack_of_numpy_matches_networkx(edges, directed):
    nx = pytest.importorskip("networkx")
    src, dst, w = edges
    G = gravel.Graph.from_dlpack(src, dst, w, directed=directed, dedupe=True)
    H = (nx.DiGraph if directed else nx.Graph)()
    H.add_nodes_from(range(G.n))
    for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):  # the least weight, as gravel
        if not H.has_edge(u, v) or H[u][v]["weight"] > x:
            H.add_edge(u, v, weight=x)
    got = G.to_networkx()
    assert sorted(got.nodes) == sorted(H.nodes)
    key = (lambda e: e) if directed else (lambda e: tuple(sorted(e[:2])) + e[2:])
    assert sorted(map(key, got.edges(data="weight"))) == sorted(map(key, H.edges(data="weight")))


def test_from_pyg_edge_index_of_numpy():
    edge_index = np.array([[0, 1, 2], [1, 2, 0]])
    G = gravel.Graph.from_pyg(edge_index, np.array([1.0, 2.0, 3.0]), num_nodes=5)
    assert G == gravel.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], n=5)
    with pytest.raises(gravel.InvalidGraphError, match=r"shape \(2, E\), not \(3,\)"):
        gravel.Graph.from_pyg(np.array([0, 1, 2]))


def test_from_torch_tensors():
    torch = pytest.importorskip("torch")
    edge_index = torch.tensor([[0, 1, 1], [1, 2, 3]])
    w = torch.tensor([0.5, 1.5, 2.5])
    want = gravel.Graph.from_edges([0, 1, 1], [1, 2, 3], [0.5, 1.5, 2.5])
    assert gravel.Graph.from_pyg(edge_index, w) == want
    assert gravel.Graph.from_dlpack(edge_index[0], edge_index[1], w) == want
    if torch.cuda.is_available():
        on = edge_index.cuda()
        assert gravel.Graph.from_pyg(on, w.cuda()) == want


def test_from_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    want = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, 2.0])
    G = gravel.Graph.from_dlpack(cupy.array([0, 1]), cupy.array([1, 2]), cupy.array([1.0, 2.0]))
    assert G == want
