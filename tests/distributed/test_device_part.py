"""A part on a GPU (gravel.distributed.device_part): its renumbering against the part's own lists
(on the CPU), and on the GPU each step of its programs against the host's steps on random parts,
then whole programs over several parts on one GPU against the CPU path, in both placements."""

import types
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel.arrays import host
from gravel.distributed import counting, device_part, device_steps, exchange, programs
from gravel.distributed.host_steps import HostSteps
from gravel.operators import SweepPlan

from ..strategies import graphs
from .helpers import check_bfs, check_cc, check_pagerank, check_sssp

# -- the renumbering, on the CPU ---------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    G=graphs(max_n=30, max_m=90),
    parts=st.integers(1, 4),
    chunk=st.sampled_from([1, 3, 1 << 26]),
    data=st.data(),
)
def test_renumbered_lists_name_the_same_vertices(G, parts, chunk, data):
    part = gd.split(G, parts)[data.draw(st.integers(0, parts - 1))]
    lo, hi = part.lo, part.hi
    named = [part.out_targets, part.in_sources]
    if not part.directed:
        assert part.in_sources is part.out_targets
        named = named[:1]
    given = [a.copy() for a in named]
    with mock.patch.object(device_part, "RENUMBER_IDS", chunk):  # 1, 3: many pieces
        ghosts = device_part._renumber(np, G.n, lo, hi, *named)
    outside = np.concatenate([a[(a < lo) | (a >= hi)] for a in given])
    assert ghosts.dtype == np.int32 and ghosts.tolist() == sorted(set(outside.tolist()))
    ids = np.concatenate([np.arange(lo, hi), ghosts])
    for local, a in zip(named, given, strict=True):
        assert local.dtype == np.int32 and np.array_equal(ids[local], a)
        assert np.all((local < hi - lo) == ((a >= lo) & (a < hi)))


def test_unknown_placement_is_refused():
    part = gd.split(gravel.generate.grid(2, 3), 2)[0]
    with pytest.raises(gravel.errors.UnknownNameError, match="pinned"):
        device_part.to_device(part, "pinned")


# -- on the GPU --------------------------------------------------------------------------------

PLACEMENTS = ["device", "host"]


def _graph(seed, directed=True, weighted=True):
    G = gravel.generate.kronecker(9, 8, directed=directed, seed=seed)
    return gravel.transform.add_random_weights(G, 1, 9, seed=seed) if weighted else G


def _pairs(G, parts, placement):
    pieces = gd.split(G, parts)
    return [(p, device_part.to_device(p, placement)) for p in pieces]


@pytest.mark.gpu
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("directed", [True, False])
def test_to_device_keeps_the_lists(placement, directed):
    G = _graph(1, directed)
    for p, d in _pairs(G, 3, placement):
        assert d.graph.placement == placement and (d.lo, d.hi, d.n) == (p.lo, p.hi, p.n)
        ids = host(d.ids)
        csr = (d.graph.offsets, d.graph.indices, d.graph.weights)
        for offsets, named, weights, lists in (
            (p.out_offsets, p.out_targets, p.out_weights, csr),
            (p.in_offsets, p.in_sources, p.in_weights, d.graph.csc()),
        ):
            off, idx, w = (host(a) for a in lists)
            assert np.array_equal(off[: p.size + 1], offsets) and np.all(off[p.size :] == off[-1])
            assert np.array_equal(ids[idx], named) and np.array_equal(w, weights)


def _frontier(rng, size, share=0.3):
    return np.flatnonzero(rng.random(size) < share).astype(np.int64)


@pytest.mark.gpu
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bfs_steps_against_the_host(placement, seed):
    import cupy

    G, rng = _graph(seed, weighted=False), np.random.default_rng(seed)
    for p, d in _pairs(G, 3, placement):
        depth = np.where(rng.random(p.size) < 0.4, 1, -1).astype(np.int32)
        frontier = _frontier(rng, p.size)
        want, _ = HostSteps.found(p, frontier, depth, HostSteps.claims(p))
        claim = device_steps.DeviceSteps.claims(d)
        args = (cupy.asarray(frontier), cupy.asarray(depth), claim)
        got, via = device_steps.DeviceSteps.found(d, *args)
        assert np.array_equal(host(got), want) and bool((claim == -1).all())
        via, got = host(via), host(got)
        assert np.all(G.has_arcs(via, got)) and np.all(np.isin(via - p.lo, frontier))
        seen = rng.random(G.n) < 0.2
        want, _ = HostSteps.bottom_up(p, depth, seen)
        got, via = device_steps.DeviceSteps.bottom_up(d, cupy.asarray(depth), cupy.asarray(seen))
        got, via = host(got), host(via)
        assert np.array_equal(np.sort(got), np.sort(want))
        assert np.all(seen[via]) and np.all(G.has_arcs(via, got + p.lo))


