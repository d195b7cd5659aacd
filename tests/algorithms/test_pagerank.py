"""PageRank on the CPU and the GPU: against NetworkX (same alpha, vectors, weights and, where asked,
its stopping rule) and against a tight float64 power iteration written here with SciPy."""

import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import generate, transform
from gravel.algorithms.pagerank import (
    DEFAULT_TOL,
    InvalidArgumentError,
    PowerIterationFailedConvergence,
    verify_pagerank,
)
from gravel.arrays import host
from gravel.backends.cpu import pagerank as kernels
from gravel.cli import open_graph
from gravel.reorder import reorder
from gravel.transform import deduplicate

from ..conftest import GPU_GRAPHS, dataset_ids, gpu_graph, load_dataset, reference
from ..strategies import graphs
from . import helpers

REF = reference()
SMALL = [e for e in REF if e["computed"]["n_vertices"] <= 40000]


def tight_reference(G, alpha=0.85, weighted=True, p=None, d=None):
    """PageRank by float64 power iteration with SciPy until the L1 change is below 1e-12 (then
    within about 6e-12 of the fixed point); p and d over the vertex ids, uniform when None."""
    import scipy.sparse as sp

    n = G.n
    A = sp.csr_array(G.to_scipy(), dtype=np.float64)
    if not weighted:
        A.data[:] = 1.0
    out = np.asarray(A.sum(axis=1)).ravel()
    PT = (sp.diags_array(np.divide(1.0, out, out=np.zeros(n), where=out > 0)) @ A).T.tocsr()
    p = np.full(n, 1.0 / n) if p is None else np.asarray(p, float) / np.sum(p)
    d = p if d is None else np.asarray(d, float) / np.sum(d)
    x = np.full(n, 1.0 / n)
    for _ in range(5000):
        new = alpha * (PT @ x + x[out == 0].sum() * d) + (1 - alpha) * p
        change, x = np.abs(new - x).sum(), new
        if change < 1e-12:
            return x
    raise AssertionError("the reference did not converge")


def nx_graph(G):
    """The stored arcs as a NetworkX MultiDiGraph (an undirected edge as two arcs, a self loop as
    one), which nx.pagerank reads as gravel does: parallel arcs add their weights."""
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(G.n))
    src, dst = G.edges()
    w = G.weights if G.weights is not None else np.ones(len(dst))
    g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    return g


def as_array(d, n):
    return np.array([d[k] for k in range(n)])


# -- NetworkX's semantics --------------------------------------------------------------------------
@st.composite
def cases(draw):
    """A small random graph (weighted or not), whether to read its weights, and optional
    personalization, nstart and dangling vectors (dicts or arrays, with zeros, never all zero)."""
    G = draw(graphs(max_n=30, max_m=90, weighted=draw(st.booleans())))
    n = G.n
    values = st.lists(st.integers(0, 5), min_size=n, max_size=n).filter(lambda v: sum(v) > 0)

    def vector():
        v = draw(st.none() | values) if n else None
        if v is not None and draw(st.booleans()):
            return {i: x for i, x in enumerate(v) if x}  # a dict names only some vertices
        return None if v is None else np.array(v, float)

    options = {
        "alpha": draw(st.sampled_from([0.85, 0.5, 0.9])),
        "personalization": vector(),
        "nstart": vector(),
        "dangling": vector(),
    }
    return G, draw(st.booleans()), options


@settings(max_examples=40, deadline=None)
@given(cases())
def test_random_graphs_match_networkx(case):
    G, weighted, options = case
    r = gravel.pagerank(
        G,
        weight=True if weighted else None,
        tol=1e-10,
        max_iter=1000,
        stopping="networkx",
        device="cpu",
        **options,
    )
    if G.n == 0:
        assert r.rank.size == 0 and r.iterations == 0
        return
    as_dict = {
        k: dict(enumerate(v)) if isinstance(v, np.ndarray) else v for k, v in options.items()
    }
    ref = nx.pagerank(
        nx_graph(G), weight="weight" if weighted else None, tol=1e-10, max_iter=1000, **as_dict
    )
    assert np.allclose(r.rank, as_array(ref, G.n), rtol=0, atol=1e-8)
    assert abs(r.rank.sum() - 1) < 1e-9 and r.stats["error"] < G.n * 1e-10
    assert r.rank.dtype == np.float64


