"""Betweenness centrality on the CPU and the GPU: NetworkX's semantics on the awkward inputs
(issue 17: multigraphs, given sources, the edge cases of its arguments), NetworkX on the shared
datasets, the level-parallel kernel against Brandes, the GPU's batches, pulls and scatters against
the CPU.

Multigraphs are tiny and examples few, so that NetworkX's pure-Python references stay cheap."""

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.algorithms.centrality.betweenness import (
    _accumulate_basic,
    _rescale,
    _single_source_shortest_path_basic,
)

import gravel
from gravel import generate
from gravel.algorithms.betweenness import verify_betweenness
from gravel.algorithms.betweenness.cuda import BC_PULL_ABOVE
from gravel.arrays import host
from gravel.errors import InvalidGraphError, VertexNotFoundError
from gravel.transform import deduplicate

from ..conftest import load_dataset, reference
from ..strategies import graphs
from .helpers import as_array, multigraphs, nx_simple

REF = reference()


def nx_betweenness_from(g, sources, normalized):
    """networkx.betweenness_centrality's sampled computation, with the sample given."""
    bc = dict.fromkeys(g, 0.0)
    for s in sources:
        S, P, sigma, _ = _single_source_shortest_path_basic(g, s)
        bc, _ = _accumulate_basic(bc, S, P, sigma, s)
    k = len(sources)
    bc = _rescale(
        bc,
        len(g),
        normalized=normalized,
        directed=g.is_directed(),
        endpoints=False,
        sampled_nodes=None if k == len(g) else sources,
    )
    return np.array([bc[v] for v in range(len(g))])


# -- betweenness ---------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(multigraphs(), st.booleans())
def test_issue_17_betweenness_counts_parallel_arcs_once(case, normalized):
    G, arcs = case
    g = nx_simple(G, arcs)
    expect = np.array([nx.betweenness_centrality(g, normalized=normalized)[v] for v in range(G.n)])
    bc = gravel.betweenness_centrality(G, normalized=normalized, device="cpu")
    assert bc.centrality.dtype == np.float64
    assert np.allclose(bc.centrality, expect, rtol=1e-9, atol=1e-12)
    if normalized:
        assert verify_betweenness(G, expect) == []


@settings(max_examples=40, deadline=None)
@given(multigraphs(), st.data())
def test_issue_17_betweenness_from_given_sources_as_networkx(case, data):
    G, arcs = case
    g = nx_simple(G, arcs)
    sources = data.draw(st.lists(st.integers(0, G.n - 1), min_size=1, max_size=G.n, unique=True))
    normalized = data.draw(st.booleans())
    expect = nx_betweenness_from(g, sources, normalized)
    bc = gravel.betweenness_centrality(G, sources=sources, normalized=normalized, device="cpu")
    assert np.allclose(bc.centrality, expect, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert bc.sources.tolist() == sorted(sources)
    if normalized:
        assert verify_betweenness(G, expect, sources) == []


def test_issue_17_verify_betweenness_counts_parallel_arcs_once():
    # 0 -> 1 twice: the two paths 0 -> 1 -> 2 and 0 -> 3 -> 2 weigh the same
    G = gravel.Graph.from_edges([0, 0, 1, 0, 3], [1, 1, 2, 3, 2])
    simple = [0.0, 0.5, 0.0, 0.5]
    assert verify_betweenness(G, simple, normalized=False) == []
    assert verify_betweenness(G, [0.0, 2 / 3, 0.0, 1 / 3], normalized=False) != []


def test_issue_17_betweenness_of_a_reordered_multigraph():
    G = gravel.Graph.from_edges([0, 0, 1, 0, 3, 3], [1, 1, 2, 3, 2, 2])
    R = gravel.transform.relabel(G, np.array([3, 1, 0, 2]), transparent=True)
    bc = gravel.betweenness_centrality(R, normalized=False, device="cpu").centrality
    assert bc.tolist() == [0.0, 0.5, 0.0, 0.5]


@pytest.mark.parametrize("sources", [[], np.array([], np.int64)], ids=["list", "array"])
def test_issue_17_betweenness_refuses_no_sources(sources):
    with pytest.raises(InvalidGraphError, match="empty"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=sources, device="cpu")


@pytest.mark.parametrize("sources", [[0.5], [1.0], [True], ["0"]], ids=str)
def test_issue_17_betweenness_refuses_sources_that_are_not_ids(sources):
    with pytest.raises(VertexNotFoundError, match="integer"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=sources, device="cpu")


@pytest.mark.parametrize("sources", [[4], [-1], [0, 2**40]], ids=str)
def test_betweenness_refuses_sources_outside_the_graph(sources):
    with pytest.raises(VertexNotFoundError, match="not in the graph"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=sources, device="cpu")


def test_betweenness_refuses_sources_that_are_not_a_list():
    with pytest.raises(InvalidGraphError, match="1-D"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), sources=[[0, 1]], device="cpu")


