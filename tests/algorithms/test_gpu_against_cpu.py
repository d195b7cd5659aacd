"""Every GPU algorithm against its CPU path (and so against NetworkX and SciPy, which the CPU tests
check the CPU paths against), one check per algorithm, so that one failure hides no other.

BFS, SSSP, connected components, PageRank, triangles, k-cores and betweenness: verified trees and
components, ranks, counts and centralities equal to the CPU's. Issue 22's primitives: the same
maximal independent set and colouring for a seed (both are the greedy ones in priority order), the
same label-propagation communities, the same minimum spanning forest (unique under the
weight-then-ends order), HITS scores equal to rounding and the same strongly connected components.
On generated, reordered, hypothesis and the shared graphs."""

import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel import generate, transform
from gravel.algorithms.bfs import verify_bfs
from gravel.algorithms.cc import verify_cc
from gravel.algorithms.coloring import verify_coloring
from gravel.algorithms.mis import verify_mis
from gravel.algorithms.msf import verify_msf
from gravel.algorithms.scc import verify_scc
from gravel.algorithms.sssp import verify_sssp
from gravel.reorder import reorder

from ..conftest import GPU_GRAPHS, dataset_ids, gpu_graph, load_dataset, reference
from ..strategies import graphs
from .helpers import both

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

REF = reference()
#: the graphs issue 22's primitives are compared on (the other algorithms: conftest.GPU_GRAPHS)
PRIMITIVE_GRAPHS = {
    "kron": transform.add_random_weights(generate.kronecker(12, 8, seed=3), 1, 255, seed=2),
    "grid": generate.grid(40, 50),
    "urand-directed": generate.uniform_random(11, 8, seed=4, directed=True),
    "kron-reordered": reorder(generate.kronecker(10, 8, seed=5), "degree"),
}
#: HITS iterations compared (tol=0: both paths run exactly these)
HITS_ITERATIONS = 30


# -- one check per algorithm: check(G, sources); issue 22's primitives take no source -------------
def check_bfs(G, sources):
    for s in sources:
        r = gravel.bfs(G, s, device="cuda")
        assert r.device == "cuda"
        assert verify_bfs(G, s, r.depth.get(), r.parent.get()) == []


def check_sssp(G, sources):
    for s in sources:
        r = gravel.sssp(G, s, device="cuda")
        d, pred = r.distance.get().astype(np.float64), r.predecessor.get()
        assert verify_sssp(G, s, d, pred, rtol=1e-5) == []


def check_cc(G, sources):
    cc = gravel.connected_components(G, device="cuda").labels.get()
    assert verify_cc(G, cc) == []


def check_pagerank(G, sources):
    if G.n:
        pr = gravel.pagerank(G, device="cuda").rank.get()
        ref = gravel.pagerank(G, device="cpu").rank
        assert np.abs(pr - ref).sum() < 1e-4 and np.allclose(pr, ref, rtol=1e-3, atol=1e-7)


def check_triangles(G, sources):
    tri = gravel.triangles(G, device="cuda")
    cpu = gravel.triangles(G, device="cpu")
    assert np.array_equal(tri.triangles.get(), cpu.triangles) and tri.total == cpu.total
    assert gravel.triangles(G, per_vertex=False, device="cuda").total == cpu.total


def check_core_number(G, sources):
    core = gravel.core_number(G, device="cuda").core.get()
    assert np.array_equal(core, gravel.core_number(G, device="cpu").core)