def test_bundled_graph_stops_by_networkx_rule_where_asked():
    """stopping="networkx" stops where nx.pagerank does (its defaults stop 1e-2 from converged on
    this graph, so any other rule gives a visibly different answer)."""
    G, _ = open_graph(None)
    g = nx.DiGraph(G.to_networkx())
    r = gravel.pagerank(G, stopping="networkx", device="cpu")
    ref = as_array(nx.pagerank(g), G.n)
    assert np.allclose(r.rank, ref, rtol=1e-9, atol=0)
    default = gravel.pagerank(G, device="cpu")
    assert default.iterations > r.iterations and default.stats["error"] < DEFAULT_TOL


def check_pull(G, weighted, serial, uniform, seed):
    """The one-pass iteration and the plain pull (`serial`: their serial twins) on G against NumPy
    over the same in-edge lists: the new ranks, the next contributions, the dangling mass and the
    L1 change. Random ranks and contributions, teleport and dangling vectors stride-0 (`uniform`)
    or random, and where weighted, a zero weight on some arcs (a vertex of zero out-weight with
    out-edges dangles)."""
    n = G.n
    rng = np.random.default_rng(seed)
    in_off, in_idx, in_w = G.csc()
    in_w = in_w * (rng.random(len(in_w)) < 0.8) if weighted else np.ones(len(in_idx))
    out = np.bincount(in_idx, weights=in_w, minlength=n) if weighted else G.out_degree
    contrib, rank = rng.random(n), rng.random(n)
    if uniform:
        teleport, dangling = np.broadcast_to(0.15 / n, n), np.broadcast_to(1.0 / n, n)
    else:
        teleport, dangling = rng.random(n), rng.random(n)
    k = kernels.kernels(0 if serial else 1 << 62)
    new, nxt = np.empty(n), np.empty(n)
    args = (out, contrib, teleport, dangling, 0.3, 0.85, rank, new, nxt)
    lost, err = k.iterate(in_off, in_idx, in_w if weighted else None, *args)
    heads = np.repeat(np.arange(n), np.diff(in_off))
    x = teleport + 0.3 * dangling + 0.85 * np.bincount(heads, in_w * contrib[in_idx], n)
    assert np.allclose(new, x, rtol=1e-12, atol=0)
    assert np.allclose(nxt, np.divide(x, out, out=np.zeros(n), where=out > 0), rtol=1e-12, atol=0)
    assert np.isclose(lost, x[out == 0].sum(), rtol=1e-12, atol=0)
    assert np.isclose(err, np.abs(x - rank).sum(), rtol=1e-12, atol=0)
    base = teleport + 0.3 * dangling  # the plain pull: x from a base vector, the L1 change
    err = k.pull(in_off, in_idx, in_w if weighted else None, contrib, base, 0.85, rank, new)
    assert np.allclose(new, x, rtol=1e-12, atol=0)
    assert np.isclose(err, np.abs(x - rank).sum(), rtol=1e-12, atol=0)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), weighted=st.booleans(), serial=st.booleans(), uniform=st.booleans())
def test_pull_kernels_match_numpy(data, weighted, serial, uniform):
    """In-edge lists of every length modulo the pull's four accumulators."""
    G = data.draw(graphs(max_n=30, max_m=150, weighted=weighted))
    if G.n:
        check_pull(G, weighted, serial, uniform, data.draw(st.integers(0, 2**32 - 1)))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("serial", [False, True])
def test_pull_kernels_on_lists_longer_than_the_prefetch_distance(weighted, serial):
    G = transform.add_random_weights(generate.kronecker(11, 16, seed=1), 1, 9, seed=2)
    assert np.diff(G.csc()[0]).max() > kernels.AHEAD
    check_pull(G, weighted, serial, uniform=False, seed=3)


