"""Hybrid execution of vertex programs (gravel.programs.hybrid) on the CPU stand-in for the GPU's
part (device="cpu": the three-way split, its moves, the compressed vectors and the combining in
CI), with the state on either side (gravel.programs.home). On a GPU: test_hybrid_gpu.py; the
split's arithmetic: test_split.py."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import gravel
from gravel import programs
from gravel.programs import cpu_part
from gravel.programs.cpu import CpuEngine
from gravel.transform import add_random_weights

from ..strategies import graphs
from .helpers import GRAPHS, ratings
from .hybrid_cases import (
    ARCS,
    DIRECTIONS,
    FRACTIONS,
    HYBRID,
    LABELS,
    LIBRARY,
    PRIORS,
    RUNS,
    SCRIPT,
    assert_same,
    budget,
    case,
    shares,
    smallest_label,
    state_on,
)


# -- combining ---------------------------------------------------------------------------------
def test_combine_folds_where_received_and_sets_where_not():
    G = gravel.generate.grid(1, 6)
    engine = CpuEngine(G, programs.sssp(), {"source": np.int64(0)})
    engine.totals[0][:] = [5, 7, 0, 0, 3, 0]
    engine.received[:] = [True, True, False, False, True, False]
    fresh = engine.combine(np.array([1, 2, 4], np.int32), [np.array([9.0, 4.0, 1.0])])
    assert fresh.tolist() == [False, True, False]
    assert engine.totals[0].tolist() == [5, 7, 4, 0, 1, 0]
    assert engine.received.tolist() == [True, True, True, False, True, False]


# -- the CPU stand-in ------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", LIBRARY)
def test_cpu_split_matches_single(graph, name, direction, hybrid_run):
    execution, side = hybrid_run
    G, prog, direction = case(graph, name, direction)
    kw = dict(max_iter=1000, direction=direction, device="cpu")
    got = programs.run(G, prog, execution=execution, **kw)
    assert_same(got, programs.run(G, prog, **kw))
    assert got.stats["execution"] == execution and got.stats["bus_share"] == 0
    assert got.stats["state_side"] == side
    for s in got.steps:
        assert 0 <= s.gpu_share <= 1 and s.gpu_s >= 0 and s.cpu_s >= 0
        assert s.bus_share == 0 and s.bus_s == 0  # no budget: every list fits, none on the bus
        if execution == "hybrid-seed":
            assert s.gpu_share in (0.0, 1.0)  # 0: the senders had no edges


@pytest.mark.parametrize("fits", [None, 0.25, 0.0])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cpu_split_collaborative_filtering(direction, fits, side):
    """Collaborative filtering (process reads the state), every list on the device or a budget
    holding `fits` of them, the state on either side."""
    G, prog = ratings(), programs.collaborative_filtering(k=4, rate=0.02)
    kw = dict(max_iter=20, direction=direction, device="cpu")
    limit = None if fits is None else budget(G, prog, fits, direction, side == "gpu")
    with gravel.config.using(device_memory=limit):
        got = programs.run(G, prog, execution="hybrid", **kw)
    assert_same(got, programs.run(G, prog, **kw))


@settings(max_examples=30, deadline=None)
@given(
    graphs(weighted=True),
    st.sampled_from(DIRECTIONS),
    st.sampled_from(HYBRID),
    st.sampled_from([None, 0.0, 0.25, 0.6]),
    st.sampled_from(list(PRIORS)),
)
@example(  # four arcs into vertex 0 of three: they fit where the bus rows' offsets would go
    gravel.Graph.from_edges([2, 1, 1, 0], [0, 0, 0, 0], np.ones(4, np.float32), n=3, directed=True),
    "auto",
    "hybrid",
    0.0,
    "cpu",
)
def test_cpu_split_random_graphs(G, direction, execution, fits, side):
    """Random graphs, with every list on the device (None) or a budget that holds `fits` of
    them (0.0: none, the GPU's share all over the bus), the state on either side."""
    with state_on(side):
        _random_graph_runs(G, direction, execution, fits, side)


def _random_graph_runs(G, direction, execution, fits, side):
    kw = dict(direction=direction, device="cpu")
    for prog, params in [
        (programs.bfs(), {"source": 0}),
        (programs.sssp(), {"source": 0}),
        (programs.connected_components(), {}),
        (smallest_label("in"), {}),
    ]:
        if G.n or not params:
            home = side == "gpu" and execution == "hybrid"
            limit = None if fits is None else budget(G, prog, fits, direction, home)
            with gravel.config.using(device_memory=limit):
                got = programs.run(G, prog, params=params, execution=execution, **kw)
            assert_same(got, programs.run(G, prog, params=params, **kw))
            assert got.stats["state_side"] == ("gpu" if home else "cpu")
            if fits is None:  # every list on the device: none over the bus
                assert all(s.bus_share == 0 == s.bus_s for s in got.steps)
            # no device rows: all over the bus; unless the arcs fit in the room that the bus
            # rows' offsets would take (a graph of fewer arcs than vertices): then all on the device
            if fits == 0.0 and execution == "hybrid":
                if G.nnz * (4 + 4 * G.weighted) > 8 * (G.n + 1):
                    assert all(s.gpu_share == s.bus_share for s in got.steps)
                else:
                    assert all(s.bus_share == 0 for s in got.steps)


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("hybrid_run", [("single", "cpu"), *RUNS], indirect=True, ids="-".join)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("way", ["out", "in", "both"])
def test_cpu_ways_of_a_program(way, direction, hybrid_run, directed):
    """Every edge direction of a program (out, in, both), on a directed graph and an undirected
    one, pulled, pushed or switched, on one device and both hybrids: the labels it must reach,
    in the iterations of the single-device run (a hybrid-seed part that reduced along one way
    only, for "both" on a directed graph, missed labels or stopped early)."""
    execution, _ = hybrid_run
    G = gravel.Graph.from_edges(*ARCS, n=7, directed=directed)
    kw = dict(direction=direction, device="cpu", max_iter=50)
    got = programs.run(G, smallest_label(way), execution=execution, **kw)
    assert got.converged and got.state.tolist() == LABELS[way, directed]
    assert_same(got, programs.run(G, smallest_label(way), **kw))


def test_cpu_split_within_a_budget():
    """A budget that holds about half the arcs caps the device rows' share; the GPU's share grows
    past it over the bus; the result stands."""
    G = gravel.generate.kronecker(10, 16, seed=1, directed=True)
    prog = programs.connected_components()  # both ways of a directed graph: in- and out-lists
    with gravel.config.using(device_memory=budget(G, prog, 0.5)):
        got = programs.run(G, prog, execution="hybrid", device="cpu")
    assert_same(got, programs.run(G, prog, device="cpu"))
    pulls = shares(got)
    assert pulls and all(0 < device <= 0.5 + 1e-9 for device, _ in pulls)
    assert 0 < got.stats["gpu_share"] - got.stats["bus_share"] <= 0.5 + 1e-9


@pytest.mark.parametrize("fraction", list(FRACTIONS))
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", LIBRARY)
@pytest.mark.parametrize("graph_name", ["kron8", "kron8-directed"])
def test_cpu_three_way_split_matches_single(graph_name, name, direction, fraction, side):
    """Every library program, pulled, pushed or switched, with device, bus and CPU rows (or no
    device rows), the state on either side: the single device's result."""
    G, prog, direction = case(GRAPHS[graph_name](), name, direction)
    fits = FRACTIONS[fraction]
    limit = 1 if fits is None else budget(G, prog, fits, direction, side == "gpu")
    kw = dict(max_iter=1000, direction=direction, device="cpu")
    with gravel.config.using(device_memory=limit):
        got = programs.run(G, prog, execution="hybrid", **kw)
    assert_same(got, programs.run(G, prog, **kw))
    pulls = shares(got)
    if fraction == "k==0":
        assert all(device == 0 for device, _ in pulls)
    if pulls and G.nnz:  # the first pull takes the prior share, past the device rows
        device, bus = pulls[0]
        assert bus > 0 and device + bus < 1
        assert device > 0 or fraction == "k==0"
    assert got.stats["state_side"] == side


@pytest.mark.parametrize("prior", [0.5, 1.0])
@pytest.mark.parametrize("name", ["pagerank", "connected_components", "bfs", "sssp"])
def test_cpu_split_moves_keep_the_result(scripted, monkeypatch, name, prior):
    """The split moved every other pull (a new split's first pull is not measured) through the
    shares of SCRIPT: each pull's shares are those placed (the device rows within the cap, the
    rest of the GPU's share over the bus), and the result is the single device's."""
    monkeypatch.setattr(cpu_part.CpuPart, "prior_share", prior)
    scripted(*SCRIPT)
    G, prog, direction = case(gravel.generate.kronecker(9, 8, seed=4), name, "pull")
    params = {"source": int(G.out_degree.argmax())} if name in ("bfs", "sssp") else None
    kw = dict(max_iter=12, direction=direction, device="cpu", params=params)
    cap = 0.3
    with gravel.config.using(device_memory=budget(G, prog, cap, home=prior > PRIORS["cpu"])):
        got = programs.run(G, prog, execution="hybrid", **kw)
    assert_same(got, programs.run(G, prog, **kw))
    placed = [x for share in (prior, *SCRIPT) for x in (share, share)]
    row = G.out_degree.max() / G.nnz  # a row's arcs: the most a split row leaves out
    pulls = shares(got)
    assert len(pulls) >= 3
    for (device, bus), share in zip(pulls, placed, strict=False):
        assert share - 2 * row < device + bus <= share + 1e-9
        assert min(share, cap) - 2 * row < device <= min(share, cap)
        assert bus >= 0 and (bus > 0) == (share > cap + row)


@pytest.mark.parametrize("direction", ["pull", "push"])
def test_cpu_rows_none_nothing_exported(scripted, monkeypatch, direction):
    """The state on the GPU's side and every arc the GPU's (share 1.0, j == n): the CPU has no
    rows, so no iteration, pull or push, copies the messages to it; the result is the single
    device's."""
    from gravel.programs import home

    monkeypatch.setattr(cpu_part.CpuPart, "prior_share", 1.0)
    scripted(1.0)
    copied = []
    export = home.CpuHome.export

    def counted(self, way, values):
        copied.append(values)
        return export(self, way, values)

    monkeypatch.setattr(home.CpuHome, "export", counted)
    G, prog, direction = case(gravel.generate.kronecker(8, 8, seed=2), "bfs", direction)
    kw = dict(max_iter=100, direction=direction, device="cpu", params={"source": 0})
    got = programs.run(G, prog, execution="hybrid", **kw)
    assert_same(got, programs.run(G, prog, **kw))
    assert got.stats["state_side"] == "gpu" and copied and not any(copied)


def test_cpu_part_bus_rows():
    """The stand-in's bus graph holds rows [k, j) of the lists, ids and weights, and no other."""
    G = add_random_weights(gravel.generate.kronecker(7, 8, seed=5), seed=1)
    part = cpu_part.CpuPart(G, programs.sssp(), {"source": np.int64(0)}, whole=False)
    lists = (G.offsets, G.indices, (G.weights, True))
    k, j = G.n // 4, 3 * G.n // 4
    bus = part.bus(lists, k, j)
    offsets, ids, (weights, weighted) = bus.csc
    assert weighted and (bus.lo, bus.hi) == (k, j) and bus.csr is bus.csc
    for v in range(G.n):
        got = slice(offsets[v], offsets[v + 1])
        want = slice(G.offsets[v], G.offsets[v + 1]) if k <= v < j else slice(0, 0)
        np.testing.assert_array_equal(ids[got], G.indices[want])
        np.testing.assert_array_equal(weights[got], G.weights[want])


def test_bad_execution():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(gravel.UnknownNameError, match="unknown execution"):
        programs.run(G, programs.bfs(), execution="both", device="cpu")


@pytest.mark.parametrize(("reduce", "side"), [("sum", "cpu"), ("max", "gpu")])
def test_narrow_sums_keep_the_state_on_the_cpu(reduce, side):
    """A one-byte message summed wraps in its type on the CPU and not on the GPU (int32): where
    partial totals of both would mix, the state stays on the CPU; a maximum folds alike on both
    and the state goes where most of the work is."""
    G = gravel.generate.kronecker(8, 8, seed=2)
    prog = programs.Program(
        "int32", "uint8", init="v", send="1", process="message", reduce=reduce, apply="total"
    )
    kw = dict(device="cpu", max_iter=2)
    with state_on("gpu"):
        got = programs.run(G, prog, execution="hybrid", **kw)
    assert got.stats["state_side"] == side
    assert_same(got, programs.run(G, prog, **kw))
