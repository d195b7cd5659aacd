"""GPU primitives against the CPU path (and so against NetworkX and SciPy, which the CPU path
matches)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import generate, transform
from gravel.algorithms.betweenness.cuda import BC_PULL_ABOVE
from gravel.algorithms.bfs import verify_bfs
from gravel.algorithms.cc import verify_cc
from gravel.algorithms.sssp import verify_sssp

from .conftest import dataset_ids, load_dataset, reference
from .strategies import graphs

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

REF = reference()
FIXED = [
    ("kron", transform.add_random_weights(generate.kronecker(13, 16, seed=3), 1, 255, seed=2)),
    ("grid", generate.grid(60, 70)),
    ("urand-directed", generate.uniform_random(12, 8, seed=4, directed=True)),
]


def check_all(G, sources):
    for s in sources:
        r = gravel.bfs(G, s, device="cuda")
        assert r.device == "cuda"
        assert verify_bfs(G, s, r.depth.get(), r.parent.get()) == []
        r = gravel.sssp(G, s, device="cuda")
        d, pred = r.distance.get().astype(np.float64), r.predecessor.get()
        assert verify_sssp(G, s, d, pred, rtol=1e-5) == []
    cc = gravel.connected_components(G, device="cuda").labels.get()
    assert verify_cc(G, cc) == []
    if G.n:
        pr = gravel.pagerank(G, device="cuda").rank.get()
        ref = gravel.pagerank(G, device="cpu").rank
        assert np.abs(pr - ref).sum() < 1e-4 and np.allclose(pr, ref, rtol=1e-3, atol=1e-7)
    tri = gravel.triangles(G, device="cuda")
    cpu = gravel.triangles(G, device="cpu")
    assert np.array_equal(tri.triangles.get(), cpu.triangles) and tri.total == cpu.total
    assert gravel.triangles(G, per_vertex=False, device="cuda").total == cpu.total
    core = gravel.core_number(G, device="cuda").core.get()
    assert np.array_equal(core, gravel.core_number(G, device="cpu").core)
    if G.n:
        srcs = np.unique(np.array(sources + [G.n // 2]))
        for D in (G, transform.deduplicate(G)):
            bc = gravel.betweenness_centrality(D, sources=srcs, device="cuda").centrality.get()
            ref = gravel.betweenness_centrality(D, sources=srcs, device="cpu").centrality
            assert np.allclose(bc, ref, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name,G", FIXED, ids=[f[0] for f in FIXED])
def test_fixed_graphs(name, G):
    sources = [
        int(np.argmax(G.out_degree)),
        0,
        int(np.argmin(G.out_degree)),
    ]  # the last has few out-edges
    check_all(G, sources)


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True))
def test_random_graphs(G):
    check_all(G, sorted({0, G.n - 1}) if G.n else [])


@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_shared_datasets(entry):
    G, internal = load_dataset(entry)
    c = entry["checks"]
    s = internal(c["bfs_source_label"])
    depth = gravel.bfs(G, s, device="cuda").depth.get()
    assert (depth >= 0).sum() == c["bfs_reached"] and depth.max() == c["bfs_max_depth"]
    assert depth[depth >= 0].sum() == c["bfs_sum_depth"]
    assert (
        gravel.connected_components(G, device="cuda").summary()["components"]
        == entry["computed"]["wcc_count"]
    )
    if "triangles" in entry["computed"]:
        assert (
            gravel.triangles(G, per_vertex=False, device="cuda").total
            == entry["computed"]["triangles"]
        )
    # the published cores are those of the undirected simple graph, also of directed datasets
    core = gravel.core_number(transform.symmetrize(G), device="cuda").core.get()
    assert core.max() == c["kcore_max"] and (core == core.max()).sum() == c["kcore_max_size"]
    if "sssp_source_label" in c:
        d = gravel.sssp(G, internal(c["sssp_source_label"]), device="cuda").distance.get()
        f = np.isfinite(d)
        assert f.sum() == c["sssp_reached"] and d[f].sum() == c["sssp_sum_dist"]


def test_auto_picks_the_gpu():
    G = generate.grid(4, 4)
    for algo in (
        lambda: gravel.bfs(G, 0),
        lambda: gravel.core_number(G),
        lambda: gravel.betweenness_centrality(G),
    ):
        assert algo().device == "cuda"


@pytest.mark.parametrize("name,G", FIXED, ids=[f[0] for f in FIXED])
@pytest.mark.parametrize("direction", ["pull", "push"])
@pytest.mark.parametrize("blocking", [None, 1, 97, 10**9, "auto"])
def test_blocked_and_pushed_pagerank_equal_the_plain_pull(name, G, direction, blocking):
    """Block widths of one vertex, of a width that splits hubs, wider than the graph, and the
    card's."""
    plain = gravel.pagerank(G, max_iter=30, tol=0.0, blocking=None, device="cuda").rank.get()
    r = gravel.pagerank(
        G, max_iter=30, tol=0.0, direction=direction, blocking=blocking, device="cuda"
    ).rank.get()
    assert np.allclose(r, plain, rtol=1e-5, atol=1e-9)
    ref = gravel.pagerank(G, max_iter=30, tol=0.0, device="cpu").rank
    assert np.abs(r - ref).sum() < 1e-4