def _lightest(G, tails, heads):
    """The lightest arc tails[i] -> heads[i] of G, each (1 unweighted)."""
    out = np.empty(len(tails))
    for i, (u, v) in enumerate(zip(tails, heads, strict=True)):
        at = np.arange(G.offsets[u], G.offsets[u + 1])[
            G.indices[G.offsets[u] : G.offsets[u + 1]] == v
        ]
        out[i] = G.weights[at].min() if G.weighted else 1.0
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("weighted", [True, False])
def test_sssp_offers_against_the_host(placement, weighted):
    import cupy

    G, rng = _graph(3, weighted=weighted), np.random.default_rng(3)
    for p, d in _pairs(G, 3, placement):
        dist = rng.integers(0, 50, p.size).astype(np.float64)
        near = _frontier(rng, p.size, 0.5)
        ids, offer, _ = HostSteps.offers(p, near, dist)
        for _ in range(2):  # the second finds the offer state left as it started
            got = device_steps.DeviceSteps.offers(d, cupy.asarray(near), cupy.asarray(dist))
            got_ids, got_offer, via = (host(a) for a in got)
            assert np.array_equal(got_ids, ids) and np.array_equal(got_offer, offer)
            assert np.all(np.isin(via - p.lo, near)) and np.all(G.has_arcs(via, got_ids))
            made = dist[via - p.lo] + _lightest(G, via, got_ids)
            np.testing.assert_array_equal(made, got_offer)


#: the sweeps' plans a test forces on the pulls (the parts of these graphs are small: "auto"
#: plans them plain, or streamed over the bus): blocked through the L2, staged where stageable
PLANS = {
    "auto": None,
    "blocked": lambda graph, stageable: SweepPlan("blocked", 64),
    "staged": lambda graph, stageable: SweepPlan("staged" if stageable else "blocked", 64),
}


@pytest.mark.gpu
@pytest.mark.parametrize(  # blocked layouts live in device memory: a host part's sweep streams
    ("placement", "plan"), [("device", "auto"), ("device", "blocked"), ("device", "staged"),
                            ("host", "auto")]
)  # fmt: skip
@pytest.mark.parametrize("weighted", [True, False])
def test_pagerank_and_min_label_pulls_against_the_host(monkeypatch, plan, placement, weighted):
    import cupy

    if PLANS[plan] is not None:
        monkeypatch.setattr(device_steps, "_plan", PLANS[plan])
    G, rng = _graph(4, weighted=weighted), np.random.default_rng(4)
    for p, d in _pairs(G, 3, placement):
        everyone = rng.random(G.n)
        base, rank = rng.random(p.size), rng.random(p.size)
        want = np.empty(p.size)
        err = HostSteps.pagerank(p, weighted).pull(everyone, base, 0.85, rank, want)
        new = cupy.empty(p.size)
        k = device_steps.DeviceSteps.pagerank(d, weighted)
        x = cupy.asarray(everyone.astype(np.float32))
        got = k.pull(x, cupy.asarray(base), 0.85, cupy.asarray(rank), new)
        np.testing.assert_allclose(host(new), want, rtol=1e-5)
        np.testing.assert_allclose(got, err, rtol=1e-4)
        labels = rng.integers(0, G.n, G.n).astype(np.int32)
        mine = rng.integers(0, G.n, p.size).astype(np.int32)
        expect = mine.copy()
        HostSteps.neighbour_min(p, labels, expect)
        out = cupy.asarray(mine)
        device_steps.DeviceSteps.neighbour_min(d, cupy.asarray(labels), out)
        assert np.array_equal(host(out), expect)


def _joined(out, k=0):
    return np.concatenate([host(o[k]) for o in out])


def _run_all(G, parts, placement):
    pieces = [device_part.to_device(p, placement) for p in gd.split(G, parts)]
    s = int(np.argmax(G.out_degree)) if G.n else 0
    out = exchange.run_in_process(pieces, programs.bfs_program, s)
    check_bfs(G, s, types.SimpleNamespace(depth=_joined(out), parent=_joined(out, 1)))
    out = exchange.run_in_process(pieces, programs.sssp_program, s, 4.0)
    check_sssp(G, s, types.SimpleNamespace(distance=_joined(out), predecessor=_joined(out, 1)))
    args = (0.85, 100, 1e-6, G.weighted)  # as gravel.pagerank's default weight="weight" takes it
    out = exchange.run_in_process(pieces, programs.pagerank_program, *args)
    check_pagerank(G, types.SimpleNamespace(rank=_joined(out), iterations=out[0][1]), gpu=True)
    labels = _joined(exchange.run_in_process(pieces, programs.cc_program))
    check_cc(G, types.SimpleNamespace(labels=labels))
    tc = exchange.run_in_process(pieces, counting.triangles_program, True)
    ref = gravel.triangles(G, device="cpu")
    assert tc[0][1] == ref.total and np.array_equal(_joined(tc), ref.triangles)


