"""The backend's centrality and link-analysis functions against NetworkX's own: hypothesis graphs
(directed, undirected, weighted, self loops, isolated nodes, string labels), their exceptions and
the calls gravel declines."""

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gravel.nx.interface import BackendInterface

from .helpers import nx_graphs, same


def outcome(f, G, **kwargs):
    """f's result, or the type of what it raised (NetworkX's exceptions, ZeroDivisionError)."""
    try:
        return f(G, **kwargs)
    except (nx.NetworkXException, ZeroDivisionError, KeyError) as exc:
        return type(exc)


def ordered_same(theirs, ours):
    """Equal, and dicts keyed in the same order."""
    if isinstance(theirs, dict):
        assert list(theirs) == list(ours)
    assert same(theirs, ours)


def check(f, G, **kwargs):
    ordered_same(outcome(f, G, **kwargs), outcome(f, G, backend="gravel", **kwargs))


SETTINGS = settings(max_examples=30, deadline=None)


@SETTINGS
@given(nx_graphs())
def test_degree_centralities(G):
    check(nx.degree_centrality, G)
    check(nx.in_degree_centrality, G)
    check(nx.out_degree_centrality, G)


@SETTINGS
@given(nx_graphs(), st.data())
def test_pagerank_options(G, data):
    """The default call and NetworkX's options: weights or none, a personalization and a
    dangling distribution over some nodes (NetworkX fills the rest with zeros), an uneven start
    over every node (gravel declines a partial one)."""
    nodes = list(G)

    def some(chosen=None):
        chosen = chosen or data.draw(st.lists(st.sampled_from(nodes), min_size=1, unique=True))
        return {v: data.draw(st.integers(1, 5)) for v in chosen}

    kwargs = {
        "alpha": data.draw(st.sampled_from([0.85, 0.5])),
        "weight": data.draw(st.sampled_from(["weight", None])),
        "personalization": data.draw(st.sampled_from([None, "some"])),
        "dangling": data.draw(st.sampled_from([None, "some"])),
        "nstart": data.draw(st.sampled_from([None, "every"])),
    }
    kwargs = {
        k: some() if v == "some" else some(nodes) if v == "every" else v for k, v in kwargs.items()
    }
    check(nx.pagerank, G, **kwargs)


@SETTINGS
@given(nx_graphs())
def test_pagerank_starts_from_nstart(G):
    """Started at its answer, PageRank converges in one iteration where the uniform start does
    not: a start that gravel ignored would raise."""
    assume(outcome(nx.pagerank, G, max_iter=1) is nx.PowerIterationFailedConvergence)
    check(nx.pagerank, G, max_iter=1, nstart=nx.pagerank(G, tol=1e-10, max_iter=10_000))


@SETTINGS
@given(nx_graphs(), st.booleans(), st.booleans())
def test_exact_betweenness(G, normalized, endpoints):
    check(nx.betweenness_centrality, G, normalized=normalized, endpoints=endpoints)


