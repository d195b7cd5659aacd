"""Vertex programs (gravel.programs) on the CPU: the library against gravel's built-in primitives,
pull, push and the switch, structured values, semirings, custom reduces, and bad programs."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel import programs
from gravel.programs import Program, ProgramError
from gravel.transform import add_random_weights

from ..strategies import graphs
from .helpers import GRAPHS, LOWEST, PARENT_BFS, REACH, WIDEST, ratings, with_loops

DIRECTIONS = ("auto", "pull", "push")


@pytest.fixture(scope="module", params=list(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_bfs_matches_builtin(graph, direction):
    r = programs.run(graph, programs.bfs(), params={"source": 1}, direction=direction, device="cpu")
    assert r.converged and r.state.dtype == np.int32
    np.testing.assert_array_equal(r.state, gravel.bfs(graph, 1, device="cpu").depth)
    if direction != "auto":
        assert {s.direction for s in r.steps} == {direction}


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_sssp_matches_builtin(graph, direction):
    G = add_random_weights(graph, seed=3)
    r = programs.run(G, programs.sssp(), params={"source": 2}, direction=direction, device="cpu")
    assert r.converged
    np.testing.assert_allclose(r.state, gravel.sssp(G, 2, device="cpu").distance, rtol=1e-6)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cc_matches_builtin(graph, direction):
    r = programs.run(graph, programs.connected_components(), direction=direction, device="cpu")
    assert r.converged
    labels = gravel.connected_components(graph, device="cpu").labels
    np.testing.assert_array_equal(r.state, labels)


def test_pagerank_matches_builtin(graph):
    G = with_loops(graph)
    r = programs.run(G, programs.pagerank(tol=1e-13), max_iter=1000, device="cpu")
    assert r.converged and {s.direction for s in r.steps} == {"pull"}
    ref = gravel.pagerank(G, tol=1e-12, max_iter=1000, device="cpu").rank
    np.testing.assert_allclose(r.state, ref, rtol=1e-6, atol=1e-12)


def test_bfs_switches_direction():
    """A BFS on a Kronecker graph pushes from the frontiers whose lists hold few arcs and pulls
    where they hold many."""
    G = gravel.generate.kronecker(10, 16, seed=1)
    hub = int(G.out_degree.argmax())
    r = programs.run(G, programs.bfs(), params={"source": hub}, device="cpu")
    chosen = [s.direction for s in r.steps]
    assert "push" in chosen and "pull" in chosen
    depth = gravel.bfs(G, hub, device="cpu").depth
    for level, s in enumerate(r.steps):
        arcs = G.out_degree[depth == level].sum()
        assert s.active == np.count_nonzero(depth == level)
        assert (s.direction == "pull") == (arcs > programs.PULL_ABOVE * G.nnz)
        assert s.time_s >= 0
    assert r.time_s >= sum(s.time_s for s in r.steps)


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True))
def test_random_graphs_match_builtins(G):
    source = {"source": 0}
    for direction in DIRECTIONS:
        if G.n:
            r = programs.run(G, programs.bfs(), params=source, direction=direction, device="cpu")
            np.testing.assert_array_equal(r.state, gravel.bfs(G, 0, device="cpu").depth)
            r = programs.run(G, programs.sssp(), params=source, direction=direction, device="cpu")
            np.testing.assert_allclose(r.state, gravel.sssp(G, 0, device="cpu").distance)
        r = programs.run(G, programs.connected_components(), direction=direction, device="cpu")
        cc = gravel.connected_components(G, device="cpu").labels
        np.testing.assert_array_equal(r.state, cc)


@settings(max_examples=20, deadline=None)
@given(graphs())
def test_random_graphs_pagerank(G):
    G = with_loops(G)
    r = programs.run(G, programs.pagerank(tol=1e-13), max_iter=2000, device="cpu")
    if G.n:
        ref = gravel.pagerank(G, tol=1e-12, max_iter=2000, device="cpu").rank
        np.testing.assert_allclose(r.state, ref, rtol=1e-6, atol=1e-12)


#: BFS parents from vertex 0: each unreached vertex takes any one sender of the frontier as its
#: parent (values that differ, so "any" is a choice here)
ANY_PARENT = Program(
    "int64",
    "int64",
    init="0 if v == 0 else -1",
    start="v == 0",
    send="v",
    process="message",
    reduce="any",
    apply="total",
    listen="state < 0",
)


def check_parents(G, parent):
    """`parent` is a BFS tree of G from vertex 0: the reached vertices are BFS's, and each one's
    parent is an in-neighbour one level nearer."""
    depth = gravel.bfs(G, 0, device="cpu").depth
    np.testing.assert_array_equal(parent >= 0, depth >= 0)
    kids = np.flatnonzero(depth > 0)
    assert np.all(depth[parent[kids]] == depth[kids] - 1)
    assert np.all(G.has_arcs(parent[kids], kids))


def fixed_cc(G, cut):
    """Label propagation (both ways) where the vertices below `cut` keep their own id: NumPy."""
    src, dst = G.edges()
    src, dst = np.r_[src, dst], np.r_[dst, src]
    labels = np.arange(G.n)
    while True:
        new = labels.copy()
        np.minimum.at(new, dst, labels[src])
        new[:cut] = np.arange(min(cut, G.n))
        if np.array_equal(new, labels):
            return labels
        labels = new


#: connected_components() with the vertices below `cut` deaf: they keep their ids, and still send
FIXED_CC = programs.connected_components().replace(listen="v >= cut", params={"cut": 0})

#: reachability from vertex 0 in bool messages: "any" on a type narrower than its reduction's
#: (a pull masks the non-senders with the program's identity, and stops at a value unlike it)
REACHED = ANY_PARENT.replace(
    state="bool", message="bool", init="v == 0", send="True", listen="not state"
)


def check_reached(G, reached):
    assert np.array_equal(reached, gravel.bfs(G, 0, device="cpu").depth >= 0)


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_listen_and_any_on_random_graphs(G):
    if G.n == 0:
        return
    cut = G.n // 3
    for direction in DIRECTIONS:
        r = programs.run(G, ANY_PARENT, direction=direction, device="cpu")
        check_parents(G, r.state)
        r = programs.run(G, FIXED_CC, params={"cut": cut}, direction=direction, device="cpu")
        np.testing.assert_array_equal(r.state, fixed_cc(G, cut))
        check_reached(G, programs.run(G, REACHED, direction=direction, device="cpu").state)


def test_structured_state_and_message():
    """BFS keeping a parent: a structured state, a structured message reduced field by field."""
    G = gravel.generate.grid(4, 5)
    prog = PARENT_BFS
    r = programs.run(G, prog, device="cpu")
    assert r.state.dtype.names == ("depth", "parent")
    depth, parent = r.state["depth"], r.state["parent"]
    np.testing.assert_array_equal(depth, gravel.bfs(G, 0, device="cpu").depth)
    child = np.arange(G.n)[depth > 0]
    assert G.has_arcs(parent[child], child).all()
    assert (depth[parent[child]] == depth[child] - 1).all()


def test_semirings_and_custom_reduce():
    G = gravel.generate.kronecker(7, 4, seed=5, directed=True)
    depth = gravel.bfs(G, 0, device="cpu").depth
    np.testing.assert_array_equal(programs.run(G, REACH, device="cpu").state, depth >= 0)
    r = programs.run(G, LOWEST, direction="pull", device="cpu")
    np.testing.assert_array_equal(r.state, gravel.connected_components(G, device="cpu").labels)
    assert programs.run(G, WIDEST, device="cpu").state[depth >= 0].min() == np.inf


def test_init_override_and_max_iter():
    G = gravel.generate.grid(1, 10)
    r = programs.run(G, programs.bfs(), max_iter=3, device="cpu")
    assert not r.converged and r.iterations == 3
    assert r.state.tolist() == [0, 1, 2, 3] + [-1] * 6
    given = np.arange(10, dtype=np.int32)[::-1].copy()
    r = programs.run(G, programs.connected_components(), init=given, device="cpu")
    assert r.state.tolist() == [0] * 10


def test_guide_program():
    """The guide's user-written program (docs/vertex-programs.md) runs as printed."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "vertex-programs.md").read_text()
    code = re.search(r"<!-- program -->\n```python\n(.*?)```", text, re.S).group(1)
    assert len(code.strip().splitlines()) < 20
    exec(code, {})  # noqa: S102


