"""Distributed betweenness (sources over replicas), triangle counts and core numbers over 1-3
parts against the single-process CPU path, in this process and on Dask workers; a worker lost
under one of them is a WorkerLostError."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel.errors import InvalidArgumentError

from ..strategies import graphs

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_triangles(G, res, per_vertex=True):
    ref = gravel.triangles(G, device="cpu")
    assert res.total == ref.total
    if per_vertex:
        assert np.array_equal(res.triangles, ref.triangles)
    else:
        assert res.triangles is None


def check_core(G, res):
    assert np.array_equal(res.core, gravel.core_number(G, device="cpu").core)


def check_bc(G, res, **kw):
    ref = gravel.betweenness_centrality(G, device="cpu", **kw)
    assert np.array_equal(res.sources, ref.sources)
    np.testing.assert_allclose(res.centrality, ref.centrality, rtol=1e-10, atol=1e-12)


def _random(n, m, directed, seed):
    rng = np.random.default_rng(seed)
    return gravel.Graph.from_edges(
        rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed
    )


KRON = {
    "kron": lambda: gravel.generate.kronecker(7, 8, seed=3),
    "kron-directed": lambda: gravel.generate.kronecker(7, 8, directed=True, seed=5),
    "random": lambda: _random(80, 400, False, 7),
    "random-directed": lambda: _random(80, 400, True, 8),
}


@FAST
@given(G=graphs(max_n=30, max_m=100), parts=st.integers(1, 3), per_vertex=st.booleans())
def test_hypothesis_graphs_in_process(G, parts, per_vertex):
    where = {"parts": parts, "cluster": "in-process"}
    check_triangles(G, gd.triangles(G, per_vertex=per_vertex, **where), per_vertex)
    check_core(G, gd.core_number(G, **where))
    check_bc(G, gd.betweenness_centrality(G, **where))


@pytest.mark.parametrize("name", list(KRON))
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_kron_and_random_in_process(name, parts):
    G = KRON[name]()
    where = {"parts": parts, "cluster": "in-process"}
    res = gd.triangles(G, **where)
    check_triangles(G, res)
    assert res.total > 0 and res.stats["parts"] == parts
    res = gd.core_number(G, **where)
    check_core(G, res)
    assert res.core.max() > 1 and res.iterations >= 1
    check_bc(G, gd.betweenness_centrality(G, **where))
    sample = {"k": 9, "seed": 4}
    check_bc(G, gd.betweenness_centrality(G, **sample, **where), **sample)
    chosen = {"sources": [5, 1, 70, 1], "normalized": False}
    check_bc(G, gd.betweenness_centrality(G, **chosen, **where), **chosen)


@FAST
@given(G=graphs(max_n=30, max_m=100), cuts=st.lists(st.floats(0, 1), min_size=2, max_size=2))
def test_any_bounds_empty_parts_included(G, cuts):
    """Three parts cut anywhere, empty ones too (a part with no vertex runs every collective with
    nothing to send): the single machine's counts."""
    bounds = [0, *sorted(int(c * G.n) for c in cuts), G.n]
    PG = gd.partition(G, 3, bounds=bounds)
    check_triangles(G, gd.triangles(PG, cluster="in-process"))
    check_triangles(G, gd.triangles(PG, per_vertex=False, cluster="in-process"), False)
    check_core(G, gd.core_number(PG, cluster="in-process"))


def _loops_and_reciprocal_arcs():
    """Arcs of a directed graph whose parts meet self loops, reciprocal and parallel arcs and
    isolated vertices: two triangles sharing an edge (0-1-2, 1-2-3), a 4-clique (4..7) of arcs
    both ways, a loop at every vertex of the clique, a pendant 8 -> 4 twice; 9, 10, 11 alone."""
    src = [0, 1, 2, 2, 1, 3, 3, 1, 8, 8]
    dst = [1, 2, 0, 1, 3, 2, 3, 0, 4, 4]
    clique = [(a, b) for a in range(4, 8) for b in range(4, 8)]  # loops included
    return src + [a for a, _ in clique], dst + [b for _, b in clique]


@pytest.mark.parametrize("bounds", [None, [0, 0, 6, 12], [0, 12, 12, 12], [0, 5, 5, 12]])
def test_loops_reciprocal_arcs_isolated_vertices(bounds):
    """Against NetworkX: core numbers of the DiGraph (reciprocal arcs twice in the degree, loops
    never), triangles of its undirected simple graph."""
    import networkx as nx

    src, dst = _loops_and_reciprocal_arcs()
    G = gravel.Graph.from_edges(src, dst, n=12, directed=True)
    D = nx.DiGraph()
    D.add_nodes_from(range(12))
    D.add_edges_from((u, v) for u, v in zip(src, dst) if u != v)
    PG = gd.partition(G, 3, bounds=bounds)
    tri = gd.triangles(PG, cluster="in-process")
    check_triangles(G, tri)
    expect = nx.triangles(D.to_undirected())
    assert tri.triangles.tolist() == [expect[v] for v in range(12)]
    core = gd.core_number(PG, cluster="in-process")
    check_core(G, core)
    assert core.core.tolist() == [nx.core_number(D)[v] for v in range(12)]


