"""Leiden communities: every community connected (a SciPy check on each partition), modularity
against gravel's and NetworkX's Louvain (real, LFR, planted-partition and generated graphs), the
refinement and the split on their own, the GPU's engine run by NumPy, and the GPU against the
CPU."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

import gravel
from gravel.algorithms.leiden import leiden_communities, run_levels, verify_leiden
from gravel.algorithms.leiden_parallel import ParallelLevels
from gravel.algorithms.louvain import louvain_communities
from gravel.algorithms.louvain_parallel import parallel_louvain
from gravel.algorithms.lpa import modularity
from gravel.backends.cpu import serial

from ..strategies import graphs

SEEDS = range(5)


def from_networkx(g):
    """A NetworkX graph on 0..n-1 as gravel's, its "weight" attributes (1 where none)."""
    g = nx.convert_node_labels_to_integers(g)
    u, v, w = zip(*g.edges(data="weight", default=1.0), strict=True)
    return g, gravel.Graph.from_edges(u, v, np.array(w, float), n=len(g), directed=False)


def named_graphs():
    lfr = nx.LFR_benchmark_graph(250, 3, 1.5, 0.009, average_degree=5, min_community=20, seed=10)
    mixed = nx.LFR_benchmark_graph(1000, 3, 1.5, 0.2, average_degree=10, min_community=20, seed=3)
    return {
        "karate": nx.karate_club_graph(),
        "les_miserables": nx.les_miserables_graph(),
        "lfr": lfr,
        "lfr_mixed": mixed,
        "planted_partition": nx.planted_partition_graph(10, 30, 0.3, 0.02, seed=1),
    }


def parts(labels):
    labels = np.asarray(labels)
    return [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]


def disconnected(G, labels):
    """How many more connected parts than communities the partition `labels` has."""
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    inside = labels[src] == labels[G.indices]
    A = csr_matrix((np.ones(inside.sum()), (src[inside], G.indices[inside])), (G.n, G.n))
    return connected_components(A, directed=False)[0] - np.unique(labels).size


def parallel(G, weight=True, seed=0, **kw):
    """The GPU's engine run by NumPy: labels by smallest member, and the levels."""
    options = {"resolution": 1.0, "threshold": 1e-7, "theta": 0.01} | kw
    engine = ParallelLevels(np, G, weight and G.weighted, *options.values(), seed)
    labels, levels, _ = run_levels(engine, 2, None)
    smallest = np.full(G.n, G.n, np.int64)
    np.minimum.at(smallest, labels, np.arange(G.n))
    return smallest[labels], levels


@pytest.mark.parametrize("name", list(named_graphs()))
def test_named_graphs_match_louvain(name):
    """The median over five seeds at least Louvain's (gravel's and NetworkX's median) less 1 %,
    weighted and not, every community connected; the GPU's engine too."""
    g, G = from_networkx(named_graphs()[name])
    for weight in (True, False):
        key = "weight" if weight else None
        runs = [leiden_communities(G, weight=weight, seed=s, device="cpu") for s in SEEDS]
        for r in runs:
            assert verify_leiden(G, r.labels, modularity=r.modularity, weight=weight) == []
        ours = np.median([r.modularity for r in runs])
        theirs = np.median(
            [
                nx.community.modularity(
                    g, nx.community.louvain_communities(g, weight=key, seed=s), weight=key
                )
                for s in SEEDS
            ]
        )
        louvain = np.median(
            [louvain_communities(G, weight=weight, seed=s, device="cpu").modularity for s in SEEDS]
        )
        assert ours >= max(theirs, louvain) - 0.01 * abs(max(theirs, louvain))
        at_once = [parallel(G, weight, seed=s)[0] for s in SEEDS]
        for labels in at_once:
            assert verify_leiden(G, labels, weight=weight, quality=False) == []
        q = np.median([nx.community.modularity(g, parts(x), weight=key) for x in at_once])
        assert q >= theirs - 0.02 * abs(theirs)


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=50, max_m=200, directed=False, weighted=True), seed=st.integers(0, 99))
def test_random_graphs_give_connected_communities(G, seed):
    """A partition labelled by its smallest vertices with its modularity, each community
    connected, at resolutions where Louvain's communities often are not, on both engines."""
    G = G.simple_undirected()
    for weight, resolution in ((True, 1.0), (False, 1.0), (False, 0.3), (True, 2.0)):
        r = leiden_communities(G, weight=weight, resolution=resolution, seed=seed, device="cpu")
        assert r.labels.dtype == np.int32 and r.labels.shape == (G.n,)
        kw = {"modularity": r.modularity, "weight": weight, "resolution": resolution}
        assert verify_leiden(G, r.labels, quality=False, **kw) == []
        labels, _ = parallel(G, weight, seed=seed, resolution=resolution)
        assert verify_leiden(G, labels, weight=weight, resolution=resolution, quality=False) == []


