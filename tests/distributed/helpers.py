"""The distributed algorithms' results checked against the single-process CPU path: what the
in-process, Dask and GPU tests share."""

import numpy as np

import gravel


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