@pytest.mark.parametrize("entry", SMALL, ids=dataset_ids(SMALL))
def test_shared_datasets_match_networkx_and_converge(entry):
    G, _ = load_dataset(entry)
    keys = G.labels.tolist() if G.labels is not None else range(G.n)
    nx_rule = gravel.pagerank(G, weight=None, stopping="networkx", device="cpu")
    ref = nx.pagerank(G.to_networkx(), weight=None)
    assert np.allclose(nx_rule.rank, [ref[k] for k in keys], rtol=1e-6, atol=1e-12)
    r = gravel.pagerank(G, device="cpu")
    assert np.abs(r.rank - tight_reference(G)).sum() < 1e-4
    assert abs(r.rank.sum() - 1) < 1e-9
    assert verify_pagerank(G, r.rank) == []


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_pagerank_as_networkx(G):
    if G.n == 0:
        return  # the empty graph's ranks: test_empty_graph
    pr = gravel.pagerank(G, tol=1e-10, max_iter=1000, stopping="networkx", device="cpu").rank
    ref = helpers.as_array(
        nx.pagerank(
            nx.DiGraph(G.to_networkx()) if G.directed else G.to_networkx(),
            weight=None,
            tol=1e-10,
            max_iter=1000,
        ),
        G,
    )
    # parallel arcs: NetworkX's simple graph merges them, so compare on the deduplicated graph
    D = deduplicate(G)
    assert np.allclose(
        gravel.pagerank(D, tol=1e-10, max_iter=1000, stopping="networkx", device="cpu").rank,
        ref,
        atol=1e-8,
    )
    assert abs(pr.sum() - 1) < 1e-9


def test_weighted_graph_with_a_zero_out_weight_vertex():
    """Vertex 1's only out-edge weighs 0: it is dangling, as in NetworkX."""
    G = gravel.Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 3, 0, 0], [2.0, 1.0, 0.0, 4.0, 1.0])
    r = gravel.pagerank(G, tol=1e-12, device="cpu")
    ref = nx.pagerank(nx_graph(G), tol=1e-14, max_iter=1000)
    assert np.allclose(r.rank, as_array(ref, 4), atol=1e-10)
    unweighted = gravel.pagerank(G, weight=None, tol=1e-12, device="cpu")
    plain = gravel.Graph.from_edges(*G.edges())
    assert np.allclose(unweighted.rank, gravel.pagerank(plain, tol=1e-12, device="cpu").rank)
    assert r.strategy == "pull, weighted" and unweighted.strategy == "pull"


def test_reordered_graph_takes_and_gives_caller_ids():
    G = transform.add_random_weights(generate.kronecker(9, seed=1), 1, 9, seed=3)
    R = reorder(G, "degree")
    assert R.order is not None
    rng = np.random.default_rng(0)
    opts = {
        "personalization": {3: 1.0, 17: 2.0, 300: 0.5},
        "nstart": rng.random(G.n),
        "dangling": rng.random(G.n),
    }
    a, b = (gravel.pagerank(H, tol=1e-12, device="cpu", **opts).rank for H in (G, R))
    assert np.allclose(a, b, rtol=1e-9, atol=1e-15)
    uniform = gravel.pagerank(R, device="cpu").rank
    assert verify_pagerank(R, uniform) == [] and verify_pagerank(R, uniform[::-1]) != []


# -- converged by default --------------------------------------------------------------------------
def test_issue_17_default_is_converged_on_kron16():
    """NetworkX's rule (L1 change below n * tol) stopped kron:16 after 3 iterations, 2e-2 (L1)
    from converged; the default stops on the absolute change."""
    G = generate.kronecker(16)
    ref = tight_reference(G)
    r = gravel.pagerank(G, device="cpu")
    assert np.abs(r.rank - ref).sum() < 1e-4 and r.stats["error"] < DEFAULT_TOL
    old = gravel.pagerank(G, stopping="networkx", device="cpu")
    assert np.abs(old.rank - ref).sum() > 1e-2 and old.iterations < r.iterations