def test_sparse_random_graphs_give_connected_communities():
    """Sparse random graphs of the size on which Louvain (gravel's, NetworkX's) leaves a community
    disconnected now and then: Leiden's never are, on either engine."""
    rng = np.random.default_rng(3)
    for n, m in ((500, 1000), (500, 1000), (1000, 3000)):
        G = gravel.Graph.from_edges(
            rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=False
        ).simple_undirected()
        for seed in range(3):
            assert disconnected(G, leiden_communities(G, seed=seed, device="cpu").labels) == 0
            assert disconnected(G, parallel(G, seed=seed)[0]) == 0


@pytest.mark.parametrize(
    "spec,weight", [("kron:11", True), ("urand:11", False), ("grid:30x30", True)]
)
def test_parallel_cpu_paths(spec, weight, monkeypatch):
    """The colour classes' moves, the refinement community by community in parallel and the
    parallel union-find (levels over SMALL_ARCS arcs), against Louvain's."""
    monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec).simple_undirected())
    r = leiden_communities(G, weight=weight, seed=0, device="cpu")
    kw = {"modularity": r.modularity, "weight": weight, "quality": False}
    assert verify_leiden(G, r.labels, **kw) == []
    louvain = louvain_communities(G, weight=weight, seed=0, device="cpu").modularity
    assert r.modularity >= louvain - 0.03 * abs(louvain)


@pytest.mark.parametrize("spec", ["kron:11", "urand:11", "grid:30x30"])
def test_generated_graphs_on_the_gpu_engine(spec):
    """At least the GPU's Louvain (whose moves it makes) less 2 %, run by NumPy too."""
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec).simple_undirected())
    for weight in (True, False):
        labels, _ = parallel(G, weight)
        assert verify_leiden(G, labels, weight=weight, quality=False) == []
        w = G.weights if weight else None
        q = modularity(G.offsets, G.indices, labels, w)
        louvain = modularity(G.offsets, G.indices, parallel_louvain(np, G, weight, 1.0, 1e-7)[0], w)
        assert q >= louvain - 0.02 * abs(louvain)


def refine_inputs(G, data):
    """A level graph of G (no loops listed), its degrees and a partition drawn by hypothesis."""
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    keep = src != G.indices
    offsets = np.zeros(G.n + 1, np.int64)
    np.cumsum(np.bincount(src[keep], minlength=G.n), out=offsets[1:])
    w = G.weights.astype(np.float64)
    loops = np.bincount(src[~keep], w[~keep], G.n)
    k = 2 * loops + np.bincount(src[keep], w[keep], G.n)
    c = data.draw(st.integers(1, G.n))
    labels = data.draw(st.lists(st.integers(0, c - 1), min_size=G.n, max_size=G.n))
    community = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    return (offsets, G.indices[keep], w[keep], loops), k, community


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=40, max_m=150, directed=False, weighted=True), data=st.data())
def test_refinement_of_any_partition(G, data):
    """On any partition (connected or not), both refinements give subcommunities that lie in one
    community each and are connected, serial and parallel kernels alike; theta near 0 and above
    the gains both hold it."""
    from gravel.backends.cpu import leiden as kernels

    if G.n == 0:
        return
    (offsets, indices, weights, loops), k, community = refine_inputs(G, data)
    if k.sum() == 0:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 9)))
    order = rng.permutation(G.n)
    members = order[np.argsort(community[order], kind="stable")]
    starts = np.zeros(community.max() + 2, np.int64)
    np.cumsum(np.bincount(community), out=starts[1:])
    chance = rng.random(G.n)
    level = gravel.Graph.from_csr(offsets, indices, weights, directed=False, trusted=True)
    for theta in (1e-3, 1e3):
        q = (float(k.sum()), 1.0, theta)
        args = (offsets, indices, weights, k, community, members, starts, chance, q)
        serial_twin = kernels.kernels(0).refine(*args)
        assert np.array_equal(kernels.kernels(2**40).refine(*args), serial_twin)
        for refined in (serial_twin, parallel_refined(G, level, loops, community, theta)):
            assert np.array_equal(community[refined], community)  # founders share the community
            assert disconnected(level, refined) == 0