@pytest.mark.parametrize("name", ["kron-directed", "random"])
def test_large_graphs_paths(name):
    """The parallel kernels that graphs past SMALL_ARCS take, on a small graph."""
    from gravel.prebuild_cpu import large_paths

    G = KRON[name]()
    for parts in (1, 3):
        with large_paths():
            tri = gd.triangles(G, parts=parts, cluster="in-process")
            core = gd.core_number(G, parts=parts, cluster="in-process")
        check_triangles(G, tri)
        check_core(G, core)


def test_reordered_graph_in_callers_ids():
    G = gravel.generate.kronecker(7, 8, seed=2)
    R = gravel.reorder.reorder(G, "degree")
    assert R.order is not None
    where = {"parts": 3, "cluster": "in-process"}
    check_triangles(R, gd.triangles(R, **where))
    check_core(R, gd.core_number(R, **where))
    check_bc(R, gd.betweenness_centrality(R, sources=[0, 3, 9], **where), sources=[0, 3, 9])


def test_bc_sampling_needs_a_graph():
    PG = gd.partition(gravel.generate.grid(3, 3), 2)
    with pytest.raises(InvalidArgumentError, match="need a Graph"):
        gd.betweenness_centrality(PG, k=2)
    with pytest.raises(gravel.VertexNotFoundError):
        gd.betweenness_centrality(gravel.generate.grid(3, 3), sources=[9], cluster="in-process")


def test_results_left_in_process():
    G = gravel.generate.kronecker(7, 8, seed=3)
    PG = gd.partition(G, 3)
    kept = gd.core_number(PG, gather=False)
    assert isinstance(kept.core, gd.PartArrays)
    assert np.array_equal(np.asarray(kept.core), gravel.core_number(G, device="cpu").core)


# -- on Dask workers ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("distributed")
    with gd.Cluster(parts=3) as c:
        yield c


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_kron_on_workers(cluster, parts):
    G = KRON["kron-directed"]()
    DG = cluster.load(G, parts)
    try:
        check_triangles(G, gd.triangles(DG))
        check_core(G, gd.core_number(DG))
        check_bc(G, gd.betweenness_centrality(DG))
    finally:
        DG.free()


def test_graph_and_results_left_on_workers(cluster):
    G = KRON["random"]()
    check_bc(G, gd.betweenness_centrality(G, k=7, seed=1, parts=3, cluster=cluster), k=7, seed=1)
    DG = cluster.load(G, 3)
    try:
        kept = gd.triangles(DG, gather=False)
        assert kept.triangles.client is cluster.client
        assert np.array_equal(
            np.asarray(kept.triangles), gravel.triangles(G, device="cpu").triangles
        )
    finally:
        DG.free()


@pytest.mark.slow
def test_a_worker_lost_under_a_count_is_one_error():
    from .test_workers_lost import HUNG_S, _kill_part_one, _within, _workers_left

    psutil = pytest.importorskip("psutil")
    G = KRON["kron"]()
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with gd.Cluster(parts=2) as c:
        DG = c.load(G)
        check_core(G, gd.core_number(DG))
        _kill_part_one(c.client, {})
        for call in (gd.triangles, gd.core_number, gd.betweenness_centrality):
            with pytest.raises(gd.WorkerLostError, match="the worker of part 1"):
                _within(HUNG_S, lambda call=call: call(DG))
    assert _workers_left(before) == []


@pytest.mark.gpu
def test_gpu_clusters_run_betweenness_triangles_and_core_numbers():
    pytest.importorskip("distributed")
    G = gravel.generate.kronecker(6, 8)
    with gd.GPUCluster(1) as c:
        core = gd.core_number(G, cluster=c)
        assert core.device == "cuda"
        np.testing.assert_array_equal(core.core, gravel.core_number(G, device="cpu").core)
        got = gd.betweenness_centrality(G, k=20, seed=3, cluster=c)
        ref = gravel.betweenness_centrality(G, k=20, seed=3, device="cpu")
        assert got.device == "cuda" and np.array_equal(got.sources, ref.sources)
        np.testing.assert_allclose(got.centrality, ref.centrality, rtol=1e-9, atol=1e-12)
        ref = gravel.triangles(G, device="cpu")
        for per_vertex in (True, False):
            got = gd.triangles(G, per_vertex=per_vertex, cluster=c)
            assert got.device == "cuda" and got.total == ref.total
            if per_vertex:
                assert np.array_equal(got.triangles, ref.triangles)
