"""SSSP on the CPU and the GPU: published distances, NetworkX and SciPy on random graphs, SciPy's
semantics on awkward weights (issue 17) and its bad arguments; the CPU SSSP's parallel phases
(batches of arcs, the bucket pool's compaction, predecessors recorded as relaxations lower
distances); the GPU's near/far split past float32's range, its predecessors, its pull sweeps."""

import importlib

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import gravel
from gravel.algorithms.sssp import MAX_BUCKETS, verify_sssp
from gravel.arrays import host
from gravel.backends.cpu import serial
from gravel.backends.cpu import sssp as kernels
from gravel.errors import InvalidWeightError, VertexNotFoundError
from gravel.transform import deduplicate

from ..conftest import dataset_ids, load_dataset, reference, small_pieces
from ..strategies import graphs
from .helpers import multigraphs

REF = reference()

# the package's modules: gravel.algorithms.sssp is the function
sssp_cpu = importlib.import_module("gravel.algorithms.sssp.cpu")
sssp_cuda = importlib.import_module("gravel.algorithms.sssp.cuda")
sssp_delta = importlib.import_module("gravel.algorithms.sssp.delta")

WEIGHTS = {
    "integers with zeros": lambda rng, m: rng.integers(0, 10, m),
    "zeros": lambda rng, m: np.zeros(m),
    "huge": lambda rng, m: rng.choice([0.0, 1.0, 1e30, 3e38], m),
    "unweighted": lambda rng, m: None,
}


