"""Hybrid execution of vertex programs (gravel.programs.hybrid): the CPU stand-in for the GPU's
part (device="cpu": the three-way split, its moves, the compressed vectors and the combining in
CI), and on a GPU (-m gpu) both hybrid modes against single-device results, with the state on
either side (gravel.programs.home). The split's arithmetic: test_split.py."""

import contextlib

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import gravel
from gravel import programs
from gravel.programs import cpu_part, hybrid, split
from gravel.programs.cpu import CpuEngine
from gravel.programs.cuda_part import vertex_bytes
from gravel.transform import add_random_weights

from ..strategies import graphs
from .helpers import GRAPHS, ratings, with_loops

DIRECTIONS = ("auto", "pull", "push")
HYBRID = ("hybrid-seed", "hybrid")
LIBRARY = ("bfs", "sssp", "connected_components", "pagerank", "triangles")


@pytest.fixture(scope="module", params=list(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


def case(graph, name, direction):
    """The graph, program and direction a library program runs on: PageRank pulls a graph with a
    loop on every vertex, triangles count on the simple undirected graph, SSSP weighs edges."""
    G = add_random_weights(graph, seed=3)
    if name == "pagerank":
        G, direction = with_loops(graph), "pull"
    if name == "triangles":
        G = G.simple_undirected()
    return G, getattr(programs, name)(), direction


#: the part's prior share that puts the state on each side (where most of the work is expected)
PRIORS = {"cpu": 0.5, "gpu": 0.9}


@contextlib.contextmanager
def state_on(side):
    """Hybrid runs within the block keep the state on `side` ("cpu", or "gpu": the part's), the
    CPU's stand-in for the part and the GPU's alike, by the part's prior share."""
    from gravel.programs import cuda_part

    with pytest.MonkeyPatch.context() as mp:
        for part in (cpu_part.CpuPart, cuda_part.CudaPart):
            mp.setattr(part, "prior_share", PRIORS[side])
        yield


@pytest.fixture(params=list(PRIORS))
def side(request):
    """Each side the state may live on, for the test's hybrid runs."""
    with state_on(request.param):
        yield request.param


#: (execution, the side the state lives on): the seed's scheme keeps it on the CPU
RUNS = [("hybrid-seed", "cpu"), ("hybrid", "cpu"), ("hybrid", "gpu")]


@pytest.fixture(params=RUNS, ids="-".join)
def hybrid_run(request):
    """Each hybrid execution, and each side the state may live on where it can move."""
    execution, where = request.param
    with state_on(where):
        yield execution, where


def assert_same(got, expect, rtol=1e-9):
    """The same state (a GPU's sums in another order: within `rtol`, the iterations free)."""
    assert got.state.dtype == expect.state.dtype and got.converged == expect.converged
    if rtol < 1e-6:
        assert got.iterations == expect.iterations
    for f in got.state.dtype.names or (None,):
        a, b = (got.state, expect.state) if f is None else (got.state[f], expect.state[f])
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


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


def smallest_label(way):
    """Each vertex takes the smallest id it hears along its edges `way` ("out": from the
    vertices that reach it; "in": from those it reaches; "both": its weak component's)."""
    return programs.Program(
        "int32",
        "int32",
        init="v",
        send="state",
        process="message",
        reduce="min",
        apply="min(state, total)",
        direction=way,
    )


#: arcs 1 -> 0, 1 -> 2, 3 -> 2, 4 -> 3 and 5 -> 4 (and 6 alone): every label needs its way
ARCS = ([1, 1, 3, 4, 5], [0, 2, 2, 3, 4])
#: the smallest label of each vertex by the program's way, on the directed graph and undirected
LABELS = {
    ("out", True): [0, 1, 1, 3, 4, 5, 6],  # the smallest ancestor (or itself)
    ("in", True): [0, 0, 2, 2, 2, 2, 6],  # the smallest descendant (or itself)
    ("both", True): [0, 0, 0, 0, 0, 0, 6],
    **{(way, False): [0, 0, 0, 0, 0, 0, 6] for way in ("out", "in", "both")},
}


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


def list_sets(G, prog, direction):
    """The sets of lists a hybrid run of `prog` reads: an undirected graph's one; a directed
    graph's in- and out-lists where the run both pulls and pushes, or its messages go both ways."""
    if not G.directed:
        return 1
    pushes = isinstance(prog.reduce, str) and prog.senders != "all"
    both = direction == "auto" and pushes
    return 2 if both or prog.direction == "both" else 1


def budget(G, prog, fraction, direction="auto", home=False):
    """A device budget whose room for lists holds `fraction` of the arcs of the sets of lists
    the run reads: the part's vertex arrays (with the state's, `home`), the offsets of its device
    rows and of its bus rows, then the arcs."""
    sets, arc = list_sets(G, prog, direction), 4 + 4 * G.weighted
    ways = 2 if G.directed and prog.direction == "both" else 1
    per_vertex = vertex_bytes(prog, ways if home else 0)
    return per_vertex * G.n + 2 * sets * 8 * (G.n + 1) + int(fraction * sets * G.nnz * arc)


def shares(result):
    """(device share, bus share) of each pull of a hybrid run."""
    pulls = [s for s in result.steps if s.direction == "pull"]
    return [(s.gpu_share - s.bus_share, s.bus_share) for s in pulls]


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


#: the budgets of the three-way split, as fractions of the arcs: the device rows, bus rows and
#: the CPU's (k < j < n); no device rows, the GPU reading all of its share over the bus (k == 0)
FRACTIONS = {"k<j<n": 0.25, "k==0": None}


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


@pytest.fixture
def scripted(monkeypatch):
    """The split's measure replaced by the shares given, one per measured pull, in turn (then
    the last again): the split moves where they say, past the cap over the bus."""

    def script(*values):
        it = iter(values)
        last = [values[-1]]

        def measured(cap, device, bus, cpu):
            last[0] = next(it, last[0])
            return last[0]

        monkeypatch.setattr(hybrid, "split_share", measured)

    return script


#: the shares the scripted measure gives: past the cap over the bus, within it, all the GPU's
#: (j == n), none, past the cap again
SCRIPT = (0.9, 0.1, 1.0, 0.0, 0.6)


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

    from gravel.programs.cuda import Spmv

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