def test_betweenness_counts_a_repeated_source_once():
    G = gravel.generate.grid(3, 3)
    twice = gravel.betweenness_centrality(G, sources=[4, 0, 4], device="cpu")
    once = gravel.betweenness_centrality(G, sources=[0, 4], device="cpu")
    assert twice.sources.tolist() == [0, 4]
    assert np.array_equal(twice.centrality, once.centrality)


@pytest.mark.parametrize("k", [0, -1, 5, 2.0, True, "2"], ids=repr)
def test_betweenness_refuses_a_bad_sample_size(k):
    with pytest.raises(InvalidGraphError, match="k"):
        gravel.betweenness_centrality(gravel.generate.grid(2, 2), k, device="cpu")


def test_betweenness_sample_of_every_vertex_is_the_exact_answer():
    G = gravel.generate.grid(3, 4)
    exact = gravel.betweenness_centrality(G, device="cpu").centrality
    every = gravel.betweenness_centrality(G, G.n, seed=1, device="cpu").centrality
    assert np.allclose(every, exact)


# -- NetworkX on the shared datasets; the level-parallel kernel -----------------------------------
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


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_betweenness_as_networkx(G):
    h = nx.DiGraph(G.to_networkx()) if G.directed else nx.Graph(G.to_networkx())
    D = deduplicate(G)  # NetworkX counts parallel arcs once
    bc = gravel.betweenness_centrality(D, device="cpu").centrality
    assert np.allclose(bc, as_array(nx.betweenness_centrality(h), G), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(graphs(max_n=60, max_m=300), st.integers(0, 2**31 - 1))
def test_betweenness_by_levels_kernel_matches_brandes(G, seed):
    """One source with every thread on it (backends/cpu/bc.dependencies, from the BFS depths)
    against the serial Brandes of the same source."""
    from gravel.algorithms.betweenness.api import _simple_arcs
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


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(multigraphs())
def test_issue_17_betweenness_counts_parallel_arcs_once_on_the_gpu(case):
    G, arcs = case
    g = nx_simple(G, arcs)
    expect = np.array([nx.betweenness_centrality(g)[v] for v in range(G.n)])
    bc = gravel.betweenness_centrality(G, device="cuda")
    assert bc.device == "cuda" and bc.centrality.dtype == np.float64
    assert np.allclose(host(bc.centrality), expect, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
def test_issue_17_betweenness_of_a_multigraph_on_the_device():
    # a graph whose only copy is on the GPU: its parallel arcs are found there
    G = gravel.Graph.from_edges([0, 0, 1, 0, 3, 3], [1, 1, 2, 3, 2, 2])
    G.to("cuda")
    D = gravel.transform.relabel(G, np.arange(4))
    assert D.device_graph is not None
    bc = gravel.betweenness_centrality(D, normalized=False, device="cuda").centrality
    assert host(bc).tolist() == [0.0, 0.5, 0.0, 0.5]


@pytest.mark.gpu
@pytest.mark.parametrize(
    "G",
    [
        generate.kronecker(9, 8, seed=7),
        generate.uniform_random(9, 6, seed=8, directed=True),
        gravel.Graph.from_edges([0, 0, 1, 0, 3, 3, 2], [1, 1, 2, 3, 2, 2, 4]),  # parallel arcs
    ],
    ids=["kron", "urand-directed", "multigraph"],
)
def test_bc_batches_agree_with_the_cpu(G):
    r = gravel.betweenness_centrality(G, device="cuda")
    ref = gravel.betweenness_centrality(G, device="cpu").centrality
    assert r.strategy == ("brandes, batched" if G.n >= 64 else "brandes")
    assert np.allclose(r.centrality.get(), ref, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "G",
    [
        generate.kronecker(10, 8, seed=5),
        generate.uniform_random(10, 6, seed=6, directed=True),
        generate.grid(20, 30),
        gravel.Graph.from_edges([0, 0, 1, 0, 3, 3, 2], [1, 1, 2, 3, 2, 2, 4]),  # parallel arcs
    ],
    ids=["kron", "urand-directed", "grid", "multigraph"],
)
@pytest.mark.parametrize(
    "above", [0.0, BC_PULL_ABOVE, float("inf")], ids=["pull", "switch", "push"]
)
@pytest.mark.parametrize("filtered", [0.0, float("inf")], ids=["unvisited", "candidates"])
def test_bc_forward_pulls_agree_with_the_cpu(monkeypatch, G, above, filtered):
    """Forward levels pulled from the first on (BC_PULL_ABOVE 0), by the switch, or never, source
    by source, against the CPU's Brandes; the pulls over the unvisited only (PULL_FILTER_ABOVE 0)
    or over every candidate."""
    from gravel.algorithms.betweenness import cuda

    monkeypatch.setattr(cuda, "BC_PULL_ABOVE", above)
    monkeypatch.setattr(cuda, "PULL_FILTER_ABOVE", filtered)
    sources = np.unique(np.linspace(0, G.n - 1, 5).astype(int))
    r = gravel.betweenness_centrality(G, sources=sources, device="cuda")
    ref = gravel.betweenness_centrality(G, sources=sources, device="cpu").centrality
    assert r.strategy == "brandes"
    if above == 0.0:
        assert r.stats["pulled_levels"] > 0
    if above == float("inf"):
        assert r.stats["pulled_levels"] == 0
    assert np.allclose(r.centrality.get(), ref, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.gpu
@pytest.mark.parametrize("thin", [0, 40, 1 << 20], ids=["none", "some", "all"])
def test_bc_backward_mixes_replays_and_advances(monkeypatch, thin):
    """Levels of at most `thin` vertices go back in replays, wider ones in advances of their own:
    with 40, the levels from vertex 0 of this graph (1, 16, 187, 722, 98 vertices) take both."""
    import gravel.operators

    G = generate.uniform_random(10, 6, seed=9)
    sizes = np.bincount(gravel.bfs(G, 0, device="cpu").depth + 1)[1:]
    assert sizes.min() <= 40 < sizes.max()
    monkeypatch.setattr(gravel.operators, "thin_frontier_limit", lambda graph: thin)
    r = gravel.betweenness_centrality(G, sources=[0, 5, 700], device="cuda")
    ref = gravel.betweenness_centrality(G, sources=[0, 5, 700], device="cpu").centrality
    assert np.allclose(r.centrality.get(), ref, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "G",
    [
        generate.kronecker(10, 8, seed=5),
        generate.uniform_random(10, 6, seed=6, directed=True),
        generate.uniform_random(10, 6, seed=9),
    ],
    ids=["kron", "urand-directed", "urand"],
)
def test_bc_backward_scatters_where_fewer_arcs(monkeypatch, G):
    """Every level wide (no thin ones): a level with more out-arcs than the level below has in-arcs
    is scattered from below over the in-arcs, a directed graph's CSC (the levels counted from the
    CPU's BFS: five to twelve here); the result is the CPU's."""
    import gravel.operators

    monkeypatch.setattr(gravel.operators, "thin_frontier_limit", lambda graph: 0)
    sources = np.unique(np.linspace(0, G.n - 1, 5).astype(int))
    out_degree, in_degree = np.diff(G.offsets), np.bincount(G.indices, minlength=G.n)
    expect = 0
    for s in sources:
        depth = gravel.bfs(G, int(s), device="cpu").depth
        out_arcs = np.bincount(depth[depth >= 0], weights=out_degree[depth >= 0])
        in_arcs = np.bincount(depth[depth >= 0], weights=in_degree[depth >= 0])
        expect += int((out_arcs[1:-1] > in_arcs[2:]).sum())
    r = gravel.betweenness_centrality(G, sources=sources, device="cuda")
    ref = gravel.betweenness_centrality(G, sources=sources, device="cpu").centrality
    assert expect > 0 and r.stats["scattered_levels"] == expect
    assert np.allclose(r.centrality.get(), ref, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.gpu
@pytest.mark.parametrize("isolated_first", [False, True])
def test_bc_on_a_deep_graph_goes_source_by_source(isolated_first):
    """Also where the first source is isolated (its search is 0 deep: the depth is probed from
    the first source with arcs)."""
    G = generate.grid(2, 100)  # 100 levels from a corner
    sources = None
    if isolated_first:  # each edge's two arcs, and one vertex more
        G = gravel.Graph.from_edges(*G.edges(), n=G.n + 1)
        sources = [G.n - 1, *range(0, G.n - 1, 2)]
    r = gravel.betweenness_centrality(G, sources=sources, device="cuda")
    assert r.strategy == "brandes"
    ref = gravel.betweenness_centrality(G, sources=sources, device="cpu").centrality
    assert np.allclose(r.centrality.get(), ref, equal_nan=True)