def random_graph(weights, directed, seed, n=300, m=2400):
    """n vertices, m random arcs (parallel arcs and self loops among them), and isolated vertices
    past n - 20: some vertices unreachable."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n - 20, m), rng.integers(0, n - 20, m)
    return gravel.Graph.from_edges(src, dst, WEIGHTS[weights](rng, m), n=n, directed=directed)


@pytest.fixture
def parallel_phases(monkeypatch):
    """Every frontier relaxed by the parallel phase, in batches of at most 16 arcs."""
    monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    monkeypatch.setattr(sssp_cpu, "SERIAL_ARCS", 1)
    monkeypatch.setattr(sssp_cpu, "BATCH_ARCS", 16)


@pytest.mark.parametrize("weights", list(WEIGHTS))
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
# 1e38: one bucket (or a few), where vertices are lowered many times and the pool compacts
@pytest.mark.parametrize("delta", [None, 1e38], ids=["default-delta", "wide-delta"])
@pytest.mark.parametrize("serial", [False, True], ids=["parallel", "serial"])
def test_sssp_equals_scipy(request, weights, directed, delta, serial):
    if not serial:
        request.getfixturevalue("parallel_phases")
    for seed in range(3):
        G = random_graph(weights, directed, seed)
        expect = dijkstra(deduplicate(G).to_scipy(), directed=True, indices=0)
        r = gravel.sssp(G, 0, delta=delta, device="cpu")
        assert r.distance.dtype == np.float64 and r.predecessor.dtype == np.int32
        assert np.allclose(r.distance, expect, rtol=1e-12, atol=0)
        assert np.array_equal(np.isinf(r.distance), np.isinf(expect))
        assert verify_sssp(G, 0, r.distance, r.predecessor) == []


def test_unweighted_parallel_sssp_equals_bfs_depth(parallel_phases):
    G = gravel.generate.kronecker(10)
    s = int(np.argmax(G.out_degree))
    r = gravel.sssp(G, s, device="cpu")
    depth = gravel.bfs(G, s, device="cpu").depth
    assert np.array_equal(np.where(np.isfinite(r.distance), r.distance, -1), depth)
    assert verify_sssp(G, s, r.distance, r.predecessor) == []


@pytest.mark.parametrize(
    ("weights", "expect"),
    [
        (None, "int32"),
        ([1.0, 255.0, 0.0], "int32"),
        ([1.0, 2.5, 3.0], "float64"),  # a fraction
        ([1.0, 2**29, 3.0], "float64"),  # 4 vertices times 2^29 reach 2^31
        ([1.0, 2**28, 3.0], "int32"),
    ],
)
def test_distances_are_int32_where_whole_weights_keep_them_exact(weights, expect):
    G = gravel.Graph.from_edges([0, 1, 2], [1, 2, 3], weights, n=4)
    r = gravel.sssp(G, 0, device="cpu")
    assert r.stats["distances"] == expect and r.distance.dtype == np.float64
    assert r.distance.tolist() == np.cumsum([0.0, *(weights or [1.0] * 3)]).tolist()


@pytest.mark.parametrize("serial", [False, True], ids=["parallel", "serial"])
def test_int32_and_float64_distances_agree(request, monkeypatch, serial):
    """Whole weights: the same distances held as int32 and as float64, unreached ones inf."""
    if not serial:
        request.getfixturevalue("parallel_phases")
    G = random_graph("integers with zeros", True, 7)
    as_int = gravel.sssp(G, 0, device="cpu")
    monkeypatch.setattr(sssp_cpu, "distance_type", lambda G: np.float64)
    as_float = gravel.sssp(G, 0, device="cpu")
    assert (as_int.stats["distances"], as_float.stats["distances"]) == ("int32", "float64")
    assert np.array_equal(as_int.distance, as_float.distance)
    assert np.isinf(as_int.distance).any()  # the isolated vertices
    assert verify_sssp(G, 0, as_int.distance, as_int.predecessor) == []


def test_a_hub_longer_than_a_batch_is_a_batch_alone():
    offsets = np.array([0, 5, 5, 6, 106, 107], np.int64)
    ends = kernels.arc_ends(offsets, np.arange(5, dtype=np.int32), np.empty(5, np.int64), 3)
    assert ends.tolist() == [5, 5, 6, 106, 107]
    assert kernels.batch_ends(ends, 10).tolist() == [3, 4, 5]  # 5 + 0 + 1, 100 alone, 1


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 1), max_size=300))
def test_as_distances_is_float64_with_inf_where_unreached(values):
    dist = np.array(values, np.int32)
    unreached = np.iinfo(np.int32).max
    out = kernels.as_distances(dist, unreached)
    assert out.dtype == np.float64
    assert np.array_equal(out, np.where(dist == unreached, np.inf, dist.astype(np.float64)))


def filing(n, ring):
    """A bucket pool and filing of requests by hand, in bucket 0, as `relax` would leave them."""
    pool = kernels.bucket_pool(n, ring, n)
    dist, pred = np.full(n, np.inf), np.full(n, -1, np.int32)
    requests = (np.empty(n, np.int32), np.empty(n), np.empty(n, np.int32))
    counts, widths = np.zeros(1, np.int64), np.zeros(1, np.int64)

    def file(lowered, u):
        for k, (v, d) in enumerate(lowered):
            dist[v] = d
            requests[0][k], requests[1][k], requests[2][k] = v, d, u
        counts[0] = len(lowered)
        widths[0] = int(max(d for _, d in lowered)) + 1
        starts = np.zeros(2, np.int64)
        kernels.file_lowered(requests, starts, counts, widths, 0, dist, pred, 1.0, pool)

    return pool, dist, pred, file


def test_segments_cut_each_chunk_in_runs_of_at_most_a_segment():
    seg = kernels.SEGMENT
    starts = np.array([0, 10, 9000, 9000], np.int64)
    counts = np.array([3, 2 * seg + 5, 0, 1], np.int64)
    first, size = kernels.segments(starts, counts, 66)
    assert first.tolist() == [0, 10, 10 + seg, 10 + 2 * seg, 9000]
    assert size.tolist() == [3, seg, seg, 5, 1]


def test_segments_of_a_wide_ring_keep_the_tally_bounded():
    """With a tally row of 2^20 buckets, the runs grow so that their rows beyond one a chunk stay
    within TALLY_CELLS."""
    starts = np.array([0, 50_000], np.int64)
    counts = np.array([50_000, 30_000], np.int64)
    width = 1 << 20
    first, size = kernels.segments(starts, counts, width)
    assert first.size <= counts.size + max(kernels.TALLY_CELLS // width, 1)
    assert size.sum() == counts.sum() and first.tolist()[:1] == [0]
    assert np.all(np.diff(first) > 0) and np.all(size > 0)


def test_a_chunk_past_a_segment_takes_each_live_request_once():
    """One chunk of requests over several runs, every vertex lowered twice (both requests filed):
    each bucket then yields the vertices whose final distance falls in it, once, taken over many
    pieces, with the predecessor of their lower request."""
    rng = np.random.default_rng(0)
    n, ring = 3 * kernels.SEGMENT + 7, 7
    v = np.concatenate([rng.permutation(n), rng.permutation(n)]).astype(np.int32)
    d = rng.uniform(0.0, 5.0, v.size)
    u = np.arange(v.size, dtype=np.int32)  # each request's own "from", to check pred
    dist = np.full(n, np.inf)
    np.minimum.at(dist, v, d)
    expect = np.empty(n, np.int32)
    best = np.lexsort((d, v))[::2]  # each vertex's lower request
    expect[v[best]] = u[best]
    pool, pred = kernels.bucket_pool(n, ring, v.size), np.full(n, -1, np.int32)
    counts, widths = np.array([v.size], np.int64), np.array([5], np.int64)
    requests = (v.copy(), d.copy(), u.copy())
    kernels.file_lowered(requests, np.zeros(2, np.int64), counts, widths, 0, dist, pred, 1.0, pool)
    for b in range(5):
        frontier, at = kernels.next_frontier(b, dist, pred, pool, np.iinfo(np.int64).max)
        assert at == b
        assert sorted(frontier.tolist()) == np.flatnonzero(np.floor(dist) == b).tolist()
    assert np.array_equal(pred, expect)


def test_a_full_pool_is_compacted_to_each_live_vertex_once_in_its_bucket():
    n, ring = 4, 3
    pool, dist, pred, file = filing(n, ring)
    for r in range(10):  # 40 entries through a pool of 2n + 16: each round leaves 4 dead
        file([(v, 2.95 - 0.1 * r - 0.5 * v) for v in range(n)], u=r)
    assert pool[8][0] < 2 * n + 16  # compacted
    taken = []
    for b in range(ring):
        frontier, at = kernels.next_frontier(
            b, dist, pred, pool, 100
        )  # a view of the pool's vertex buffer
        taken.append((sorted(frontier.tolist()), at))
    assert taken == [([3], 0), ([1, 2], 1), ([0], 2)]  # distances 2.05, 1.55, 1.05, 0.55
    assert pred.tolist() == [9] * n


def test_a_bucket_of_dead_entries_is_passed_over():
    pool, dist, pred, file = filing(3, 5)
    file([(0, 2.5), (1, 3.5)], u=2)
    file([(0, 0.5)], u=2)  # 0 leaves bucket 2 for bucket 0: bucket 2 holds a dead entry
    frontier, b = kernels.next_frontier(0, dist, pred, pool, 10)
    assert (frontier.tolist(), b) == ([0], 0)
    frontier, b = kernels.next_frontier(1, dist, pred, pool, 10)
    assert (frontier.tolist(), b) == ([1], 3)
    assert kernels.next_frontier(4, dist, pred, pool, 10)[0].size == 0


def test_a_bucket_of_more_entries_than_most_is_left_for_a_parallel_take():
    pool, dist, pred, file = filing(3, 5)
    file([(0, 2.5), (1, 2.7)], u=2)
    frontier, b = kernels.next_frontier(0, dist, pred, pool, 1)
    assert (frontier.size, b) == (0, 2)
    frontier, b = kernels.next_frontier(b, dist, pred, pool, 100)
    assert (sorted(frontier.tolist()), b) == ([0, 1], 2)


@settings(max_examples=80, deadline=None)
@given(
    G=graphs(max_n=60, max_m=300, weighted=True),
    scale=st.sampled_from([0.001, 1.0, 1e30]),
    delta=st.sampled_from([None, 0.5, 4.0, 1e38]),
    source=st.integers(0, 59),
    parallel=st.booleans(),
)
def test_delta_stepping_equals_scipy_on_random_graphs(G, scale, delta, source, parallel):
    if G.n == 0:
        return
    source %= G.n
    W = gravel.Graph(G.offsets, G.indices, G.weights * scale, directed=G.directed)
    if delta is not None:
        delta *= scale
    with pytest.MonkeyPatch.context() as mp:
        if parallel:  # every frontier in parallel chunks, batches of at most 16 arcs
            mp.setattr(serial, "SMALL_ARCS", -1)
            mp.setattr(sssp_cpu, "SERIAL_ARCS", 1)
            mp.setattr(sssp_cpu, "BATCH_ARCS", 16)
        r = gravel.sssp(W, source, delta=delta, device="cpu")
    expect = dijkstra(deduplicate(W).to_scipy(), directed=True, indices=source)
    assert np.allclose(r.distance, expect, rtol=1e-12, atol=0)
    assert np.array_equal(np.isinf(r.distance), np.isinf(expect))
    assert verify_sssp(W, source, r.distance, r.predecessor) == []


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("split", "expect"), [(2.5, 2.5), (3.4e38, 3.4e38), (4e38, np.inf)])
def test_the_gpu_split_in_float32_is_inf_past_its_range_without_warning(split, expect):
    assert sssp_cuda._float32(split) == np.float32(expect)


@pytest.mark.parametrize(
    "spec, narrow",
    [
        ("urand:12", True),
        ("urand:12:8", False),
        ("kron:12", False),
        ("grid:64x64", False),
        ("rgg:12:32", False),
    ],
)
def test_gpu_default_delta_narrows_only_on_dense_random_graphs(spec, narrow):
    # urand (average degree 32, no hubs, no triangles to speak of) gets 24 / degree mean weights;
    # sparser graphs, graphs with hubs (kron) and geometric ones as dense (rgg:12:32, whose
    # degrees pass 24 with no hubs) keep the wide rule, at least 8 mean weights
    G = gravel.generate.from_spec(spec)
    G = gravel.transform.add_random_weights(G, low=1, high=255, seed=0)
    mean, degree = G.weight_stats[2], G.nnz / G.n
    width = sssp_delta.default_delta(G, "cuda")
    if narrow:
        assert width == pytest.approx(mean * 24 / degree)
    else:
        assert width >= 8 * mean


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


def test_sssp_source_that_does_not_exist():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.sssp(G, 10)


def test_unweighted_sssp_equals_bfs_depth():
    G = gravel.generate.kronecker(10)
    d = gravel.sssp(G, 5, device="cpu").distance
    depth = gravel.bfs(G, 5, device="cpu").depth
    assert np.array_equal(np.where(np.isfinite(d), d, -1), depth)


def test_kron_sssp_against_scipy():
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(12), 1, 255, seed=2)
    s = int(np.argmax(G.out_degree))
    assert verify_sssp(G, s, gravel.sssp(G, s, device="cpu").distance) == []


@pytest.mark.parametrize("w", [-1.0, np.nan])
def test_sssp_rejects_negative_and_nan_weights(w):
    G = gravel.Graph.from_edges([0, 1, 1], [1, 2, 0], [1.0, w, 2.0])
    with pytest.raises(gravel.InvalidWeightError, match=r"arc 1 -> 2"):
        gravel.sssp(G, 0)


#: weights that stress the arithmetic: zero (ties, zero cycles), tiny, huge but finite in float32
AWKWARD_WEIGHTS = [0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 1e30, 3e38]


@st.composite
def weighted_multigraphs(draw, weights=AWKWARD_WEIGHTS, directed=None):
    G, arcs = draw(multigraphs(directed=directed))
    w = draw(st.lists(st.sampled_from(weights), min_size=len(arcs), max_size=len(arcs)))
    W = gravel.Graph.from_edges(
        np.array([a for a, _ in arcs], np.int64),
        np.array([b for _, b in arcs], np.int64),
        np.array(w, np.float32),
        n=G.n,
        directed=G.directed,
    )
    return W, arcs, w


def scipy_dijkstra(G, arcs, w, source):
    """SciPy's distances and predecessors on the lightest arc of each pair (explicit zeros are
    arcs to SciPy)."""
    lightest = {}
    for (a, b), x in zip(arcs, w):
        pairs = [(a, b)] if G.directed else [(a, b), (b, a)]
        for key in pairs:
            lightest[key] = min(lightest.get(key, np.inf), float(np.float32(x)))
    rows = np.array([k[0] for k in lightest], np.int64)
    cols = np.array([k[1] for k in lightest], np.int64)
    A = sp.csr_array((np.array(list(lightest.values())), (rows, cols)), shape=(G.n, G.n))
    return dijkstra(A, directed=True, indices=source, return_predecessors=True)


@settings(max_examples=40, deadline=None)
@given(weighted_multigraphs(), st.data())
def test_issue_17_sssp_on_awkward_weights_equals_scipy(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    expect, scipy_pred = scipy_dijkstra(G, arcs, w, s)
    narrow = max(1.0, 2 * max(w, default=0) / MAX_BUCKETS)  # the narrowest allowed, nearly
    for delta in (None, narrow, 1e38):
        r = gravel.sssp(G, s, delta=delta, device="cpu")
        assert r.distance.dtype == np.float64 and r.predecessor.dtype == np.int32
        assert np.allclose(r.distance, expect, rtol=1e-12, atol=0)
        assert np.array_equal(r.predecessor < 0, scipy_pred < 0)
        assert verify_sssp(G, s, r.distance, r.predecessor) == []
    for t in range(G.n):
        path = r.path_to(t)
        if np.isinf(expect[t]):
            assert path == []
            continue
        assert path[0] == s and path[-1] == t and len(set(path)) == len(path)
        assert np.array_equal(r.predecessor[path[1:]], path[:-1])


def test_issue_17_sssp_tree_has_no_cycle_on_zero_weight_cycles():
    # 1 <-> 2 <-> 3 at distance 1, every arc between them of weight 0
    src, dst = [0, 1, 2, 2, 3, 3, 1], [1, 2, 1, 3, 2, 1, 3]
    G = gravel.Graph.from_edges(src, dst, [1, 0, 0, 0, 0, 0, 0])
    r = gravel.sssp(G, 0, device="cpu")
    assert r.distance.tolist() == [0, 1, 1, 1]
    assert r.predecessor[0] == -1 and r.predecessor[1] == 0
    assert verify_sssp(G, 0, r.distance, r.predecessor) == []
    assert r.path_to(3)[0] == 0


def test_issue_17_sssp_predecessors_in_caller_ids():
    G = gravel.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0, 1.0, 1.0, 5.0])
    R = gravel.transform.relabel(G, np.array([2, 3, 0, 1]), transparent=True)
    r = gravel.sssp(R, 0, device="cpu")
    assert r.predecessor.tolist() == [-1, 0, 1, 2]
    assert r.path_to(3) == [0, 1, 2, 3]
    assert verify_sssp(R, 0, r.distance, r.predecessor) == []


def test_sssp_path_to_the_source_unreachable_and_missing_vertices():
    G = gravel.Graph.from_edges([0, 1], [1, 2], n=4)
    r = gravel.sssp(G, 1, device="cpu")
    assert r.source == 1 and r.path_to(1) == [1] and r.path_to(2) == [1, 2]
    assert r.path_to(0) == [] and r.path_to(3) == []
    for bad in (4, -1, 1.0, True):
        with pytest.raises(VertexNotFoundError):
            r.path_to(bad)


def test_verify_sssp_finds_bad_predecessors():
    G = gravel.Graph.from_edges([0, 1, 0, 2, 3], [1, 2, 2, 3, 2], [1.0, 1.0, 5.0, 0.0, 0.0])
    r = gravel.sssp(G, 0, device="cpu")
    d, pred = r.distance, r.predecessor
    assert d.tolist() == [0, 1, 2, 2] and verify_sssp(G, 0, d, pred) == []
    for wrong in ([-1, 0, 0, 2], [0, 0, 1, 2], [-1, -1, 1, 2], [-1, 0, 3, 2], [-1, 0, 1, 0]):
        assert verify_sssp(G, 0, d, np.array(wrong)) != [], wrong


@pytest.mark.parametrize("delta", [1e-30, 2.0**-30])
def test_issue_17_sssp_refuses_a_delta_too_narrow_for_its_buckets(delta):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, 1e30])
    with pytest.raises(InvalidWeightError, match="too narrow"):
        gravel.sssp(G, 0, delta=delta, device="cpu")


@pytest.mark.parametrize("delta", [0, -1.0, np.nan, np.inf, "1", True], ids=repr)
def test_sssp_refuses_a_delta_that_is_not_a_width(delta):
    with pytest.raises(InvalidWeightError, match="delta"):
        gravel.sssp(gravel.generate.grid(2, 2), 0, delta=delta, device="cpu")


def test_issue_17_sssp_default_delta_on_a_wide_weight_range():
    # the mean weight is tiny beside the largest: the default width is raised, not the ring
    src = np.arange(2000)
    w = np.full(2000, 1e-30, np.float32)
    w[-1] = 3e38
    G = gravel.Graph.from_edges(src, src + 1, w)
    r = gravel.sssp(G, 0, device="cpu")
    assert r.stats["delta"] >= 3e38 / MAX_BUCKETS
    assert verify_sssp(G, 0, r.distance, r.predecessor) == []


@pytest.mark.parametrize("w", [np.inf, 1e39], ids=["inf", "beyond-float32"])
def test_sssp_refuses_infinite_weights(w):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, w])
    with pytest.raises(InvalidWeightError, match="finite"):
        gravel.sssp(G, 0, device="cpu")


#: huge weights, but no path of a tiny graph longer than float32's range
GPU_WEIGHTS = [0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 1e30, 1e36]


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(weighted_multigraphs(weights=GPU_WEIGHTS), st.data())
def test_issue_17_sssp_on_awkward_weights_equals_scipy_on_the_gpu(case, data):
    G, arcs, w = case
    s = data.draw(st.integers(0, G.n - 1))
    expect, scipy_pred = scipy_dijkstra(G, arcs, w, s)
    r = gravel.sssp(G, s, device="cuda")
    assert r.distance.dtype == np.float32 and r.predecessor.dtype == np.int32
    d, pred = host(r.distance).astype(np.float64), host(r.predecessor)
    assert np.allclose(d, expect, rtol=1e-5, atol=0)
    assert np.array_equal(pred < 0, scipy_pred < 0)
    assert verify_sssp(G, s, d, pred, rtol=1e-5) == []


@pytest.mark.gpu
def test_issue_17_sssp_tree_has_no_cycle_on_zero_weight_cycles_on_the_gpu():
    src, dst = [0, 1, 2, 2, 3, 3, 1], [1, 2, 1, 3, 2, 1, 3]
    G = gravel.Graph.from_edges(src, dst, [1, 0, 0, 0, 0, 0, 0])
    r = gravel.sssp(G, 0, device="cuda")
    d, pred = host(r.distance).astype(np.float64), host(r.predecessor)
    assert verify_sssp(G, 0, d, pred) == [] and r.path_to(3)[0] == 0


@pytest.mark.gpu
def test_issue_17_sssp_refuses_paths_beyond_float32_on_the_gpu():
    G = gravel.Graph.from_edges([0, 1], [1, 2], [3e38, 3e38])
    assert gravel.sssp(G, 0, device="cpu").distance[2] == np.float64(np.float32(3e38)) * 2
    with pytest.raises(InvalidWeightError, match="float32"):
        gravel.sssp(G, 0, device="cuda")


@pytest.mark.gpu
@pytest.mark.filterwarnings("error")  # the split's float32 cast once warned of an overflow
@pytest.mark.parametrize("delta", [2e38, 1e300])
def test_issue_17_sssp_split_past_float32_casts_without_warning(delta):
    # 0 -> 1 (3e38) lands past the first split; the next split (4e38 or more) is past float32
    G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [3e38, 0.0, 3.4e38])
    r = gravel.sssp(G, 0, delta=delta, device="cuda")
    d = host(r.distance)
    assert d.tolist() == [0.0, np.float32(3e38), np.float32(3e38)]
    assert verify_sssp(G, 0, d, host(r.predecessor), rtol=1e-6) == []


@pytest.mark.gpu
def test_sssp_predecessors_by_a_pull_where_weights_are_positive_else_by_a_bfs():
    """Positive weights: each reached vertex has a strictly closer tight in-arc, and one pull finds
    the tree; a zero-weight arc between vertices at one distance leaves a vertex without one, and
    the BFS over tight arcs finds the tree instead."""
    from gravel import generate, transform

    G = transform.add_random_weights(generate.kronecker(10, 8, seed=3), 1, 255, seed=2)
    s = int(np.argmax(G.out_degree))
    r = gravel.sssp(G, s, device="cuda")
    assert r.stats["predecessors"] == "pull"
    d = host(r.distance).astype(np.float64)
    assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []
    Z = gravel.Graph.from_edges([0, 1, 2, 0], [1, 2, 1, 3], [1.0, 0.0, 0.0, 2.0])
    r = gravel.sssp(Z, 0, device="cuda")
    assert r.stats["predecessors"] == "bfs"
    d = host(r.distance).astype(np.float64)
    assert verify_sssp(Z, 0, d, host(r.predecessor)) == []


# unweighted, two buckets: a bucket of four (one hop) would file every improvement past the split
@pytest.mark.gpu
@pytest.mark.parametrize("weighted,buckets", [(True, 1), (True, 4), (False, 1), (False, 2)])
@pytest.mark.parametrize("path", ["plain", "staged"])
def test_sssp_pull_sweeps_file_past_the_split_as_relaxations_do(
    monkeypatch, buckets, weighted, path
):
    """With shares that send every step of more than one output to pull sweeps, and a split inside
    the distances (several buckets), the sweeps file what they improve past it to the far pile: the
    distances match the CPU path's and the tree checks, on a directed graph with weights and without
    (weight 1) and with unreachable vertices, swept plainly or staged in shared memory (blocks of
    700 vertices, the weights in the layout's order, merge tiles cut into pieces)."""
    import cupy

    from gravel import generate, transform
    from gravel import operators as ops
    from gravel.operators import sweep_plan

    monkeypatch.setattr(sssp_cuda, "PULL_SHARE", 0.0)
    monkeypatch.setattr(sssp_cuda, "PULL_ARCS", 0.0)
    staged = []
    if path == "staged":
        monkeypatch.setattr(sweep_plan, "AUTO_L2_SHARE", 0.0)
        monkeypatch.setattr(sweep_plan, "shared_width", lambda bytes_per_vertex: 700)
    nr = importlib.import_module("gravel.operators.neighbor_reduce")
    real = nr.staged_sweep
    monkeypatch.setattr(nr, "staged_sweep", lambda *args: (staged.append(args[1]), real(*args))[1])
    G = generate.uniform_random(12, 16, seed=6, directed=True)
    if weighted:
        G = transform.add_random_weights(G, 1, 255, seed=7)
    # and 100 vertices no arc reaches, first: in the tile that the staged merge cuts into pieces
    src = np.repeat(np.arange(G.n), G.out_degree) + 100
    G = gravel.Graph.from_edges(src, G.indices + 100, G.weights, n=G.n + 100, directed=True)
    if path == "staged":
        # whose kept sums a default min sweep (identity FLT_MAX, not inf) has used first
        dg = G.to("cuda")
        assert small_pieces(dg, 700).pieces > 2
        ops.neighbor_reduce(dg, None, cupy.zeros(G.n, cupy.float32), "min", blocking=700)
    primed = len(staged)
    s = int(np.argmax(G.out_degree))
    want = gravel.sssp(G, s, device="cpu").distance
    delta = None if buckets == 1 else float(want[np.isfinite(want)].max()) / buckets
    r = gravel.sssp(G, s, delta=delta, device="cuda")
    assert r.stats["pull_sweeps"] > 0
    assert staged[primed:] == ([700] * r.stats["pull_sweeps"] if path == "staged" else [])
    d = host(r.distance).astype(np.float64)
    np.testing.assert_allclose(d, want, rtol=1e-5)
    assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []


@pytest.mark.gpu
def test_sssp_pulls_a_hubs_wide_frontier_and_pushes_a_meshs():
    """From kron's hub, a step's output holds most of the arcs: pull sweeps take over. A grid's
    frontiers hold few arcs: it never sweeps. Both check against the CPU path and the tree."""
    from gravel import generate, transform

    K = transform.add_random_weights(generate.kronecker(13, 16, seed=3), 1, 255, seed=2)
    grid = generate.grid(200, 200)
    for G, s, sweeps in ((K, int(np.argmax(K.out_degree)), True), (grid, 0, False)):
        r = gravel.sssp(G, s, device="cuda")
        assert (r.stats["pull_sweeps"] > 0) == sweeps
        d = host(r.distance).astype(np.float64)
        np.testing.assert_allclose(d, gravel.sssp(G, s, device="cpu").distance, rtol=1e-5)
        assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []


@pytest.mark.gpu
def test_sssp_keeps_pushing_wide_frontiers_of_short_lists(monkeypatch):
    """Where every step's output passes PULL_SHARE but a grid's lists hold few arcs, the push goes
    on (the width to test doubles) and never sweeps; the distances stay right."""
    from gravel import generate

    monkeypatch.setattr(sssp_cuda, "PULL_SHARE", 0.0)
    grid = generate.grid(60, 60)
    r = gravel.sssp(grid, 0, device="cuda")
    assert r.stats["pull_sweeps"] == 0
    d = host(r.distance).astype(np.float64)
    np.testing.assert_allclose(d, gravel.sssp(grid, 0, device="cpu").distance)
    assert verify_sssp(grid, 0, d, host(r.predecessor)) == []
