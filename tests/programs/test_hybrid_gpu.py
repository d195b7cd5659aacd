"""Hybrid execution of vertex programs on a GPU (-m gpu): both hybrid modes against single-device
results, with the state on either side (gravel.programs.home); as test_hybrid.py on the CPU
stand-in."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import programs
from gravel.programs import split
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


# -- on the GPU ------------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", LIBRARY)
def test_gpu_hybrid_matches_single(graph, name, direction, hybrid_run):
    execution, side = hybrid_run
    G, prog, direction = case(graph, name, direction)
    kw = dict(max_iter=1000, direction=direction)
    got = programs.run(G, prog, execution=execution, device="cuda", **kw)
    assert got.device == "cpu+cuda" and got.stats["state_side"] == side
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)
    assert_same(got, programs.run(G, prog, device="cuda", **kw), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("fits", [None, 0.25, 0.0])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gpu_hybrid_collaborative_filtering(direction, fits, hybrid_run):
    execution, side = hybrid_run
    G, prog = ratings(), programs.collaborative_filtering(k=4, rate=0.02)
    kw = dict(max_iter=20, direction=direction)
    limit = None if fits is None else budget(G, prog, fits, direction, side == "gpu")
    with gravel.config.using(device_memory=limit):
        got = programs.run(G, prog, execution=execution, device="cuda", **kw)
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-7)


@pytest.mark.gpu
@settings(max_examples=20, deadline=None)
@given(graphs(weighted=True), st.sampled_from(DIRECTIONS), st.sampled_from(HYBRID))
def test_gpu_hybrid_random_graphs(G, direction, execution):
    kw = dict(direction=direction)
    for prog, params in [
        (programs.bfs(), {"source": 0}),
        (programs.sssp(), {"source": 0}),
        (programs.connected_components(), {}),
    ]:
        if G.n or not params:
            got = programs.run(G, prog, params=params, execution=execution, device="cuda", **kw)
            assert_same(got, programs.run(G, prog, params=params, device="cpu", **kw), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("hybrid_run", [("single", "cpu"), *RUNS], indirect=True, ids="-".join)
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("way", ["out", "in", "both"])
def test_gpu_ways_of_a_program(way, direction, hybrid_run, directed):
    """As test_cpu_ways_of_a_program, the GPU taking the SpMV (its part, or all of it), the
    state on either side."""
    execution, _ = hybrid_run
    G = gravel.Graph.from_edges(*ARCS, n=7, directed=directed)
    kw = dict(direction=direction, max_iter=50)
    got = programs.run(G, smallest_label(way), execution=execution, device="cuda", **kw)
    assert got.converged and got.state.tolist() == LABELS[way, directed]
    assert_same(got, programs.run(G, smallest_label(way), device="cpu", **kw))


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["bfs", "pagerank"])
def test_gpu_split_over_the_budget(name):
    """A budget that holds about half the arcs: the device rows stay within it, the GPU reads
    more over the bus, every share works, and the result is the single device's."""
    G, prog, direction = case(gravel.generate.kronecker(14, 16, seed=1), name, "auto")
    params = {"source": int(G.out_degree.argmax())} if name == "bfs" else None
    kw = dict(max_iter=50, direction=direction, params=params)
    with gravel.config.using(device_memory=budget(G, prog, 0.5, direction, home=True)):
        got = programs.run(G, prog, execution="hybrid", device="cuda", **kw)
    assert got.stats["state_side"] == "gpu"  # the GPU's prior share: most of the work
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)
    pulls = [s for s in got.steps if s.direction == "pull"]
    assert pulls and all(0 < s.gpu_share - s.bus_share <= 0.5 + 1e-9 for s in pulls)
    assert all(s.cpu_s > 0 and s.gpu_s > 0 for s in pulls)
    assert pulls[0].bus_share > 0 and pulls[0].bus_s > 0  # the prior share, past the budget


@pytest.mark.gpu
@pytest.mark.parametrize("fraction", list(FRACTIONS))
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", LIBRARY)
@pytest.mark.parametrize("graph_name", ["kron8", "kron8-directed"])
def test_gpu_three_way_split_matches_single(graph_name, name, direction, fraction, side):
    """As test_cpu_three_way_split_matches_single, the GPU's part on the GPU: its device rows in
    device memory, its bus rows read from pinned host memory; the state on either side."""
    G, prog, direction = case(GRAPHS[graph_name](), name, direction)
    fits = FRACTIONS[fraction]
    limit = 1 if fits is None else budget(G, prog, fits, direction, side == "gpu")
    kw = dict(max_iter=1000, direction=direction)
    with gravel.config.using(device_memory=limit):
        got = programs.run(G, prog, execution="hybrid", device="cuda", **kw)
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)
    pulls = shares(got)
    if fraction == "k==0":
        assert all(device == 0 for device, _ in pulls)
    if pulls and G.nnz:  # the prior share past the device rows
        device, bus = pulls[0]
        assert bus > 0 and (device > 0 or fraction == "k==0")
    assert got.stats["state_side"] == side