@pytest.mark.parametrize("name,G", FIXED, ids=[f[0] for f in FIXED])
@pytest.mark.parametrize(
    "direction,blocking", [("pull", None), ("pull", "auto"), ("pull", 97), ("push", None)]
)
def test_pagerank_returns_the_iteration_that_converged(name, G, direction, blocking):
    """The GPU reads each iteration's L1 change while the next runs: the ranks it returns are those
    of the iteration that converged (a fixed run of as many iterations gives them, up to the order
    of the atomics that blocked and pushed sweeps add in; the iterations around it differ by some
    1e-3), whose change is below n * tol, and one iteration fewer does not converge."""
    from gravel.algorithms.pagerank import PowerIterationFailedConvergence

    opts = {"direction": direction, "blocking": blocking, "device": "cuda"}
    r = gravel.pagerank(G, tol=1e-6, **opts)
    assert 1 < r.iterations < 100 and r.stats["error"] < G.n * 1e-6
    fixed = gravel.pagerank(G, max_iter=r.iterations, tol=0.0, **opts)
    assert fixed.iterations == r.iterations and np.allclose(
        fixed.rank.get(), r.rank.get(), rtol=1e-5, atol=0
    )
    # a push, or a blocked pull, adds a vertex's terms atomically in any order: its last change,
    # some 1e-6 in L1 at the default tol, varies by a few percent from run to run
    noise = 1e-3 if r.strategy.startswith("pull, unblocked") else 5e-2
    assert fixed.stats["error"] == pytest.approx(r.stats["error"], rel=noise)
    with pytest.raises(PowerIterationFailedConvergence):
        gravel.pagerank(G, max_iter=r.iterations - 1, tol=1e-6, **opts)
    cpu = gravel.pagerank(G, tol=1e-6, device="cpu")
    assert (
        abs(cpu.iterations - r.iterations) <= 1
    )  # float32 ranks may cross the line one iteration apart


@pytest.mark.parametrize("name,G", FIXED, ids=[f[0] for f in FIXED])
def test_reordering_a_graph_on_the_device_happens_there(name, G):
    from gravel.reorder import reorder

    on_host = reorder(G, "degree")
    D = gravel.Graph(G.offsets, G.indices, G.weights, directed=G.directed)
    D.to("cuda")
    on_device = reorder(D, "degree")
    assert on_device.device_graph is not None and on_device.device_graph.host is on_device
    dev = on_device.device_graph
    for a, b in (
        (on_host.offsets, on_device.offsets),
        (on_host.indices, on_device.indices),
        (on_host.offsets, dev.offsets.get()),
        (on_host.indices, dev.indices.get()),
    ):
        assert np.array_equal(a, b)
    assert np.array_equal(on_host.order, on_device.order)
    s = int(np.argmax(G.out_degree))
    assert np.array_equal(
        gravel.bfs(on_device, s, device="cuda").depth.get(), gravel.bfs(G, s, device="cpu").depth
    )


@settings(max_examples=30, deadline=None)
@given(graphs())
def test_packing_factor_on_the_device_equals_numpy(G):
    """The device count against the host's NumPy masks (which test_reorder checks against Algorithm
    3 written out), by out- and in-degree, for several lines, hubs scrambled and sorted."""
    from gravel.reorder import packing_factor, permutation

    for H in (G, transform.relabel(G, permutation(G, "hub_sort"))) if G.n else (G,):
        D = gravel.Graph(H.offsets, H.indices, directed=H.directed)
        D.to("cuda")
        for by in ("out", "in"):
            for line_bytes, value_bytes in ((64, 4), (128, 4), (64, 8), (4, 4)):
                expected = packing_factor(H, by, line_bytes=line_bytes, value_bytes=value_bytes)
                assert (
                    packing_factor(D, by, line_bytes=line_bytes, value_bytes=value_bytes)
                    == expected
                )


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


def test_bc_on_a_deep_graph_goes_source_by_source():
    G = generate.grid(2, 100)  # 100 levels from a corner
    r = gravel.betweenness_centrality(G, device="cuda")
    assert r.strategy == "brandes"
    ref = gravel.betweenness_centrality(G, device="cpu").centrality
    assert np.allclose(r.centrality.get(), ref)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=1024))
def test_cc_names_the_sampled_label_most_vertices_carry_on_the_device(labels):
    """Afforest's skipped component, found on the device: the label that most of the sample's carry
    (ties: the first of them in the sample), as NumPy counts it."""
    from gravel.algorithms.cc import _most_common_cuda

    x = np.array(labels, np.int32)
    values, counts = np.unique(x, return_counts=True)
    tied = values[counts == counts.max()]
    got = _most_common_cuda(cupy.asarray(x))
    assert got.shape == (1,) and got.dtype == np.int32
    assert int(got.get()[0]) == min(tied, key=labels.index)
