import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel import generate, reorder, transform
from gravel.layouts import orders

from ..conftest import GPU_GRAPHS, gpu_graph
from ..strategies import graphs


def naive_packing_factor(deg, per_line=16):
    """Algorithm 3 written out as the thesis lists it: walk the lines, count hubs and hub lines."""
    avg = sum(deg) / len(deg)
    num_hubs = lines = 0
    for start in range(0, len(deg), per_line):
        has = False
        for d in deg[start : start + per_line]:
            if d > avg:
                num_hubs += 1
                has = True
        lines += has
    return lines / -(-num_hubs // per_line) if num_hubs else 1.0


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_every_order_is_a_permutation_and_packing_factor_matches(G):
    for method in reorder.METHODS:
        perm = reorder.permutation(G, method)
        assert np.array_equal(np.sort(perm), np.arange(G.n)), method
    if G.n:
        assert reorder.packing_factor(G) == pytest.approx(
            naive_packing_factor(G.out_degree.tolist())
        )


def test_hub_sort_properties():
    G = generate.kronecker(12)
    deg = G.out_degree
    perm = reorder.permutation(G, "hub_sort")
    order = np.argsort(perm)
    h = orders.hubs(G.out_degree)
    k = int(h.sum())
    assert h[order[:k]].all() and not h[order[k:]].any()
    assert np.all(np.diff(deg[order[:k]]) <= 0)  # hubs by decreasing degree
    assert np.all(np.diff(order[k:]) > 0)  # the rest keep their order
    assert reorder.packing_factor(gravel.transform.relabel(G, perm)) == pytest.approx(1.0)


def test_dbg_groups_descend():
    G = generate.kronecker(12)
    order = np.argsort(orders.dbg(G.out_degree))
    deg = G.out_degree[order].astype(float)
    group = np.where(
        deg > 0, np.clip(np.floor(np.log2(np.maximum(deg, 1e-12) / G.out_degree.mean())), -1, 5), -2
    )
    assert np.all(np.diff(group) <= 0)


def test_packing_factor_separates_scrambled_and_sorted_graphs():
    K = generate.kronecker(14)  # ids scrambled: hubs everywhere
    assert reorder.packing_factor(K) > reorder.PF_THRESHOLD
    assert reorder.reorder(K).order is not None
    grid = generate.grid(64, 64)  # no hubs to speak of: the interior ties at degree 4
    assert reorder.reorder(grid) is grid


@pytest.mark.parametrize("method", reorder.METHODS)
def test_every_primitive_gives_the_same_answer_after_reordering(method):
    G = gravel.transform.add_random_weights(generate.kronecker(11), 1, 9, seed=1)
    R = reorder.reorder(G, method)
    s = 7
    assert np.array_equal(
        gravel.bfs(R, s, device="cpu").depth, gravel.bfs(G, s, device="cpu").depth
    )
    assert np.array_equal(
        gravel.sssp(R, s, device="cpu").distance, gravel.sssp(G, s, device="cpu").distance
    )
    assert np.allclose(
        gravel.pagerank(R, device="cpu").rank, gravel.pagerank(G, device="cpu").rank, rtol=1e-6
    )
    assert np.array_equal(
        gravel.connected_components(R, device="cpu").labels,
        gravel.connected_components(G, device="cpu").labels,
    )
    assert np.array_equal(
        gravel.triangles(R, device="cpu").triangles, gravel.triangles(G, device="cpu").triangles
    )
    assert np.array_equal(
        gravel.core_number(R, device="cpu").core, gravel.core_number(G, device="cpu").core
    )
    src = np.array([1, 5, 9])
    assert np.allclose(
        gravel.betweenness_centrality(R, sources=src, device="cpu").centrality,
        gravel.betweenness_centrality(G, sources=src, device="cpu").centrality,
    )


def test_unknown_method():
    with pytest.raises(gravel.UnknownNameError):
        reorder.reorder(generate.grid(2, 2), "magic")


def test_auto_reorders_above_the_threshold_and_on_the_gpu_only_where_the_sweeps_pay(monkeypatch):
    K = generate.kronecker(12)  # ids scrambled: a high packing factor
    S = reorder.reorder(K, "degree")
    assert reorder.reorder(K, "auto").order is not None and reorder.reorder(S, "auto") is S
    assert reorder.reorder(K, "auto", threshold=1e9) is K
    for bad in (-1, float("nan"), "x", True):
        with pytest.raises(gravel.InvalidArgumentError, match="sweeps must be"):
            reorder.reorder(K, "auto", sweeps=bad)
    # on the GPU (a device copy of NumPy arrays standing in), given the sweeps: saving against cost
    from gravel.backends.cuda.graph import DeviceGraph

    D = gravel.Graph.from_device(DeviceGraph.from_arrays(K.offsets, K.indices, directed=False))
    from types import SimpleNamespace

    from gravel.backends.cuda import runtime

    monkeypatch.setattr(runtime, "props", lambda: SimpleNamespace(l2_bytes=2**30))  # no blocking
    monkeypatch.setattr(runtime, "free_bytes", lambda: 2**40)  # a made-up card, mostly free
    pf = reorder.packing_factor(D)
    pays = reorder.GPU_REORDER_SWEEPS / reorder.predicted_gain(
        pf
    )  # sweeps whose saving equals the cost
    assert pf > reorder.GPU_PF_THRESHOLD
    assert not reorder.worth_reordering(D, sweeps=int(pays * 0.9))
    assert reorder.worth_reordering(D, sweeps=int(pays * 1.1) + 1) and reorder.worth_reordering(D)
    assert (
        reorder.predicted_gain(1.0) == 0.0
        and reorder.predicted_gain(100.0) == reorder.GPU_GAIN[-1][1]
    )
    assert reorder.auto_method(D) == "hub_sort" and reorder.auto_method(K) == "hub_sort"
    # a graph whose sweeps stage (an L2 of 1 KB): its own gain and cost, and a degree sort
    from gravel.layouts.staged import STAGED_STAGE

    # room for 1,000 staged values beside the gather's 32 warps' stages
    monkeypatch.setattr(
        runtime,
        "props",
        lambda: SimpleNamespace(l2_bytes=1024, smem_optin=4 * (1000 + 32 * STAGED_STAGE)),
    )
    staged_pays = reorder.STAGED_REORDER_SWEEPS / reorder.predicted_gain(pf, staged=True)
    assert not reorder.worth_reordering(D, sweeps=int(staged_pays * 0.9))
    assert reorder.worth_reordering(D, sweeps=int(staged_pays * 1.1) + 1)
    assert reorder.auto_method(D) == "degree"
    assert reorder.predicted_gain(100.0, staged=True) == reorder.STAGED_GAIN[-1][1]
    # staged under the L2's share (from STAGE_FROM): a hub-first order would make the sweeps plain
    from gravel.operators import sweep_plan

    monkeypatch.setattr(
        runtime,
        "props",
        lambda: SimpleNamespace(l2_bytes=2**30, smem_optin=4 * (1000 + 32 * STAGED_STAGE)),
    )
    monkeypatch.setattr(sweep_plan, "STAGE_FROM", K.n)
    monkeypatch.setattr(sweep_plan, "STAGE_MIN_DEGREE", 1)
    assert reorder.sweeps_stage(D) and sweep_plan.fits_l2_share(D.device_graph)
    assert not reorder.worth_reordering(D) and not reorder.worth_reordering(D, sweeps=10**9)
    assert reorder.reorder(D, "auto", sweeps=10**9) is D
    monkeypatch.setattr(sweep_plan, "STAGE_FROM", K.n + 1)  # plain as given: a hub sort pays
    assert reorder.worth_reordering(D, sweeps=int(pays * 1.1) + 1)


@pytest.mark.gpu
@pytest.mark.parametrize("name", GPU_GRAPHS)
def test_reordering_a_graph_on_the_device_happens_there(name):
    from gravel.reorder import reorder

    G = gpu_graph(name)

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


@pytest.mark.gpu
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