@pytest.mark.gpu
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("parts", [1, 2, 4])
@pytest.mark.parametrize("directed", [True, False])
def test_programs_on_device_parts_against_the_cpu(placement, parts, directed):
    _run_all(_graph(5, directed), parts, placement)


@pytest.mark.gpu
@settings(max_examples=15, deadline=None)
@given(G=graphs(max_n=40, max_m=120, weighted=True), parts=st.integers(1, 4))
def test_programs_on_device_parts_hypothesis_graphs(G, parts):
    if G.n:
        _run_all(G, parts, "device")


@pytest.mark.gpu
@pytest.mark.parametrize("directions", programs.DIRECTIONS)
def test_bfs_on_device_parts_each_direction(directions):
    G = gravel.generate.kronecker(10, 16, directed=True, seed=7)
    s = int(np.argmax(G.out_degree))
    pieces = [device_part.to_device(p) for p in gd.split(G, 3)]
    out = exchange.run_in_process(pieces, programs.bfs_program, s, directions)
    check_bfs(G, s, types.SimpleNamespace(depth=_joined(out), parent=_joined(out, 1)))
    assert (out[0][2] > 0) == (directions != "top-down")


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
def test_betweenness_on_device_part_replicas(directed):
    from gravel.algorithms.betweenness.api import choose_sources
    from gravel.distributed.replicated import bc_program

    G = _graph(8, directed, weighted=False)
    sources, k = choose_sources(G, None, None, np.arange(0, G.n, 3))
    pieces = [device_part.to_device(p) for p in gd.split(G, 3)]
    out = exchange.run_in_process(pieces, bc_program, sources, k, True)
    assert sum(o[1] for o in out) == sources.size
    ref = gravel.betweenness_centrality(G, sources=sources, device="cpu")
    np.testing.assert_allclose(_joined(out), ref.centrality, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("per_vertex", [True, False])
@pytest.mark.parametrize("directed", [True, False])
def test_triangles_on_device_part_replicas(per_vertex, directed):
    from gravel.distributed.counting import triangles_program

    G = _graph(9, directed, weighted=False)
    ref = gravel.triangles(G, device="cpu")
    pieces = [device_part.to_device(p) for p in gd.split(G, 3)]
    out = exchange.run_in_process(pieces, triangles_program, per_vertex)
    assert {o[1] for o in out} == {ref.total}
    if per_vertex:
        assert np.array_equal(_joined(out), ref.triangles)


# -- core numbers on a part's array calls: NumPy stands in for CuPy ------------------------------


def _stand_in(G, parts):
    """G's parts as DeviceParts over NumPy arrays (``made``), for the steps that are array calls."""
    return [device_part.made(p, np) for p in gd.split(G, parts)]


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=30, max_m=90), parts=st.integers(1, 4))
def test_device_neighbours_are_the_hosts(G, parts):
    for p, d in zip(gd.split(G, parts), _stand_in(G, parts), strict=True):
        offsets, ids = counting.neighbour_lists(p, multi=True)
        rows, local = counting.device_neighbours(d)
        want = sorted(zip(np.repeat(np.arange(p.size), np.diff(offsets)).tolist(), ids.tolist()))
        assert sorted(zip(rows.tolist(), d.ids[local].tolist())) == want


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=30, max_m=90), parts=st.integers(1, 4))
def test_core_numbers_on_stand_in_parts_against_the_cpu(G, parts):
    out = exchange.run_in_process(_stand_in(G, parts), counting.core_program)
    np.testing.assert_array_equal(_joined(out), gravel.core_number(G, device="cpu").core)
    cpu = exchange.run_in_process(gd.split(G, parts), counting.core_program)
    assert {o[1] for o in out} == {cpu[0][1]}  # the same rounds as the CPU parts'


@pytest.mark.parametrize("directed", [True, False])
def test_core_numbers_on_stand_in_parts_of_kron(directed):
    G = gravel.generate.kronecker(9, 8, directed=directed, seed=2)
    out = exchange.run_in_process(_stand_in(G, 3), counting.core_program)
    np.testing.assert_array_equal(_joined(out), gravel.core_number(G, device="cpu").core)


@pytest.mark.gpu
@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("directed", [True, False])
def test_core_numbers_on_device_parts(placement, directed):
    G = _graph(10, directed, weighted=False)
    pieces = [device_part.to_device(p, placement) for p in gd.split(G, 3)]
    out = exchange.run_in_process(pieces, counting.core_program)
    np.testing.assert_array_equal(_joined(out), gravel.core_number(G, device="cpu").core)


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=30, max_m=90), parts=st.integers(1, 4))
def test_local_ids_name_the_parts_vertices_and_ghosts(G, parts):
    everyone = np.arange(G.n)
    for d in _stand_in(G, parts):
        local = d.local_ids(everyone)
        held = local >= 0
        assert np.array_equal(d.ids[local[held]], everyone[held])
        assert set(everyone[held].tolist()) == set(d.ids.tolist())  # each it holds, no other