def parallel_refined(G, level, loops, community, theta):
    engine = ParallelLevels(np, G, True, 1.0, 1e-7, theta, 5)
    src = np.repeat(np.arange(level.n), np.diff(level.offsets))
    engine.graph = (src, level.indices.astype(np.int64), level.weights, loops)
    refined = engine.refine(community)
    first = np.full(G.n, G.n, np.int64)
    np.minimum.at(first, refined, np.arange(G.n))
    return first[refined]


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=40, max_m=100, directed=False, weighted=True), data=st.data())
def test_split_gives_connected_parts(G, data):
    """Both engines' split: as many parts as SciPy's components inside the communities, each
    inside one community and connected."""
    from gravel.algorithms.leiden_cpu import CpuLevels

    if G.n == 0:
        return
    level, _, community = refine_inputs(G, data)
    H = gravel.Graph.from_csr(*level[:3], directed=False, trusted=True)
    cpu = CpuLevels(H, True, level[2], (1.0, 1e-7, 0.01), np.random.default_rng(0))
    gpu = ParallelLevels(np, H, True, 1.0, 1e-7, 0.01, 0)
    expect = disconnected(H, community) + community.max() + 1
    for split in (cpu.split(community), gpu.split(community)):
        assert split.max() + 1 == expect
        assert disconnected(H, split) == 0
        pairs = np.unique(np.stack([split, community]), axis=1)
        assert pairs.shape[1] == expect  # each part in one community


def test_levels_and_max_level():
    """Each level's partition is in the result, the last the labels; each raises the modularity;
    a run stopped at max_level=L gives the L-th level of the whole run for the same seed."""
    _, G = from_networkx(named_graphs()["lfr"])
    r = leiden_communities(G, seed=42, device="cpu")
    assert r.iterations == len(r.partitions) > 1
    assert np.array_equal(r.partitions[-1], r.labels)
    w = G.weights
    qs = [modularity(G.offsets, G.indices, p, w) for p in r.partitions]
    assert all(b > a for a, b in zip(qs, qs[1:], strict=False))
    for level, expect in enumerate(r.partitions, 1):
        cut = leiden_communities(G, seed=42, max_level=level, device="cpu")
        assert np.array_equal(cut.labels, expect) and cut.iterations == level
        assert disconnected(G, cut.labels) == 0


def test_resolution_seed_and_iterations():
    G = gravel.generate.kronecker(10, 8, seed=2).simple_undirected()
    fine = leiden_communities(G, resolution=4.0, seed=1, device="cpu")
    coarse = leiden_communities(G, resolution=0.25, seed=1, device="cpu")
    assert np.unique(fine.labels).size > np.unique(coarse.labels).size
    again = leiden_communities(G, resolution=4.0, seed=1, device="cpu")
    assert np.array_equal(fine.labels, again.labels)
    once = leiden_communities(G, n_iterations=1, seed=1, device="cpu")
    stable = leiden_communities(G, n_iterations=-1, seed=1, device="cpu")
    assert stable.modularity >= once.modularity
    for r in (once, stable):
        assert verify_leiden(G, r.labels, modularity=r.modularity) == []


