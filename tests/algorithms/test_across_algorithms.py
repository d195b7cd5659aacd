"""Every CPU algorithm against an independent reference: NetworkX, SciPy, published figures."""

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.bfs import verify_bfs
from gravel.algorithms.cc import verify_cc
from gravel.algorithms.sssp import verify_sssp
from gravel.transform import deduplicate

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs

REF = reference()
SMALL = [e for e in REF if e["computed"]["n_vertices"] <= 40000]


def nx_simple_undirected(G):
    g = nx.Graph(G.to_networkx())
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    return g


def nx_without_loops(G):
    """NetworkX's simple graph of G (a DiGraph when G is directed), self loops removed."""
    g = G.to_networkx()
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    return g


def as_array(d, G):
    """NetworkX's per-node dict in gravel's vertex order (nodes are labels when G has them)."""
    keys = G.labels.tolist() if G.labels is not None else range(G.n)
    return np.array([d[k] for k in keys])


# -- published figures on every shared dataset -----------------------------------------------------
@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_bfs_matches_published_levels(entry):
    G, internal = load_dataset(entry)
    c = entry["checks"]
    s = internal(c["bfs_source_label"])
    r = gravel.bfs(G, s, device="cpu")
    reached = r.depth >= 0
    assert reached.sum() == c["bfs_reached"]
    assert r.depth.max() == c["bfs_max_depth"]
    assert r.depth[reached].sum() == c["bfs_sum_depth"]
    levels = np.bincount(r.depth[reached])[:64]
    assert levels.tolist() == c["bfs_level_sizes"][: len(levels)]
    assert verify_bfs(G, s, r.depth, r.parent) == []


@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_cc_triangles_kcore_match_published(entry):
    G, _ = load_dataset(entry)
    comp = entry["computed"]
    cc = gravel.connected_components(G, device="cpu")
    assert cc.summary()["components"] == comp["wcc_count"]
    assert np.bincount(cc.labels).max() == comp["largest_wcc_nodes"]
    assert verify_cc(G, cc.labels) == []
    if "triangles" in comp:
        assert gravel.triangles(G, per_vertex=False, device="cpu").total == comp["triangles"]
    # the published cores are those of the undirected simple graph, also of directed datasets
    core = gravel.core_number(gravel.transform.symmetrize(G), device="cpu").core
    assert core.max() == entry["checks"]["kcore_max"]
    assert (core == core.max()).sum() == entry["checks"]["kcore_max_size"]


@pytest.mark.parametrize(
    "entry",
    [e for e in REF if "sssp_source_label" in e["checks"]],
    ids=dataset_ids([e for e in REF if "sssp_source_label" in e["checks"]]),
)
def test_sssp_matches_published_distances(entry):
    G, internal = load_dataset(entry)
    c = entry["checks"]
    s = internal(c["sssp_source_label"])
    d = gravel.sssp(G, s, device="cpu").distance
    finite = np.isfinite(d)
    assert finite.sum() == c["sssp_reached"]
    assert d[finite].max() == c["sssp_max_dist"] and d[finite].sum() == c["sssp_sum_dist"]
    assert verify_sssp(G, s, d) == []


# -- NetworkX on the smaller shared datasets -------------------------------------------------------
@pytest.mark.parametrize("entry", SMALL, ids=dataset_ids(SMALL))
def test_triangles_and_cores_per_vertex_match_networkx(entry):
    G, _ = load_dataset(entry)
    g = nx_simple_undirected(G)
    assert np.array_equal(gravel.triangles(G, device="cpu").triangles, as_array(nx.triangles(g), G))
    core = gravel.core_number(G, device="cpu").core
    assert np.array_equal(core, as_array(nx.core_number(nx_without_loops(G)), G))


@pytest.mark.parametrize("name", ["email-Eu-core.txt.gz", "CA-GrQc.txt.gz", "rome99.gr.gz"])
def test_betweenness_sampled_matches_networkx(name):
    entry = next(e for e in REF if e["file"] == name) if REF else pytest.skip("no datasets")
    G, internal = load_dataset(entry)
    g = G.to_networkx()
    k = 40
    labels = random.Random(7).sample(list(g), k)  # NetworkX's own sampling with seed=7
    sources = [internal(x) if G.labels is not None else x for x in labels]
    ours = gravel.betweenness_centrality(G, k, seed=7, device="cpu", sources=np.array(sources))
    ref = as_array(nx.betweenness_centrality(g, k=k, seed=7), G)
    assert np.allclose(ours.centrality, ref, rtol=1e-9, atol=1e-12)