def test_default_is_converged_on_weighted_personalized_graph():
    G, _ = open_graph(None)
    G = transform.add_random_weights(G, 1, 255, seed=2)
    p = np.zeros(G.n)
    p[:40] = np.arange(1, 41)
    d = np.ones(G.n)
    # the change shrinks by alpha per iteration at least: about 130 iterations from 1 to 1e-6
    r = gravel.pagerank(G, 0.9, p, 200, dangling=d, device="cpu")
    ref = tight_reference(G, 0.9, p=p, d=d)
    assert np.abs(r.rank - ref).sum() < 1e-4
    unweighted = gravel.pagerank(G, 0.9, p, 200, weight=None, device="cpu")
    assert np.abs(unweighted.rank - tight_reference(G, 0.9, weighted=False, p=p)).sum() < 1e-4


def test_fixed_iterations_and_max_iter_zero():
    G = generate.kronecker(10)
    r = gravel.pagerank(G, max_iter=7, tol=0.0, device="cpu")
    assert r.iterations == 7 and abs(r.rank.sum() - 1) < 1e-9
    with pytest.raises(PowerIterationFailedConvergence, match="did not converge in 2"):
        gravel.pagerank(G, max_iter=2, tol=1e-12, device="cpu")
    start = gravel.pagerank(G, max_iter=0, tol=0, device="cpu")
    assert start.iterations == 0 and start.stats["error"] is None
    assert np.allclose(start.rank, 1 / G.n)
    nstart = {0: 1.0, 5: 3.0}
    start = gravel.pagerank(G, max_iter=0, tol=0, nstart=nstart, device="cpu").rank
    assert start[0] == 0.25 and start[5] == 0.75 and start.sum() == 1
    with pytest.raises(InvalidArgumentError, match="max_iter=0"):
        gravel.pagerank(G, max_iter=0, device="cpu")


def test_empty_graph():
    G = gravel.Graph.from_edges([], [], n=0)
    r = gravel.pagerank(G, personalization={}, device="cpu")
    assert r.rank.size == 0 and r.iterations == 0


# -- bad arguments, refused before any work --------------------------------------------------------
@pytest.mark.parametrize(
    "kw,match",
    [
        ({"alpha": -0.1}, "alpha"),
        ({"alpha": 1.5}, "alpha"),
        ({"alpha": float("nan")}, "alpha"),
        ({"alpha": "0.85"}, "alpha"),
        ({"alpha": True}, "alpha"),
        ({"max_iter": -1}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"max_iter": None}, "max_iter"),
        ({"tol": -1e-6}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"tol": float("inf")}, "tol"),
        ({"weight": 3}, "weight"),
        ({"personalization": [1.0, 2.0]}, "one value per vertex"),
        ({"personalization": np.zeros(9)}, "positive"),
        ({"personalization": {0: -1.0, 1: 2.0}}, "non-negative"),
        ({"nstart": np.full(9, np.nan)}, "finite"),
        ({"dangling": {0: "a"}}, "numbers"),
        ({"nstart": {}}, "positive"),
    ],
)
def test_bad_arguments_are_value_errors(kw, match):
    G = generate.grid(3, 3)
    with pytest.raises(InvalidArgumentError, match=match) as e:
        gravel.pagerank(G, device="cpu", **kw)
    assert isinstance(e.value, ValueError) and isinstance(e.value, gravel.GravelError)


@pytest.mark.parametrize("key", [9, -1, 1.0, True, "0"])
def test_vector_keys_must_be_vertices(key):
    with pytest.raises(gravel.VertexNotFoundError, match="not a vertex"):
        gravel.pagerank(generate.grid(3, 3), personalization={key: 1.0}, device="cpu")


def test_unknown_stopping_rule_and_bad_weights():
    G = generate.grid(3, 3)
    with pytest.raises(gravel.UnknownNameError, match="stopping"):
        gravel.pagerank(G, stopping="relative", device="cpu")
    for w in (-1.0, np.inf, np.nan):
        W = gravel.Graph.from_edges([0, 1], [1, 0], [1.0, w])
        with pytest.raises(gravel.InvalidWeightError, match="arc 1"):
            gravel.pagerank(W, device="cpu")
        assert gravel.pagerank(W, weight=None, device="cpu").iterations > 0


