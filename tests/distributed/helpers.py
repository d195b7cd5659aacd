"""The distributed algorithms' results checked against the single-process CPU path: what the
in-process, Dask and GPU tests share; and the Hypothesis settings of the in-process tests and the
checks of results left distributed (gather=False) that several test modules share."""

import numpy as np
from hypothesis import HealthCheck, settings

import gravel
import gravel.distributed as gd

#: Hypothesis settings of the in-process tests
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_bfs(G, source, res):
    ref = gravel.bfs(G, source, device="cpu")
    assert np.array_equal(res.depth, ref.depth)
    parent = res.parent
    reached = np.flatnonzero(res.depth > 0)
    assert parent[source] == source and np.all(parent[res.depth < 0] == -1)
    assert np.all(res.depth[parent[reached]] == res.depth[reached] - 1)
    assert np.all(G.has_arcs(parent[reached], reached))


def check_sssp(G, source, res):
    from gravel.algorithms.sssp import verify_sssp

    ref = gravel.sssp(G, source, device="cpu")
    np.testing.assert_allclose(res.distance, ref.distance, rtol=1e-12)
    assert verify_sssp(G, source, res.distance, res.predecessor) == []


def check_pagerank(G, res, *, gpu=False):
    """The CPU path's ranks; on GPUs the contributions cross in float32, so the ranks agree to
    float32's precision and the L1 test may stop an iteration sooner or later."""
    ref = gravel.pagerank(G, device="cpu")
    if gpu:
        assert abs(res.iterations - ref.iterations) <= 1
        np.testing.assert_allclose(res.rank, ref.rank, rtol=1e-5, atol=1e-6)
    else:
        assert res.iterations == ref.iterations
        np.testing.assert_allclose(res.rank, ref.rank, rtol=1e-9, atol=1e-12)


def check_cc(G, res):
    assert np.array_equal(res.labels, gravel.connected_components(G, device="cpu").labels)


# -- results left distributed (gather=False), in this process and on Dask workers --------------

#: each algorithm's result arrays, left as PartArrays
ARRAYS = {
    "bfs": ("depth", "parent"),
    "sssp": ("distance", "predecessor"),
    "pagerank": ("rank",),
    "cc": ("labels",),
}


def run_from_1(algo, G, **kw):
    """gravel.distributed's `algo` on G (BFS and SSSP from vertex 1, SSSP with delta 2)."""
    if algo == "bfs":
        return gd.bfs(G, 1, **kw)
    if algo == "sssp":
        return gd.sssp(G, 1, delta=2.0, **kw)
    if algo == "pagerank":
        return gd.pagerank(G, **kw)
    return gd.connected_components(G, **kw)


def check_left_distributed(algo, G, kept, whole, bounds, *, local):
    for name in ARRAYS[algo]:
        arrays = getattr(kept, name)
        assert isinstance(arrays, gd.PartArrays) and len(arrays) == G.n
        assert [int(o) for o, _ in arrays] == bounds[:-1].tolist()
        assert all(isinstance(p, np.ndarray) == local for _, p in arrays)
        want = getattr(whole, name)
        np.testing.assert_array_equal(arrays.gather(), want)
        np.testing.assert_array_equal(np.asarray(arrays), want)
        # slices in this process compute on Dask's threads, whatever scheduler an earlier test's
        # client left as Dask's default
        scheduler = "threads" if local else None
        np.testing.assert_array_equal(arrays.to_dask().compute(scheduler=scheduler), want)
    assert kept.iterations == whole.iterations