def test_triangles_match_builtin(graph):
    """On the simple undirected graph, as gravel.triangles counts them."""
    G = graph.simple_undirected()
    for direction in DIRECTIONS:
        r = programs.run(G, programs.triangles(), direction=direction, device="cpu")
        assert r.iterations == 1 and r.converged
        np.testing.assert_array_equal(r.state, gravel.triangles(G, device="cpu").triangles)


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=40, max_m=200, directed=False))
def test_random_graphs_triangles(G):
    G = G.simple_undirected()
    r = programs.run(G, programs.triangles(), device="cpu")
    np.testing.assert_array_equal(r.state, gravel.triangles(G, device="cpu").triangles)


# -- collaborative filtering -----------------------------------------------------------------------
def cf_reference(G, factors, iterations, rate, lam):
    """Gradient descent in NumPy: along every arc u -> v, v gains (r - p_u . p_v) p_u; a vertex
    that gained moves by rate * (gain - lam * p_v)."""
    src, dst, w = np.repeat(np.arange(G.n), np.diff(G.offsets)), G.indices, G.weights
    heard = np.bincount(dst, minlength=G.n)[:, None] > 0
    for _ in range(iterations):
        err = w - np.sum(factors[src] * factors[dst], axis=1)
        gain = np.zeros_like(factors)
        np.add.at(gain, dst, err[:, None] * factors[src])
        factors = np.where(heard, factors + rate * (gain - lam * factors), factors)
    return factors