# -- the GPU path: the same semantics, float32 ranks -----------------------------------------------
FIXED = [
    ("kron-weighted", transform.add_random_weights(generate.kronecker(13, 16, seed=3), 1, 255)),
    ("grid", generate.grid(60, 70)),
    ("urand-directed", generate.uniform_random(12, 8, seed=4, directed=True)),
]


def gpu_options(G, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(G.n) * (rng.random(G.n) < 0.1)
    p[0] += 1
    return {"personalization": p, "nstart": rng.random(G.n), "dangling": {0: 1.0, G.n - 1: 2.0}}


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(cases())
def test_gpu_random_graphs_match_the_cpu(case):
    G, weighted, options = case
    # float32 ranks round by some 1e-7 of their sum per sweep: a tol of 1e-7 may never be reached
    kw = {"weight": True if weighted else None, "tol": 1e-6, "max_iter": 1000} | options
    r = gravel.pagerank(G, device="cuda", **kw)
    cpu = gravel.pagerank(G, device="cpu", **kw)
    assert r.rank.dtype == np.float32 and r.device == "cuda"
    assert np.abs(host(r.rank) - cpu.rank).sum() < 1e-5


@pytest.mark.gpu
@pytest.mark.parametrize("name,G", FIXED, ids=[f[0] for f in FIXED])
@pytest.mark.parametrize(
    "direction,blocking", [("pull", None), ("pull", "auto"), ("pull", 97), ("push", None)]
)
@pytest.mark.parametrize("personalized", [False, True])
def test_gpu_sweeps_converge_to_the_reference(name, G, direction, blocking, personalized):
    """Every sweep, weighted (through the L2 where blocked) or not, with and without vectors: the
    default result within 1e-4 (L1) of the float64 reference."""
    opts = gpu_options(G) if personalized else {}
    r = gravel.pagerank(G, direction=direction, blocking=blocking, device="cuda", **opts)
    p, d = opts.get("personalization"), None
    if personalized:
        d = np.zeros(G.n)
        d[[0, G.n - 1]] = [1.0, 2.0]
    ref = tight_reference(G, p=p, d=d)
    assert np.abs(host(r.rank) - ref).sum() < 1e-4 and r.stats["error"] < DEFAULT_TOL
    assert ("weighted" in r.strategy) == G.weighted
    cpu = gravel.pagerank(G, device="cpu", **opts)
    assert abs(cpu.iterations - r.iterations) <= 1  # float32 ranks may cross one iteration apart


@pytest.mark.gpu
@pytest.mark.parametrize(
    "weight,says", [(1e-35, "vertex 0's is 2e-35"), (1e30, "vertex 0's is 2e+30")]
)
def test_gpu_refuses_out_weights_float32_cannot_divide_by(weight, says):
    """1 / W(u) in float32 is infinite below about 1e-38, and rank / W(u) loses its digits
    (subnormal) far above 2**80: the GPU path names the vertex; the CPU's ranks are NetworkX's."""
    G = gravel.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0], [weight, weight, 1.0, 1.0])
    with pytest.raises(gravel.InvalidWeightError, match=re.escape(says)):
        gravel.pagerank(G, device="cuda")
    want = nx.pagerank(G.to_networkx(), weight="weight")
    assert np.allclose(gravel.pagerank(G, device="cpu").rank, [want[v] for v in range(3)])