def test_betweenness_exact_matches_networkx():
    if not REF:
        pytest.skip("no datasets")
    G, _ = load_dataset(next(e for e in REF if e["file"] == "email-Eu-core.txt.gz"))
    ref = as_array(nx.betweenness_centrality(G.to_networkx()), G)
    assert np.allclose(
        gravel.betweenness_centrality(G, device="cpu").centrality, ref, rtol=1e-9, atol=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(graphs(max_n=60, max_m=300), st.integers(0, 2**31 - 1))
def test_betweenness_by_levels_kernel_matches_brandes(G, seed):
    """One source with every thread on it (backends/cpu/bc.dependencies, from the BFS depths)
    against the serial Brandes of the same source."""
    from gravel.algorithms.betweenness import _simple_arcs
    from gravel.algorithms.bfs import _bfs_cpu
    from gravel.backends.cpu import bc

    if G.n == 0:
        return
    S = _simple_arcs(G)
    s = seed % S.n
    in_off, in_idx, _ = S.csc()
    got = np.zeros(S.n)
    work = np.empty(S.n), np.empty(S.n), np.empty(S.n, np.int32)
    depth = _bfs_cpu(S, s).depth
    bc.dependencies(S.offsets, S.indices, in_off, in_idx, s, depth, *work, got)
    ref = bc.brandes(S.offsets, S.indices, np.array([s], np.int32), 1)
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("directed", [False, True])
def test_betweenness_one_source_on_every_thread(directed):
    """A source on a graph past the serial kernels' size, with more threads than sources, takes
    the level-parallel path; with one thread, the serial Brandes: the two agree."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread: no level-parallel path")
    G = gravel.generate.uniform_random(16, 17, seed=3, directed=directed)  # over 2**20 arcs
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        levels = gravel.betweenness_centrality(G, sources=[77], device="cpu")
        numba.set_num_threads(1)
        serial = gravel.betweenness_centrality(G, sources=[77], device="cpu")
    finally:
        numba.set_num_threads(threads)
    assert (levels.strategy, serial.strategy) == ("brandes, level-parallel", "brandes")
    assert np.nanmax(levels.centrality) > 0  # the lone source's own entry is NaN, as NetworkX's
    assert np.allclose(levels.centrality, serial.centrality, rtol=1e-12, atol=0, equal_nan=True)


# -- random graphs ---------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(graphs())
def test_random_cc_parallel_kernels(G):
    """Afforest's parallel links and compress (graphs over SMALL_ARCS arcs) on small random graphs,
    against SciPy's components."""
    from gravel.backends.cpu import serial

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        labels = gravel.connected_components(G, device="cpu").labels
    assert verify_cc(G, labels) == []


@pytest.mark.parametrize("small", [True, False], ids=["serial", "parallel"])
def test_cc_compress_finds_every_root(small):
    """compress on random forests whose parents have smaller ids (Afforest's trees), some paths
    thousands deep, against NumPy's pointer jumping."""
    from gravel.backends.cpu import cc as kernels

    k = kernels.kernels(0 if small else 1 << 40)
    rng = np.random.default_rng(11)
    n = 200_000
    for reach in (1, 3, n):  # each parent at most `reach` ids below its child
        comp = np.arange(n, dtype=np.int32)
        child = np.arange(1, n)
        comp[1:] = child - rng.integers(1, np.minimum(child, reach) + 1)
        roots = rng.random(n) < 1e-4  # a few more trees, each its own root
        comp[roots] = np.flatnonzero(roots)
        ref = comp.copy()
        while not np.array_equal(ref, ref[ref]):
            ref = ref[ref]
        k.compress(comp)
        assert np.array_equal(comp, ref)


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_bfs_cc_pagerank(G):
    if G.n == 0:
        assert gravel.connected_components(G, device="cpu").labels.size == 0
        return
    for s in {0, G.n - 1, G.n // 2}:
        r = gravel.bfs(G, s, device="cpu")
        assert verify_bfs(G, s, r.depth, r.parent) == []
    assert verify_cc(G, gravel.connected_components(G, device="cpu").labels) == []
    pr = gravel.pagerank(G, tol=1e-10, max_iter=1000, stopping="networkx", device="cpu").rank
    ref = as_array(
        nx.pagerank(
            nx.DiGraph(G.to_networkx()) if G.directed else G.to_networkx(),
            weight=None,
            tol=1e-10,
            max_iter=1000,
        ),
        G,
    )
    # parallel arcs: NetworkX's simple graph merges them, so compare on the deduplicated graph
    D = deduplicate(G)
    assert np.allclose(
        gravel.pagerank(D, tol=1e-10, max_iter=1000, stopping="networkx", device="cpu").rank,
        ref,
        atol=1e-8,
    )
    assert abs(pr.sum() - 1) < 1e-9


@settings(max_examples=60, deadline=None)
@given(graphs(weighted=True))
def test_random_sssp_against_networkx(G):
    if G.n == 0:
        return
    g = nx.MultiDiGraph() if G.directed else nx.MultiGraph()
    g.add_nodes_from(range(G.n))
    src, dst = G.edges()
    g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), G.weights.tolist()))
    for s in {0, G.n - 1}:
        ref = nx.single_source_dijkstra_path_length(g, s)
        expect = np.array([ref.get(v, np.inf) for v in range(G.n)])
        for delta in (None, 1.0, 100.0):
            assert np.array_equal(gravel.sssp(G, s, delta=delta, device="cpu").distance, expect)


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_triangles_cores_betweenness(G):
    g = nx_simple_undirected(G)
    tri = gravel.triangles(G, device="cpu")
    assert np.array_equal(tri.triangles, as_array(nx.triangles(g), G))
    assert tri.total == sum(nx.triangles(g).values()) // 3
    core = gravel.core_number(G, device="cpu").core
    assert np.array_equal(core, as_array(nx.core_number(nx_without_loops(G)), G))
    h = nx.DiGraph(G.to_networkx()) if G.directed else nx.Graph(G.to_networkx())
    D = deduplicate(G)  # NetworkX counts parallel arcs once
    bc = gravel.betweenness_centrality(D, device="cpu").centrality
    assert np.allclose(bc, as_array(nx.betweenness_centrality(h), G), atol=1e-12)