def check_betweenness(G, sources):
    if G.n:
        srcs = np.unique(np.array(sources + [G.n // 2]))
        for D in (G, transform.deduplicate(G)):
            bc = gravel.betweenness_centrality(D, sources=srcs, device="cuda").centrality.get()
            ref = gravel.betweenness_centrality(D, sources=srcs, device="cpu").centrality
            assert np.allclose(bc, ref, rtol=1e-9, atol=1e-12, equal_nan=True)


# the primitives that NetworkX defines on undirected graphs only pass directed ones over
def check_mis(G, sources=()):
    if G.directed:
        return
    for seed in (1, 7):
        gpu, cpu = both(gravel.maximal_independent_set, G, seed=seed)
        assert np.array_equal(gpu.in_set.get(), cpu.in_set)
        assert np.array_equal(gpu.nodes.get(), cpu.nodes)
        assert verify_mis(G, gpu.in_set.get()) == []


def check_lpa(G, sources=()):
    if G.directed:
        return
    gpu, cpu = both(gravel.label_propagation_communities, G)
    assert np.array_equal(gpu.labels.get(), cpu.labels)
    assert gpu.iterations == cpu.iterations
    assert gpu.modularity == pytest.approx(cpu.modularity, abs=1e-12)


def check_msf(G, sources=()):
    if G.directed:
        return
    for weight in (True, None):
        gpu, cpu = both(gravel.minimum_spanning_forest, G, weight=weight)
        for name in ("src", "dst", "weight", "parent"):
            assert np.array_equal(getattr(gpu, name).get(), getattr(cpu, name)), name
        assert gpu.total_weight == pytest.approx(cpu.total_weight, rel=1e-9, abs=1e-9)
        assert gpu.iterations == cpu.iterations or G.n == 0  # the CPU counts a round of nothing
        problems = verify_msf(G, gpu.parent.get(), total_weight=gpu.total_weight, weight=weight)
        assert problems == []


def check_coloring(G, sources=()):
    for seed in (None, 3):
        gpu, cpu = both(gravel.greedy_color, G, seed=seed)
        assert np.array_equal(gpu.colors.get(), cpu.colors)
        assert verify_coloring(G, gpu.colors.get()) == []


def check_hits(G, sources=()):
    gpu, cpu = both(gravel.hits, G, max_iter=HITS_ITERATIONS, tol=0.0)
    assert gpu.iterations == cpu.iterations
    for name in ("hubs", "authorities"):
        assert np.allclose(getattr(gpu, name).get(), getattr(cpu, name), rtol=1e-7, atol=1e-12)


def check_scc(G, sources=()):
    gpu, cpu = both(gravel.strongly_connected_components, G)
    assert np.array_equal(gpu.labels.get(), cpu.labels)
    assert verify_scc(G, gpu.labels.get()) == []


TRAVERSALS = {
    "bfs": check_bfs,
    "sssp": check_sssp,
    "cc": check_cc,
    "pagerank": check_pagerank,
    "triangles": check_triangles,
    "core_number": check_core_number,
    "betweenness": check_betweenness,
}
PRIMITIVES = {
    "mis": check_mis,
    "lpa": check_lpa,
    "msf": check_msf,
    "coloring": check_coloring,
    "hits": check_hits,
    "scc": check_scc,
}
CHECKS = {**TRAVERSALS, **PRIMITIVES}
UNDIRECTED = {"mis", "lpa", "msf"}
FIXED = [pytest.param(a, n, id=f"{a}-{n}") for a in TRAVERSALS for n in GPU_GRAPHS] + [
    pytest.param(a, n, id=f"{a}-{n}") for a in PRIMITIVES for n in PRIMITIVE_GRAPHS
]


@pytest.mark.parametrize("algorithm,name", FIXED)
def test_fixed_graphs(algorithm, name):
    if algorithm in PRIMITIVES:
        PRIMITIVES[algorithm](PRIMITIVE_GRAPHS[name])
        return
    G = gpu_graph(name)
    sources = [
        int(np.argmax(G.out_degree)),
        0,
        int(np.argmin(G.out_degree)),
    ]  # the last has few out-edges
    TRAVERSALS[algorithm](G, sources)


@pytest.mark.parametrize("algorithm", list(CHECKS))
@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True))
def test_random_graphs(algorithm, G):
    CHECKS[algorithm](G, sorted({0, G.n - 1}) if G.n else [])


@pytest.mark.parametrize("algorithm", list(PRIMITIVES))
@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_shared_datasets(entry, algorithm):
    G, _ = load_dataset(entry)
    PRIMITIVES[algorithm](G)
    if G.directed and algorithm in UNDIRECTED:  # on the graph of its arcs
        PRIMITIVES[algorithm](transform.symmetrize(G))


# -- the published figures of the shared datasets: published(G, entry, internal), one per algorithm
def published_bfs(G, entry, internal):
    c = entry["checks"]
    s = internal(c["bfs_source_label"])
    depth = gravel.bfs(G, s, device="cuda").depth.get()
    assert (depth >= 0).sum() == c["bfs_reached"] and depth.max() == c["bfs_max_depth"]
    assert depth[depth >= 0].sum() == c["bfs_sum_depth"]


def published_cc(G, entry, internal):
    assert (
        gravel.connected_components(G, device="cuda").summary()["components"]
        == entry["computed"]["wcc_count"]
    )


def published_triangles(G, entry, internal):
    assert (
        gravel.triangles(G, per_vertex=False, device="cuda").total == entry["computed"]["triangles"]
    )


def published_core_number(G, entry, internal):
    c = entry["checks"]
    # the published cores are those of the undirected simple graph, also of directed datasets
    core = gravel.core_number(transform.symmetrize(G), device="cuda").core.get()
    assert core.max() == c["kcore_max"] and (core == core.max()).sum() == c["kcore_max_size"]


def published_sssp(G, entry, internal):
    c = entry["checks"]
    d = gravel.sssp(G, internal(c["sssp_source_label"]), device="cuda").distance.get()
    f = np.isfinite(d)
    assert f.sum() == c["sssp_reached"] and d[f].sum() == c["sssp_sum_dist"]


PUBLISHED = {
    "bfs": published_bfs,
    "cc": published_cc,
    "triangles": published_triangles,
    "core_number": published_core_number,
    "sssp": published_sssp,
}
# the datasets that publish each figure: triangles and SSSP are given for some of them only
PUBLISHED_CASES = [
    pytest.param(a, e, id=f"{a}-{e['file']}")
    for a in PUBLISHED
    for e in REF
    if (a != "triangles" or "triangles" in e["computed"])
    and (a != "sssp" or "sssp_source_label" in e["checks"])
]


@pytest.mark.parametrize("algorithm,entry", PUBLISHED_CASES)
def test_shared_datasets_match_published_figures(algorithm, entry):
    G, internal = load_dataset(entry)
    PUBLISHED[algorithm](G, entry, internal)


AUTO = {
    "bfs": lambda G: gravel.bfs(G, 0),
    "core_number": gravel.core_number,
    "betweenness": gravel.betweenness_centrality,
    "mis": gravel.maximal_independent_set,
    "coloring": gravel.greedy_color,
    "lpa": gravel.label_propagation_communities,
    "msf": gravel.minimum_spanning_forest,
    "hits": gravel.hits,
    "scc": gravel.strongly_connected_components,
}


@pytest.mark.parametrize("algorithm", list(AUTO))
def test_auto_picks_the_gpu(algorithm):
    G = generate.grid(4, 4)
    assert AUTO[algorithm](G).device == "cuda"
