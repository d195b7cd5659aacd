"""The CPU SSSP's phases and kernels: against SciPy on random graphs, run serially and in parallel
phases (batches of arcs) with the default bucket width and a wide one, and equal to BFS depths
unweighted; distances held as int32 where whole weights keep them exact, else float64; the batches
and segments the kernels cut, the bucket pool's filing, taking and compaction, and predecessors
recorded as relaxations lower distances; delta stepping against SciPy on Hypothesis graphs."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import gravel
from gravel.algorithms.sssp import verify_sssp
from gravel.backends.cpu import serial
from gravel.backends.cpu import sssp as kernels
from gravel.transform import deduplicate

from ..strategies import graphs

# the package's module: gravel.algorithms.sssp is the function
sssp_cpu = importlib.import_module("gravel.algorithms.sssp.cpu")


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