def test_unweighted_sssp_equals_bfs_depth():
    G = gravel.generate.kronecker(10)
    d = gravel.sssp(G, 5, device="cpu").distance
    depth = gravel.bfs(G, 5, device="cpu").depth
    assert np.array_equal(np.where(np.isfinite(d), d, -1), depth)


def test_kron_sssp_against_scipy():
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(12), 1, 255, seed=2)
    s = int(np.argmax(G.out_degree))
    assert verify_sssp(G, s, gravel.sssp(G, s, device="cpu").distance) == []


# -- bad input -------------------------------------------------------------------------------------
def test_sources_that_do_not_exist():
    G = gravel.generate.grid(2, 2)
    for bad in (-1, 4, 2.0, "0", True):
        with pytest.raises(gravel.VertexNotFoundError):
            gravel.bfs(G, bad)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.sssp(G, 10)


@pytest.mark.parametrize("w", [-1.0, np.nan])
def test_sssp_rejects_negative_and_nan_weights(w):
    G = gravel.Graph.from_edges([0, 1, 1], [1, 2, 0], [1.0, w, 2.0])
    with pytest.raises(gravel.InvalidWeightError, match=r"arc 1 -> 2"):
        gravel.sssp(G, 0)


def test_empty_graph_gives_empty_results():
    G = gravel.Graph.from_edges([], [], n=0)
    assert gravel.pagerank(G).rank.size == 0
    assert gravel.connected_components(G).labels.size == 0
    assert gravel.triangles(G).total == 0
    assert gravel.core_number(G).core.size == 0
    assert gravel.betweenness_centrality(G).centrality.size == 0
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.bfs(G, 0)


def test_unknown_device():
    with pytest.raises(gravel.UnknownNameError):
        gravel.bfs(gravel.generate.grid(2, 2), 0, device="tpu")


def test_cuda_without_gpu_is_a_clear_error():
    from gravel.backends import cuda

    if cuda.available():
        pytest.skip("a GPU is present")
    with pytest.raises(gravel.DeviceUnavailableError, match="device='cuda'"):
        gravel.bfs(gravel.generate.grid(2, 2), 0, device="cuda")