@SETTINGS
@given(nx_graphs(), st.booleans(), st.booleans())
def test_closeness(G, weighted, wf_improved):
    distance = "weight" if weighted else None
    check(nx.closeness_centrality, G, distance=distance, wf_improved=wf_improved)
    u = list(G)[len(G) // 2]
    check(nx.closeness_centrality, G, u=u, distance=distance, wf_improved=wf_improved)


@SETTINGS
@given(nx_graphs(), st.booleans(), st.booleans())
def test_eigenvector(G, weighted, with_start):
    nstart = {v: 1 + i % 3 for i, v in enumerate(reversed(list(G)))} if with_start else None
    weight = "weight" if weighted else None
    check(nx.eigenvector_centrality, G, max_iter=300, weight=weight, nstart=nstart)


@SETTINGS
@given(nx_graphs(), st.booleans(), st.booleans(), st.booleans())
def test_katz(G, weighted, normalized, with_start):
    nodes = list(G)
    beta = {v: 1 + i % 2 for i, v in enumerate(nodes)} if with_start else 1.0
    nstart = {v: 0.5 for v in reversed(nodes)} if with_start else None
    kw = {"alpha": 0.02, "beta": beta, "nstart": nstart, "normalized": normalized}
    check(nx.katz_centrality, G, weight="weight" if weighted else None, **kw)


def separated_leading_singular_value(G):
    """Whether A's largest singular value is 5 % above the next: else its vectors are not unique
    (NetworkX's among them), or gravel's power iteration may need more iterations than ARPACK
    (the documented difference)."""
    s = np.append(np.linalg.svd(nx.to_numpy_array(G), compute_uv=False), 0.0)
    return s[0] > 0 and s[1] < 0.95 * s[0]


@SETTINGS
@given(nx_graphs(), st.booleans())
def test_hits(G, normalized):
    assume(len(G) > 1 and G.number_of_edges() and separated_leading_singular_value(G))
    try:
        theirs = nx.hits(G, normalized=normalized)
    except nx.PowerIterationFailedConvergence:
        return  # ARPACK's restarts and gravel's iterations need not give up alike
    ours = nx.hits(G, normalized=normalized, backend="gravel")
    for t, o in zip(theirs, ours):
        assert list(t) == list(o)
        sign = np.sign(sum(t.values())) or 1.0  # ARPACK's vectors come with either sign
        assert all(sign * t[v] == pytest.approx(o[v], rel=1e-4, abs=1e-6) for v in t)


@SETTINGS
@given(nx_graphs(), st.booleans(), st.integers(0, 4))
def test_edge_betweenness(G, normalized, k):
    check(nx.edge_betweenness_centrality, G, normalized=normalized)
    k = min(k, len(G))
    check(nx.edge_betweenness_centrality, G, k=k, normalized=normalized, seed=7)


@SETTINGS
@given(nx_graphs(), st.integers(0, 30))
def test_bipartite_betweenness(G, top):
    nodes = list(G)[: min(top, len(G))]
    check(nx.bipartite.betweenness_centrality, G, nodes=nodes)


@pytest.mark.parametrize("directed", [False, True])
def test_edge_betweenness_keys_follow_networkx_s_edges(directed):
    """Keys in the order of NetworkX's edges (its adjacency's, unsorted), string labels too."""
    G = nx.gnm_random_graph(40, 90, seed=4, directed=directed)
    edges = list(G.edges())
    random.Random(2).shuffle(edges)
    H = nx.relabel_nodes(G.__class__(edges), {v: f"n{v}" for v in G})
    ours = nx.edge_betweenness_centrality(H, backend="gravel")
    assert list(ours) == list(H.edges())
    assert ours == pytest.approx(nx.edge_betweenness_centrality(H))


def test_edge_betweenness_of_a_graph_whose_networkx_graph_changed():
    from gravel.nx.convert import from_networkx

    G = nx.path_graph(5)
    converted = from_networkx(G)
    G.add_edge(0, 4)  # the conversion still holds the path: its keys come in node order
    got = nx.edge_betweenness_centrality(converted)
    assert list(got) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert got == pytest.approx(nx.edge_betweenness_centrality(nx.path_graph(5)))


def test_hits_of_networkx_s_example():
    G = nx.DiGraph([(1, 3), (1, 5), (2, 1), (3, 5), (5, 4), (5, 3), (6, 5)])
    for theirs, ours in zip(nx.hits(G), nx.hits(G, backend="gravel")):
        assert all(theirs[v] == pytest.approx(ours[v], abs=1e-7) for v in G)


P3, P50, K9 = nx.path_graph(3), nx.path_graph(50), nx.complete_graph(9)


@pytest.mark.parametrize(
    "f,args,kwargs,error",
    [
        (nx.eigenvector_centrality, (nx.Graph(),), {}, nx.NetworkXPointlessConcept),
        (nx.eigenvector_centrality, (P3,), {"nstart": dict.fromkeys(P3, 0)}, nx.NetworkXError),
        (nx.eigenvector_centrality, (P50,), {"max_iter": 1}, nx.PowerIterationFailedConvergence),
        (nx.eigenvector_centrality, (P3,), {"max_iter": 0}, nx.PowerIterationFailedConvergence),
        (nx.eigenvector_centrality, (P3,), {"tol": 0}, nx.PowerIterationFailedConvergence),
        (nx.katz_centrality, (P3,), {"beta": {0: 1}}, nx.NetworkXError),
        (
            nx.katz_centrality,
            (nx.complete_graph(9),),
            {"alpha": 0.5},
            nx.PowerIterationFailedConvergence,
        ),
        (nx.katz_centrality, (P3,), {"max_iter": 0}, nx.PowerIterationFailedConvergence),
        (nx.closeness_centrality, (P3,), {"u": 7}, nx.NodeNotFound),
        (nx.hits, (P50,), {"max_iter": 1}, nx.PowerIterationFailedConvergence),
        (nx.hits, (P3,), {"max_iter": 0}, nx.PowerIterationFailedConvergence),
        (nx.hits, (nx.Graph([(0, 0)]),), {}, ValueError),
        (nx.edge_betweenness_centrality, (P3,), {"k": 4, "seed": 1}, ValueError),
        (nx.edge_betweenness_centrality, (P3,), {"k": 0}, ZeroDivisionError),
        (nx.bipartite.betweenness_centrality, (P3, [0, 1, 2]), {}, ZeroDivisionError),
        (nx.bipartite.betweenness_centrality, (P3, [0, 9]), {}, KeyError),
    ],
)
def test_networkx_exceptions(f, args, kwargs, error):
    with pytest.raises(error):
        f(*args, **kwargs)  # NetworkX's own, to be sure the case is one
    with pytest.raises(error):
        f(*args, backend="gravel", **kwargs)


def test_hits_of_an_empty_graph():
    assert nx.hits(nx.DiGraph(), backend="gravel") == ({}, {})
    with pytest.raises(NotImplementedError) as info:
        nx.hits(nx.empty_graph(3), backend="gravel")
    assert "without edges" in why(info)


def why(info):
    """gravel's own message under NetworkX's NotImplementedError."""
    return str(info.value.__cause__ or info.value)


def test_weights_float32_cannot_hold_go_back_to_networkx():
    G = nx.Graph([(0, 1, {"weight": 0.1}), (1, 2, {"weight": 1.0})])
    for call in (
        lambda: nx.closeness_centrality(G, distance="weight", backend="gravel"),
        lambda: nx.eigenvector_centrality(G, weight="weight", backend="gravel"),
        lambda: nx.katz_centrality(G, weight="weight", backend="gravel"),
        lambda: nx.hits(G, backend="gravel"),
    ):
        with pytest.raises(NotImplementedError) as info:
            call()
        assert "float32" in why(info)
    H = nx.Graph([(0, 1, {"weight": -1.0}), (1, 2, {"weight": 1.0})])
    with pytest.raises(NotImplementedError) as info:
        nx.closeness_centrality(H, distance="weight", backend="gravel")
    assert "negative" in why(info)


@pytest.mark.parametrize(
    "weight,expect", [(3.0, "cuda"), (2.5, "cpu"), (float(2**24), "cpu"), (None, "cuda")]
)
def test_weighted_closeness_takes_the_gpu_only_where_float32_sums_are_exact(
    monkeypatch, weight, expect
):
    """With `distance`, closeness runs an SSSP per vertex: on the GPU only where its float32 path
    sums are exact (whole weights, paths below 2**24), as the Dijkstra lengths; else the CPU."""
    from gravel.nx.algorithms.centrality import closeness
    from gravel.nx.algorithms.shortest_paths import trees

    asked = []

    def fake(graph, sources, *, weight, wf_improved, device):
        asked.append(device)
        return type("R", (), {"closeness": np.zeros(graph.n)})

    monkeypatch.setattr(trees, "choose_device", lambda *a: "cuda")  # as if a GPU were usable
    monkeypatch.setattr(closeness, "device", lambda graph: "cuda")
    monkeypatch.setattr(closeness, "gravel_closeness", fake)
    G = nx.path_graph(4)
    if weight is not None:
        nx.set_edge_attributes(G, weight, "weight")
    nx.closeness_centrality(G, distance="weight" if weight else None, backend="gravel")
    assert asked == [expect]


@pytest.mark.parametrize(
    "name,kwargs,reason",
    [
        ("hits", {"tol": 0}, "tol=0"),
        ("hits", {"nstart": {0: 1}}, "nstart"),
        ("eigenvector_centrality", {"nstart": {0: -1, 1: 1, 2: 1}}, "nstart"),
        ("eigenvector_centrality", {"weight": lambda u, v, d: 1}, "weight functions"),
        ("katz_centrality", {"alpha": float("nan")}, "alpha"),
        ("katz_centrality", {"nstart": {0: 1}}, "nstart"),
        ("closeness_centrality", {"distance": lambda u, v, d: 1}, "distance functions"),
        ("edge_betweenness_centrality", {"weight": "weight"}, "weighted"),
    ],
)
def test_can_run_gives_the_reason(name, kwargs, reason):
    said = BackendInterface.can_run(name, (nx.path_graph(3),), kwargs)
    assert isinstance(said, str) and reason in said