def test_two_cliques_and_a_bridge_and_edgeless_graphs():
    a = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    b = [(i + 5, j + 5) for i, j in a]
    src, dst = np.array(a + b + [(4, 5)]).T
    r = leiden_communities(gravel.Graph.from_edges(src, dst, directed=False), device="cpu")
    assert r.labels.tolist() == [0] * 5 + [5] * 5
    for n in (0, 4):
        G = gravel.Graph.from_edges([], [], n=n, directed=False)
        r = leiden_communities(G, device="cpu")
        assert r.labels.tolist() == list(range(n)) and r.modularity == 0.0
        assert r.iterations == 1 and [p.tolist() for p in r.partitions] == [list(range(n))]
    Z = gravel.Graph.from_edges([0, 1], [1, 2], [0.0, 0.0], directed=False)
    assert leiden_communities(Z, device="cpu").labels.tolist() == [0, 1, 2]


def test_reordered_graph_and_self_loops():
    """Labels over the caller's ids on a graph stored in another order, with self loops; the
    verifier reads the arcs in the caller's ids too."""
    _, G = from_networkx(nx.les_miserables_graph())
    perm = np.random.default_rng(0).permutation(G.n)
    H = gravel.transform.relabel(G, perm, transparent=True)
    loops = gravel.Graph.from_edges(
        np.r_[G.edges()[0], [0, 3]], np.r_[G.edges()[1], [0, 3]], n=G.n, directed=False
    )
    for graph in (H, loops):
        r = leiden_communities(graph, seed=0, device="cpu")
        assert verify_leiden(graph, r.labels, modularity=r.modularity) == []


def test_bad_input():
    D = gravel.generate.kronecker(6, 4, directed=True)
    with pytest.raises(gravel.InvalidGraphError, match="not implemented for directed"):
        leiden_communities(D, device="cpu")
    neg = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -1.0], directed=False)
    with pytest.raises(gravel.InvalidWeightError, match="leiden_communities needs non-negative"):
        leiden_communities(neg, device="cpu")
    assert leiden_communities(neg, weight=False, device="cpu").labels.tolist() == [0, 0, 0]
    bad = (
        {"resolution": -1},
        {"threshold": float("nan")},
        {"theta": 0},
        {"theta": float("inf")},
        {"n_iterations": 0},
        {"n_iterations": 1.5},
        {"max_level": 0},
        {"max_level": True},
        {"seed": -1},
    )
    for kw in bad:
        with pytest.raises(gravel.InvalidArgumentError, match=next(iter(kw))):
            leiden_communities(neg, weight=False, device="cpu", **kw)


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["kron:12", "urand:12", "grid:40x40"])
def test_gpu_matches_the_cpu(spec):
    """The GPU's communities connected, their modularity within 5 % of NetworkX's Louvain and 6 %
    of the CPU's (the moves at once find a little less than serial ones), the same for a seed."""
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec).simple_undirected())
    for weight in (True, False):
        r = leiden_communities(G, weight=weight, seed=1, device="cuda")
        assert r.device == "cuda" and isinstance(r.labels, np.ndarray)
        assert verify_leiden(G, r.labels, modularity=r.modularity, weight=weight) == []
        cpu = leiden_communities(G, weight=weight, seed=1, device="cpu").modularity
        assert r.modularity >= cpu - 0.06 * abs(cpu)
        again = leiden_communities(G, weight=weight, seed=1, device="cuda")
        assert np.array_equal(again.labels, r.labels)


@pytest.mark.gpu
def test_gpu_named_and_edgeless_graphs():
    for name, g in named_graphs().items():
        _, G = from_networkx(g)
        r = leiden_communities(G, seed=0, device="cuda")
        cpu = leiden_communities(G, seed=0, device="cpu").modularity
        assert verify_leiden(G, r.labels, modularity=r.modularity) == [], name
        assert r.modularity >= cpu - 0.02 * abs(cpu), name
        assert np.array_equal(r.partitions[-1], r.labels)
    for n in (0, 1, 4):
        r = leiden_communities(gravel.Graph.from_edges([], [], n=n, directed=False), device="cuda")
        assert r.labels.tolist() == list(range(n)) and r.modularity == 0.0
