"""The CPU SSSP's parallel phases (batches of arcs, the bucket pool's compaction, predecessors
recorded as relaxations lower distances), against SciPy's Dijkstra on random graphs."""

import importlib

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import gravel
from gravel.algorithms.sssp import verify_sssp
from gravel.backends.cpu import _serial
from gravel.backends.cpu import sssp as kernels
from gravel.transform import deduplicate

# the module: gravel.algorithms.sssp is the function
sssp_module = importlib.import_module("gravel.algorithms.sssp")

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
    monkeypatch.setattr(_serial, "SMALL_ARCS", -1)
    monkeypatch.setattr(sssp_module, "SERIAL_ARCS", 1)
    monkeypatch.setattr(sssp_module, "BATCH_ARCS", 16)


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


def test_a_hub_longer_than_a_batch_is_a_batch_alone():
    offsets = np.array([0, 5, 5, 6, 106, 107], np.int64)
    ends = kernels.batch_ends(offsets, np.arange(5, dtype=np.int32), 10)
    assert ends.tolist() == [3, 4, 5]  # 5 + 0 + 1 arcs, then 100 alone, then 1


def test_compaction_keeps_each_pending_vertex_once_in_its_bucket():
    n, ring, delta = 4, 3, 1.0
    dist = np.array([0.5, 1.5, 2.5, 7.0])  # slots 0, 1, 2 and 7 % 3 = 1
    cap = 2 * n
    pool = (
        np.full(ring, -1, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap, np.int32),
        np.zeros(n, np.int64),
        np.empty(n, np.int32),
    )
    used, rounds = 0, 0
    for v in [0, 1, 2, 3, 3, 1, 2, 0]:  # duplicates fill the pool
        used, rounds = kernels.push(v, dist, delta, pool, used, rounds)
    assert used == cap
    dist[3] = 5.0  # lowered: its entries in slot 1 are stale, the new one goes to slot 2
    used, rounds = kernels.push(3, dist, delta, pool, used, rounds)
    head, nxt, entry_v = pool[:3]

    def bucket(slot):
        out, e = [], head[slot]
        while e >= 0:
            out.append(int(entry_v[e]))
            e = nxt[e]
        return sorted(out)

    assert used == 4 and rounds == 1
    assert [bucket(s) for s in range(ring)] == [[0], [1], [2, 3]]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("split", "expect"), [(2.5, 2.5), (3.4e38, 3.4e38), (4e38, np.inf)])
def test_the_gpu_split_in_float32_is_inf_past_its_range_without_warning(split, expect):
    assert sssp_module._float32(split) == np.float32(expect)
