"""Checks of several CPU algorithms at once against an independent reference (NetworkX, SciPy,
published figures), and the bad input every algorithm shares. Each algorithm's own checks: its
test_<algorithm>.py; the GPU paths of several algorithms: test_gpu_against_cpu.py."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.algorithms.bfs import verify_bfs
from gravel.algorithms.cc import verify_cc
from gravel.transform import deduplicate

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs
from .helpers import as_array

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


# -- published figures on every shared dataset -----------------------------------------------------


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


# -- NetworkX on the smaller shared datasets -------------------------------------------------------
@pytest.mark.parametrize("entry", SMALL, ids=dataset_ids(SMALL))
def test_triangles_and_cores_per_vertex_match_networkx(entry):
    G, _ = load_dataset(entry)
    g = nx_simple_undirected(G)
    assert np.array_equal(gravel.triangles(G, device="cpu").triangles, as_array(nx.triangles(g), G))
    core = gravel.core_number(G, device="cpu").core
    assert np.array_equal(core, as_array(nx.core_number(nx_without_loops(G)), G))


# -- random graphs ---------------------------------------------------------------------------------


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


# -- bad input -------------------------------------------------------------------------------------
def test_sources_that_do_not_exist():
    G = gravel.generate.grid(2, 2)
    for bad in (-1, 4, 2.0, "0", True):
        with pytest.raises(gravel.VertexNotFoundError):
            gravel.bfs(G, bad)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.sssp(G, 10)


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