@pytest.mark.gpu
def test_gpu_arguments_and_rules():
    G = FIXED[0][1]
    if G.weighted:  # a weighted push blocked by destination range: the pull's ranks
        pushed = gravel.pagerank(G, direction="push", blocking=97, device="cuda")
        pulled = gravel.pagerank(G, device="cuda")
        assert "blocked" in pushed.strategy and "weighted" in pushed.strategy
        assert np.abs(host(pushed.rank) - host(pulled.rank)).sum() < 1e-4
    unweighted = gravel.pagerank(G, weight=None, blocking=97, device="cuda")
    assert "staged" in unweighted.strategy  # the tuned path: values staged in shared memory
    start = gravel.pagerank(G, max_iter=0, tol=0, device="cuda")
    assert start.iterations == 0 and np.allclose(host(start.rank), 1 / G.n)
    nx_rule = gravel.pagerank(G, stopping="networkx", device="cuda")
    cpu = gravel.pagerank(G, stopping="networkx", device="cpu")
    assert abs(nx_rule.iterations - cpu.iterations) <= 1 and nx_rule.stats["error"] < G.n * 1e-6
    with pytest.raises(InvalidArgumentError):
        gravel.pagerank(G, max_iter=0, device="cuda")
    R = reorder(G, "degree")
    opts = gpu_options(G, seed=1)
    a = host(gravel.pagerank(R, device="cuda", **opts).rank)
    assert np.abs(a - gravel.pagerank(G, device="cpu", **opts).rank).sum() < 1e-4


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=60, max_m=300, weighted=True), parallel=st.booleans())
def test_out_weights_are_each_vertexs_out_arc_weight_sum(G, parallel):
    src, _ = G.edges()
    want = np.bincount(src, weights=G.weights.astype(np.float64), minlength=G.n)
    kernel = kernels.out_weights if parallel else kernels.kernels(0).out_weights
    got = kernel(G.offsets, G.weights)
    assert got.dtype == np.float64 and np.allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", GPU_GRAPHS)
@pytest.mark.parametrize("direction", ["pull", "push"])
@pytest.mark.parametrize("blocking", [None, 1, 97, 10**9, "auto"])
def test_blocked_and_pushed_pagerank_equal_the_plain_pull(name, direction, blocking):
    """Block widths of one vertex, of a width that splits hubs, wider than the graph, and the
    card's."""
    G = gpu_graph(name)
    plain = gravel.pagerank(G, max_iter=30, tol=0.0, blocking=None, device="cuda").rank.get()
    r = gravel.pagerank(
        G, max_iter=30, tol=0.0, direction=direction, blocking=blocking, device="cuda"
    ).rank.get()
    assert np.allclose(r, plain, rtol=1e-5, atol=1e-9)
    ref = gravel.pagerank(G, max_iter=30, tol=0.0, device="cpu").rank
    assert np.abs(r - ref).sum() < 1e-4


@pytest.mark.gpu
@pytest.mark.parametrize("name", GPU_GRAPHS)
@pytest.mark.parametrize(
    "direction,blocking", [("pull", None), ("pull", "auto"), ("pull", 97), ("push", None)]
)
def test_pagerank_returns_the_iteration_that_converged(name, direction, blocking):
    """The GPU reads each iteration's L1 change while the next runs: the ranks it returns are those
    of the iteration that converged (a fixed run of as many iterations gives them, up to the order
    of the atomics that blocked and pushed sweeps add in; the iterations around it differ by some
    1e-3), whose change is below n * tol, and one iteration fewer does not converge."""
    from gravel.algorithms.pagerank import PowerIterationFailedConvergence

    G = gpu_graph(name)
    opts = {"direction": direction, "blocking": blocking, "device": "cuda"}
    r = gravel.pagerank(G, tol=1e-6, **opts)
    assert 1 < r.iterations < 100 and r.stats["error"] < G.n * 1e-6
    fixed = gravel.pagerank(G, max_iter=r.iterations, tol=0.0, **opts)
    assert fixed.iterations == r.iterations and np.allclose(
        fixed.rank.get(), r.rank.get(), rtol=1e-5, atol=0
    )
    # a push, or a blocked pull, adds a vertex's terms atomically in any order: its last change,
    # some 1e-6 in L1 at the default tol, varies by a few percent from run to run
    noise = 1e-3 if r.strategy.startswith("pull, unblocked") else 5e-2
    assert fixed.stats["error"] == pytest.approx(r.stats["error"], rel=noise)
    with pytest.raises(PowerIterationFailedConvergence):
        gravel.pagerank(G, max_iter=r.iterations - 1, tol=1e-6, **opts)
    cpu = gravel.pagerank(G, tol=1e-6, device="cpu")
    assert (
        abs(cpu.iterations - r.iterations) <= 1
    )  # float32 ranks may cross the line one iteration apart
