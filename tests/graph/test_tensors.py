"""Arrays of other libraries in: Graph.from_dlpack and Graph.from_pyg, checked against
Graph.from_edges on NumPy copies and against NetworkX."""

import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.programs.run import ProgramResult


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


def fake_torch():
    """A stand-in for PyTorch that records which route each array took."""
    torch = types.ModuleType("torch")
    torch.from_numpy = lambda a: ("from_numpy", a)
    torch.from_dlpack = lambda a: ("from_dlpack", a)
    return torch


def test_to_torch_of_host_arrays_shares_their_memory(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake_torch())
    res = gravel.bfs(gravel.Graph.from_edges([0, 1], [1, 2]), 0, device="cpu")
    out = res.to_torch()
    assert list(out) == ["depth", "parent"]
    for name, (route, a) in out.items():
        assert route == "from_numpy" and a is getattr(res, name)


def test_to_torch_of_device_arrays_goes_through_dlpack(monkeypatch):
    class DeviceArray:  # recognised as CuPy's by its module, as gravel.tensors does
        __module__ = "cupy._core.core"
        dtype = np.dtype(np.float32)

    monkeypatch.setitem(sys.modules, "torch", fake_torch())
    res = gravel.pagerank(gravel.Graph.from_edges([0], [1]), device="cpu")
    res.rank = DeviceArray()
    assert res.to_torch() == {"rank": ("from_dlpack", res.rank)}


def test_to_torch_splits_a_structured_state(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake_torch())
    state = np.array([(0.5, 1), (0.25, 2)], dtype=[("rank", "f8"), ("hops", "i4")])
    out = ProgramResult("run", "cpu", state=state).to_torch()
    assert list(out) == ["state.rank", "state.hops"]
    for field, (route, a) in zip(["rank", "hops"], out.values()):
        assert route == "from_numpy" and a.flags.c_contiguous
        assert np.array_equal(a, state[field])


def test_to_torch_without_torch_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` then raises ImportError
    res = gravel.core_number(gravel.Graph.from_edges([0], [1], directed=False), device="cpu")
    with pytest.raises(ImportError, match=r"^to_torch needs PyTorch: pip install torch$"):
        res.to_torch()


def test_to_torch_with_torch():
    torch = pytest.importorskip("torch")
    from gravel.backends import cuda

    G = gravel.generate.kronecker(6, 4)
    res = gravel.pagerank(G, device="cpu")
    rank = res.to_torch()["rank"]
    assert rank.device.type == "cpu" and np.shares_memory(rank.numpy(), res.rank)
    if torch.cuda.is_available() and cuda.available():
        on = gravel.connected_components(G, device="cuda")
        labels = on.to_torch()["labels"]
        assert labels.device.type == "cuda"
        assert torch.equal(labels.cpu(), torch.from_numpy(on.labels.get()))