@pytest.mark.gpu
@pytest.mark.parametrize("prior", [0.5, 1.0])
@pytest.mark.parametrize("name", ["pagerank", "connected_components", "bfs", "sssp"])
def test_gpu_split_moves_keep_the_result(scripted, monkeypatch, name, prior):
    """As test_cpu_split_moves_keep_the_result, on the GPU: each move copies the device rows and
    maps the bus rows again."""
    from gravel.programs import cuda_part

    monkeypatch.setattr(cuda_part.CudaPart, "prior_share", prior)
    scripted(*SCRIPT)
    G, prog, direction = case(gravel.generate.kronecker(9, 8, seed=4), name, "pull")
    params = {"source": int(G.out_degree.argmax())} if name in ("bfs", "sssp") else None
    kw = dict(max_iter=12, direction=direction, params=params)
    cap = 0.3
    with gravel.config.using(device_memory=budget(G, prog, cap, home=prior > PRIORS["cpu"])):
        got = programs.run(G, prog, execution="hybrid", device="cuda", **kw)
    assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)
    row = G.out_degree.max() / G.nnz
    placed = [x for share in (prior, *SCRIPT) for x in (share, share)]
    pulls = shares(got)
    assert len(pulls) >= 3
    for (device, bus), share in zip(pulls, placed, strict=False):
        assert share - 2 * row < device + bus <= share + 1e-9
        assert (bus > 0) == (share > cap + row)


@pytest.mark.gpu
def test_gpu_part_bus_rows():
    """CudaPart's bus graph: rows [k, j) of the host lists, read in place over the bus (pinned,
    placement "host"), the other rows empty."""
    from gravel.programs.cuda_part import CudaPart

    G = add_random_weights(gravel.generate.kronecker(7, 8, seed=5), seed=1)
    part = CudaPart(G, programs.sssp(), {"source": np.int64(0)}, whole=False)
    k, j = G.n // 4, 3 * G.n // 4
    bus = part.bus((G.offsets, G.indices, (G.weights, True)), k, j)
    assert bus.placement == "host" and not bus.directed
    lo, hi = G.offsets[k], G.offsets[j]
    # the host arrays themselves, mapped at their own addresses (unified addressing)
    assert bus.indices.data.ptr == G.indices.ctypes.data + lo * G.indices.itemsize
    assert bus.weights.data.ptr == G.weights.ctypes.data + lo * G.weights.itemsize
    offsets, ids, weights = (a.get() for a in bus.csc())
    np.testing.assert_array_equal(offsets, split.bus_offsets(G.offsets, k, j))
    np.testing.assert_array_equal(ids, G.indices[lo:hi])
    np.testing.assert_array_equal(weights, G.weights[lo:hi])


@pytest.mark.gpu
@settings(max_examples=20, deadline=None)
@given(
    graphs(weighted=True),
    st.sampled_from(DIRECTIONS),
    st.sampled_from([0.0, 0.25, 0.6]),
    st.sampled_from(list(PRIORS)),
)
def test_gpu_three_way_random_graphs(G, direction, fits, side):
    """Random graphs under budgets that hold `fits` of their lists, the state on either side:
    the CPU's results."""
    with state_on(side):
        _gpu_random_graph_runs(G, direction, fits, side)


def _gpu_random_graph_runs(G, direction, fits, side):
    for prog, params in [
        (programs.bfs(), {"source": 0}),
        (programs.sssp(), {"source": 0}),
        (programs.connected_components(), {}),
    ]:
        if G.n or not params:
            kw = dict(params=params, direction=direction)
            limit = budget(G, prog, fits, direction, side == "gpu")
            with gravel.config.using(device_memory=limit):
                got = programs.run(G, prog, execution="hybrid", device="cuda", **kw)
            assert_same(got, programs.run(G, prog, device="cpu", **kw), rtol=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["sssp", "pagerank", "bfs"])
def test_gpu_fold_in_folds_where_received_and_sets_where_not(name):
    """Spmv.fold_in, the CPU's totals folded into the GPU's (the state on the GPU's side), on
    random totals: the program's reduce where the GPU's rows reached a vertex, the CPU's total
    where not, every given vertex received after; the others untouched."""
    import cupy

    from gravel.programs.cuda_spmv import Spmv

    prog = getattr(programs, name)()
    rng = np.random.default_rng(7)
    n = 1000
    field = prog.message[0]
    tt = cupy.asarray(rng.integers(0, 50, n).astype(field.dtype))
    received = cupy.asarray((rng.random(n) < 0.5).astype(np.int32))
    arrays = {"tt0": tt, "received": received, "ms0": cupy.zeros(n, field.dtype)}
    arrays |= {"active": cupy.zeros(n, cupy.uint8), "st0": cupy.zeros(n, prog.state[0].dtype)}
    before_tt, before_received = tt.get(), received.get()
    ids = np.sort(rng.choice(n, 300, replace=False)).astype(np.int32)
    given = rng.integers(0, 50, ids.size).astype(field.dtype)
    Spmv(prog, n, arrays).fold_in(ids, [given])
    expect, marked = before_tt.copy(), before_received.copy()
    had = before_received[ids] > 0
    fold = {"min": np.minimum, "sum": np.add, "any": np.minimum}[prog.reduce]  # any folds as min
    expect[ids] = np.where(had, fold(before_tt[ids], given), given)
    marked[ids] = 1
    np.testing.assert_allclose(tt.get(), expect, rtol=1e-6)
    np.testing.assert_array_equal(received.get(), marked)