def rmse(G, factors):
    src, dst, w = np.repeat(np.arange(G.n), np.diff(G.offsets)), G.indices, G.weights
    return float(np.sqrt(np.mean((w - np.sum(factors[src] * factors[dst], axis=1)) ** 2)))


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_collaborative_filtering_matches_numpy(direction):
    G, k = ratings(), 4
    prog = programs.collaborative_filtering(k=k, rate=0.02, lam=0.05)
    start = np.random.default_rng(1).uniform(0.2, 0.8, (G.n, k))
    init = {f"f{j}": start[:, j] for j in range(k)}
    r = programs.run(G, prog, init=init, max_iter=40, direction=direction, device="cpu")
    got = np.column_stack([r.state[f"f{j}"] for j in range(k)])
    expect = cf_reference(G, start, 40, 0.02, 0.05)
    np.testing.assert_allclose(got, expect, rtol=1e-9, atol=1e-12)
    assert r.iterations == 40 and not r.converged  # every vertex stays active
    assert rmse(G, got) < 0.6 * rmse(G, start)  # it learns the ratings


def test_collaborative_filtering_default_start_learns():
    G = ratings(seed=2)
    r = programs.run(G, programs.collaborative_filtering(k=8), max_iter=60, device="cpu")
    factors = np.column_stack([r.state[f"f{j}"] for j in range(8)])
    assert len(set(map(tuple, factors.round(12)))) == G.n  # the start broke every symmetry
    start = programs.run(G, programs.collaborative_filtering(k=8), max_iter=0, device="cpu")
    before = np.column_stack([start.state[f"f{j}"] for j in range(8)])
    assert rmse(G, factors) < 0.6 * rmse(G, before)


