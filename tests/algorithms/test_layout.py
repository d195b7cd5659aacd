"""ForceAtlas2 layout: NetworkX's iteration (from the same start, equal up to rounding), layouts
that draw arcs shorter than random pairs, the caller's ids on reordered graphs, bad arguments, and
the GPU path against the CPU's."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import generate
from gravel.algorithms.layout import degree_mass, verify_layout
from gravel.errors import InvalidArgumentError, InvalidWeightError
from gravel.reorder import reorder


@st.composite
def nx_graphs(draw, max_n=20):
    """Random simple NetworkX graphs on 0..n-1 with whole weights (float32 holds them), self
    loops and isolated nodes among them."""
    n = draw(st.integers(1, max_n))
    G = nx.DiGraph() if draw(st.booleans()) else nx.Graph()
    G.add_nodes_from(range(n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    for u, v in pairs:
        G.add_edge(u, v, weight=float(draw(st.integers(1, 5))))
    return G


def networkx_layout(g, start, **kwargs):
    pos = nx.forceatlas2_layout(g, {v: p.copy() for v, p in zip(g, start)}, **kwargs)
    return np.array([pos[v] for v in g])


@settings(max_examples=30, deadline=None)
@given(g=nx_graphs(), weighted=st.booleans(), linlog=st.booleans(), strong=st.booleans())
def test_networkx_s_iteration_from_the_same_start(g, weighted, linlog, strong):
    G = gravel.Graph.from_networkx(g)
    start = np.random.default_rng(len(g)).random((len(g), 2))
    kw = {"linlog": linlog, "strong_gravity": strong, "max_iter": 3}
    ours = gravel.forceatlas2_layout(G, start, weight=weighted, device="cpu", **kw)
    with np.errstate(all="ignore"):  # NetworkX's linlog divides by the zero self-distance
        theirs = networkx_layout(g, start, weight="weight" if weighted else None, **kw)
    assert ours.pos.shape == (len(g), 2) and ours.iterations <= 3
    assert np.allclose(ours.pos, theirs, rtol=1e-8, atol=1e-8)


def test_masses_sizes_and_options_are_networkx_s():
    g = nx.les_miserables_graph()
    G = gravel.Graph.from_networkx(g)
    start = np.random.default_rng(0).random((len(g), 3))
    mass = np.linspace(1, 3, len(g))
    size = np.linspace(0.01, 0.1, len(g))
    kw = {"max_iter": 4, "distributed_action": True, "gravity": 3.0, "scaling_ratio": 0.5}
    ours = gravel.forceatlas2_layout(G, start, node_mass=mass, node_size=size, device="cpu", **kw)
    theirs = networkx_layout(
        g,
        start,
        node_mass=dict(zip(g, mass)),
        node_size=dict(zip(g, size)),
        weight="weight",
        **kw,
    )
    assert np.allclose(ours.pos, theirs, rtol=1e-8, atol=1e-8)
    assert degree_mass(G).tolist() == [d + 1 for _, d in g.degree]


@pytest.mark.parametrize(
    "G",
    [
        generate.grid(12, 12),
        generate.kronecker(8, 4, seed=1),
        gravel.Graph.from_networkx(nx.karate_club_graph()),
        generate.uniform_random(7, 4, seed=3, directed=True),
    ],
    ids=["grid", "kron", "karate", "urand-directed"],
)
def test_layouts_draw_arcs_short(G):
    r = gravel.forceatlas2_layout(G, seed=2, device="cpu")
    assert np.isfinite(r.pos).all()
    assert verify_layout(G, r.x, r.y) == []
    # a random layout is no better than random pairs: the verifier refuses it
    random = np.random.default_rng(1).random((G.n, 2))
    src, dst = G.edges()
    keep = src != dst
    edge = np.linalg.norm(r.pos[src[keep]] - r.pos[dst[keep]], axis=1).mean()
    spread = np.linalg.norm(r.pos[:, None] - r.pos[None], axis=2).mean()
    before = np.linalg.norm(random[src[keep]] - random[dst[keep]], axis=1).mean()
    assert (
        edge / spread < 0.8 * before / np.linalg.norm(random[:, None] - random[None], axis=2).mean()
    )


def test_verify_layout_finds_problems():
    G = gravel.Graph.from_edges(np.arange(9), np.arange(1, 10), directed=False)
    zigzag = np.where(np.arange(10) % 2, 100.0, -100.0)  # each edge spans the whole drawing
    assert verify_layout(G, zigzag, np.arange(10.0))
    assert verify_layout(G, np.full(10, np.nan))
    assert verify_layout(G, np.arange(10.0)) == []


def test_reordered_graph_gives_the_caller_s_ids():
    G = generate.kronecker(7, 4, seed=2)
    R = reorder(G, "degree")
    start = np.random.default_rng(4).random((G.n, 2))
    mass = np.arange(1.0, G.n + 1)
    a = gravel.forceatlas2_layout(G, start, node_mass=mass, max_iter=20, device="cpu")
    b = gravel.forceatlas2_layout(R, start, node_mass=mass, max_iter=20, device="cpu")
    assert np.allclose(a.pos, b.pos, rtol=1e-7, atol=1e-7)
    assert np.array_equal(a.x, a.pos[:, 0]) and np.array_equal(a.y, a.pos[:, 1])


def test_seed_dim_and_empty_graph():
    G = generate.grid(4, 5)
    a = gravel.forceatlas2_layout(G, seed=5, dim=3, device="cpu")
    b = gravel.forceatlas2_layout(G, seed=5, dim=3, device="cpu")
    c = gravel.forceatlas2_layout(G, seed=6, dim=3, device="cpu")
    assert a.pos.shape == (20, 3) and np.array_equal(a.pos, b.pos)
    assert not np.array_equal(a.pos, c.pos)
    one = gravel.forceatlas2_layout(G, seed=5, dim=1, device="cpu")
    assert one.pos.shape == (20, 1) and not one.y.any()
    still = gravel.forceatlas2_layout(G, a.pos, max_iter=0, device="cpu")
    assert np.array_equal(still.pos, a.pos) and still.iterations == 0
    empty = gravel.forceatlas2_layout(gravel.Graph.from_edges([], [], n=0), device="cpu")
    assert empty.pos.shape == (0, 2)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"max_iter": -1}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"dim": 0}, "dim"),
        ({"gravity": float("nan")}, "gravity"),
        ({"scaling_ratio": -1.0}, "scaling_ratio"),
        ({"jitter_tolerance": "1"}, "jitter_tolerance"),
        ({"pos": np.zeros((3, 2))}, "pos"),
        ({"pos": np.full((6, 2), np.inf)}, "pos"),
        ({"node_mass": np.zeros(6)}, "node_mass"),
        ({"node_size": np.ones(5)}, "node_size"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    G = generate.grid(2, 3)
    with pytest.raises(InvalidArgumentError, match=match):
        gravel.forceatlas2_layout(G, device="cpu", **kwargs)


def test_infinite_weights_are_refused():
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, np.inf], directed=False)
    with pytest.raises(InvalidWeightError):
        gravel.forceatlas2_layout(G, device="cpu")
    assert np.isfinite(gravel.forceatlas2_layout(G, weight=False, device="cpu").pos).all()


@pytest.mark.gpu
@pytest.mark.parametrize(
    "G",
    [
        generate.grid(20, 30),
        gravel.transform.add_random_weights(generate.kronecker(9, 8, seed=1), 1, 9, seed=2),
        generate.uniform_random(9, 4, seed=3, directed=True),
        reorder(generate.kronecker(8, 4, seed=5), "degree"),
    ],
    ids=["grid", "kron-weighted", "urand-directed", "kron-reordered"],
)
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_gpu_matches_cpu(G, dim):
    pytest.importorskip("cupy")
    start = np.random.default_rng(7).random((G.n, dim))
    size = np.full(G.n, 0.01)
    # on a line the layout is chaotic (a start moved by 1e-15 ends 8 apart in 5 iterations of a
    # 3,000-wide grid layout), so the device's fused multiply-adds are compared after one
    iterations = 1 if dim == 1 else 5
    for kw in ({}, {"linlog": True, "node_size": size}, {"strong_gravity": True}):
        gpu = gravel.forceatlas2_layout(G, start, max_iter=iterations, device="cuda", **kw)
        cpu = gravel.forceatlas2_layout(G, start, max_iter=iterations, device="cpu", **kw)
        assert gpu.device == "cuda" and gpu.iterations == cpu.iterations
        span = np.ptp(cpu.pos)
        assert np.allclose(gpu.pos.get(), cpu.pos, rtol=1e-9, atol=1e-9 * span)
    full = gravel.forceatlas2_layout(G, seed=1, dim=dim, device="cuda")
    assert np.isfinite(full.pos.get()).all()
    if dim == 2:
        assert verify_layout(G, full.x.get(), full.y.get()) == []