# -- bad programs ---------------------------------------------------------------------------------
def make(**changes):
    spec = dict(state="float64", message="float64", send="state", apply="min(state, total)")
    spec["semiring"] = "min_plus"
    return Program(**(spec | changes))


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"send": "state +"}, "send = 'state +' does not parse"),
        ({"send": "state[0]"}, "'state[0]' is not allowed"),
        ({"send": "sqrt(state)"}, "'sqrt(state)' is not allowed"),
        ({"send": "np.sqrt(state)"}, "'np.sqrt(state)' is not allowed"),
        ({"send": "state.rank"}, "'state.rank' is not a name send knows (it knows: in_degree"),
        ({"apply": "state + totl"}, "apply = 'state + totl': 'totl' is not a name"),
        ({"send": "'x'"}, "is not a number or a boolean"),
        ({"process": "message + state.rank"}, "'state.rank' is not a name process knows"),
        ({"send": {"x": "state"}}, "send is for a scalar value"),
        ({"message": [("m", "float64")]}, "send must give one expression per field"),
        ({"state": "complex128"}, "state has dtype complex128"),
        ({"message": [("m", "float16")]}, "message field 'm' has dtype float16"),
        ({"state": "nonsense"}, "state dtype 'nonsense' is not a NumPy dtype"),
        ({"semiring": None, "reduce": "a + b"}, "a program needs process and reduce"),
        ({"semiring": "min_times"}, "unknown semiring 'min_times'"),
        ({"semiring": None, "process": "message", "reduce": "a * b"}, "give its identity"),
        ({"direction": "up"}, "direction 'up'"),
        ({"send": "99999999999999999999999"}, "does not fit a 64-bit integer"),
        (
            {"semiring": None, "process": "message", "reduce": "a + b", "identity": "zero"},
            "identity = 'zero': expected a float64 value",
        ),
        ({"send": "common(v, 0)"}, "'common(v, 0)' is not allowed"),
        ({"process": "common(message)"}, "'common(message)' is not allowed"),
        ({"senders": "some"}, "senders 'some'"),
        (
            {"semiring": None, "process": "message", "reduce": "or"},
            "reduce 'or' folds bool messages; message field 'message' is float64: reduce by 'max'",
        ),
        (
            {
                "message": [("m", "bool"), ("k", "int32")],
                "send": {"m": "state > 0", "k": "v"},
                "process": {"m": "message.m", "k": "message.k"},
                "apply": "total.k",
                "reduce": "and",
                "semiring": None,
            },
            "message field 'k' is int32: reduce by 'min'",
        ),
        ({"listen": "total > 0"}, "'total' is not a name listen knows"),
        (
            {
                "message": [("m", "float64"), ("k", "int32")],
                "send": {"m": "state", "k": "v"},
                "process": {"m": "message.m", "k": "message.k"},
                "apply": "min(state, total.m)",
                "reduce": "any",
                "semiring": None,
            },
            "reduce 'any' keeps one sender's value",
        ),
    ],
)
def test_bad_program_is_named(changes, says):
    with pytest.raises(ProgramError, match=re.escape(says)):
        make(**changes)


def test_replace_makes_a_checked_variant():
    base = make()
    assert base.replace(senders="all").senders == "all" and base.senders == "active"
    with pytest.raises(ProgramError, match="senders 'some'"):
        base.replace(senders="some")
    with pytest.raises(TypeError, match="colour"):
        base.replace(colour="red")


def test_bad_run_arguments():
    G = gravel.generate.grid(2, 2)
    prog = make(params={"source": 0})
    with pytest.raises(ProgramError, match="unknown parameters"):
        programs.run(G, prog, params={"sorce": 1}, device="cpu")
    with pytest.raises(ProgramError, match=re.escape("init gives fields ['x']")):
        programs.run(G, prog, init={"x": np.zeros(4)}, device="cpu")
    with pytest.raises(gravel.InvalidArgumentError, match="shape"):
        programs.run(G, prog, init=np.zeros(3), device="cpu")
    with pytest.raises(gravel.UnknownNameError):
        programs.run(G, prog, direction="sideways", device="cpu")
    with pytest.raises(ProgramError, match="must be a gravel.programs.Program"):
        programs.run(G, "bfs", device="cpu")


@pytest.mark.parametrize("name", ["bfs", "sssp"])
@pytest.mark.parametrize("source", [4, -1, 99])
def test_a_source_outside_the_graph_is_refused(name, source):
    G = gravel.generate.grid(2, 2)
    with pytest.raises(gravel.VertexNotFoundError, match=f"parameter 'source': vertex {source}"):
        programs.run(G, getattr(programs, name)(), params={"source": source}, device="cpu")


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"source": 1.5}, "parameter 'source' = 1.5 is not a int64 value"),
        ({"source": 2**70}, "parameter 'source' = 1180591620717411303424: expected a int64"),
        ({"source": "abc"}, "parameter 'source' = 'abc': expected a int64 value"),
        ({"source": True}, "parameter 'source' = True: expected a int64 value"),
        ({"cut": 1e300}, "parameter 'cut' = 1e+300 is beyond float32's range"),
        ({"cut": None}, "parameter 'cut' = None: expected a float32 value"),
        ({"cut": [1, 2]}, "parameter 'cut' = [1, 2]: expected a float32 value"),
    ],
)
def test_a_parameter_its_type_cannot_hold_is_refused(params, says):
    prog = make(params={"source": 0, "cut": np.float32(0)})
    with pytest.raises(ProgramError, match=re.escape(says)):
        programs.run(gravel.generate.grid(2, 2), prog, params=params, device="cpu")


def test_parameters_that_fit_are_cast():
    prog = make(params={"source": 0, "cut": np.float32(0)})
    assert prog.bind({"source": 3.0, "cut": 0.1}) == {"source": 3, "cut": np.float32(0.1)}


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"params": {"p": "x"}}, "parameter 'p' = 'x': a default must be a number or a bool"),
        ({"params": {"p": [1, 2]}}, "parameter 'p' = [1, 2]: a default must be"),
        ({"params": {"p": np.int16(3)}}, "parameter 'p' = 3 has dtype int16: supported are"),
        ({"params": {"p": np.float16(0.5)}}, "has dtype float16: supported are bool, int8"),
        ({"params": {"p": np.uint32(7)}}, "parameter 'p' = 7 has dtype uint32"),
        ({"vertices": ("source",)}, "vertex parameter 'source' needs an integer default"),
        ({"params": {"source": 0.5}, "vertices": "source"}, "needs an integer default"),
    ],
)
def test_bad_parameter_declarations(changes, says):
    with pytest.raises(ProgramError, match=re.escape(says)):
        make(**changes)


# -- the GPU path (run with -m gpu on a machine with one) -----------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("name", ["bfs", "sssp", "connected_components", "pagerank", "triangles"])
def test_gpu_matches_cpu(graph, name, direction):
    G = add_random_weights(graph, seed=3)
    if name == "pagerank":
        G, direction = with_loops(graph), "pull"
    if name == "triangles":
        G = G.simple_undirected()
    prog = getattr(programs, name)()
    kw = dict(max_iter=1000, direction=direction)
    cpu = programs.run(G, prog, device="cpu", **kw)
    gpu = programs.run(G, prog, device="cuda", **kw)
    assert gpu.device == "cuda" and gpu.state.dtype == cpu.state.dtype
    np.testing.assert_allclose(gpu.state, cpu.state, rtol=1e-6, atol=1e-12)
    if name != "pagerank":  # exact programs: the same vertices active, the same choices
        # (the GPU counts its active vertices and their arcs as sums in its apply pass)
        assert [s[:2] for s in gpu.steps] == [s[:2] for s in cpu.steps]


@pytest.mark.gpu
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gpu_listen_and_any(graph, direction):
    r = programs.run(graph, ANY_PARENT, direction=direction, device="cuda")
    assert r.device == "cuda"
    check_parents(graph, r.state)
    cut = graph.n // 3
    r = programs.run(graph, FIXED_CC, params={"cut": cut}, direction=direction, device="cuda")
    np.testing.assert_array_equal(r.state, fixed_cc(graph, cut))
    check_reached(graph, programs.run(graph, REACHED, direction=direction, device="cuda").state)


@pytest.mark.gpu
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_gpu_collaborative_filtering_matches_cpu(direction):
    G = ratings()
    prog = programs.collaborative_filtering(k=4, rate=0.02)
    cpu = programs.run(G, prog, max_iter=30, direction=direction, device="cpu")
    gpu = programs.run(G, prog, max_iter=30, direction=direction, device="cuda")
    for f in cpu.state.dtype.names:
        np.testing.assert_allclose(gpu.state[f], cpu.state[f], rtol=1e-7)


@pytest.mark.gpu
def test_gpu_structured_semiring_custom():
    G = gravel.generate.kronecker(7, 4, seed=5, directed=True)
    for prog in (REACH, LOWEST):
        cpu = programs.run(G, prog, device="cpu")
        np.testing.assert_array_equal(programs.run(G, prog, device="cuda").state, cpu.state)
