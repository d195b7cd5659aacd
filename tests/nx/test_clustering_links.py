"""The backend's link prediction, square clustering, reciprocity, weak components and k-truss
against NetworkX's own results: values, order, types and exceptions."""

import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx.algorithms import link_prediction
from gravel.nx.interface import BackendInterface

from .helpers import nx_graphs

PREDICTORS = [
    "jaccard_coefficient",
    "adamic_adar_index",
    "resource_allocation_index",
    "preferential_attachment",
    "common_neighbor_centrality",
]


def close(a, b):
    """Equal, floats to rounding (sums run in another order), and of the same type."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(close, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(close(a[k], b[k]) for k in a)
    if isinstance(a, nx.Graph):
        same_nodes = list(a.nodes(data=True)) == list(b.nodes(data=True))
        return type(a) is type(b) and same_nodes and set(a.edges) == set(b.edges)
    return type(a) is type(b) and a == b


def outcome(name, G, *args, **kwargs):
    """What a call gives: its value (generators listed), or the exception's type and what it
    yielded before raising (a generator raises part way)."""
    got = []
    try:
        out = getattr(nx, name)(G, *args, **kwargs)
        if not hasattr(out, "__next__"):
            return out
        for item in out:
            got.append(item)
        return got
    except (nx.NetworkXException, ZeroDivisionError, KeyError, AttributeError) as exc:
        return type(exc), got


def check(name, G, *args, **kwargs):
    ours = outcome(name, G, *args, backend="gravel", **kwargs)
    theirs = outcome(name, G, *args, **kwargs)
    assert close(ours, theirs), (ours, theirs)


def ebunches(G):
    """Pairs of G's nodes, repeats and (u, u) included."""
    nodes = list(G)
    index = st.integers(0, len(nodes) - 1)
    return st.lists(st.tuples(index, index), max_size=12).map(
        lambda pairs: [(nodes[i], nodes[j]) for i, j in pairs]
    )


# -- link prediction -------------------------------------------------------------------------
@pytest.mark.parametrize("name", PREDICTORS)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_predictors_match_networkx(name, data):
    G = data.draw(nx_graphs(directed=False, max_n=14))
    check(name, G)  # every non-edge, in nx.non_edges' order
    check(name, G, data.draw(ebunches(G)))


@pytest.mark.parametrize("alpha", [0, 0.3, 1])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_common_neighbor_centrality_alpha(alpha, data):
    G = data.draw(nx_graphs(directed=False, max_n=14))
    check("common_neighbor_centrality", G, alpha=alpha)
    pairs = [p for p in data.draw(ebunches(G)) if p[0] != p[1]]
    check("common_neighbor_centrality", G, pairs, alpha=alpha)


@pytest.mark.parametrize("name", PREDICTORS)
def test_batches_keep_the_order(name, monkeypatch):
    G = nx.gnm_random_graph(30, 90, seed=4)
    G.add_edges_from([(3, 3), (7, 7)])
    monkeypatch.setattr(link_prediction, "BATCH", 7)
    check(name, G)
    check(name, G, [(0, 1), (5, 3), (3, 3), (2, 9), (7, 7)] * 3)


@pytest.mark.parametrize("name", PREDICTORS)
def test_a_missing_node_raises_before_yielding(name):
    G = nx.path_graph(4)
    with pytest.raises(nx.NodeNotFound, match="Node 9 not in G"):
        getattr(nx, name)(G, [(0, 1), (0, 9)], backend="gravel")


@pytest.mark.parametrize("name", PREDICTORS)
@pytest.mark.parametrize("graph", [nx.DiGraph([(0, 1)]), nx.MultiGraph([(0, 1)])])
def test_directed_and_multigraphs_raise(name, graph):
    with pytest.raises(nx.NetworkXNotImplemented):
        getattr(nx, name)(graph, backend="gravel")


@pytest.mark.parametrize("name", PREDICTORS)
def test_an_ebunch_iterator_is_consumed_by_the_check(name):
    G = nx.path_graph(4)
    check(name, G, iter([(0, 2), (1, 3)]))
    check(name, G, ((u, v) for u, v in [(0, 2), (1, 3)]))


def test_self_pairs_raise_where_networkx_does():
    G = nx.star_graph(3)  # a leaf's only neighbour has degree 3; the hub's neighbours degree 1
    check("adamic_adar_index", G, [(1, 2), (0, 0), (1, 3)])
    check("common_neighbor_centrality", G, [(1, 2), (1, 1), (2, 3)])
    check("jaccard_coefficient", G, [(0, 0), (1, 1)])


def test_predictors_on_a_larger_graph():
    G = nx.relabel_nodes(nx.gnm_random_graph(200, 1500, seed=7), lambda v: f"n{v}")
    G.add_edges_from([("n3", "n3"), ("n8", "n8")])
    for name in PREDICTORS[:-1]:
        check(name, G)
    check("common_neighbor_centrality", G, list(nx.non_edges(G))[:3000], alpha=0.5)


# -- clustering, reciprocity, components, truss ----------------------------------------------
@settings(max_examples=40, deadline=None)
@given(G=nx_graphs(max_n=16), data=st.data())
def test_square_clustering(G, data):
    check("square_clustering", G)
    some = [v for v, keep in zip(G, data.draw(st.lists(st.booleans(), min_size=len(G)))) if keep]
    check("square_clustering", G, some + ["not a node"])
    check("square_clustering", G, next(iter(G)))


@pytest.mark.parametrize("nodes", [99, [[1]], [0, 99], 0])
@pytest.mark.parametrize(
    "name", ["square_clustering", "clustering", "average_clustering", "triangles", "reciprocity"]
)
def test_nbunch_as_networkx_reads_it(name, nodes):
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0)]) if name == "reciprocity" else nx.complete_graph(3)
    check(name, G, nodes)


def test_square_clustering_on_larger_graphs():
    for G in (
        nx.gnm_random_graph(300, 2000, seed=2),
        nx.gnm_random_graph(200, 1200, seed=3, directed=True),
    ):
        check("square_clustering", G)


@settings(max_examples=40, deadline=None)
@given(G=nx_graphs(max_n=16), data=st.data())
def test_directed_and_weighted_clustering(G, data):
    weight = data.draw(st.sampled_from([None, "weight"]))
    nodes = data.draw(st.sampled_from([None, next(iter(G)), list(G)[::2]]))
    check("clustering", G, nodes, weight=weight)
    check("average_clustering", G, weight=weight, count_zeros=data.draw(st.booleans()))


def test_clustering_of_weights_float32_cannot_hold_runs_on_networkx():
    for w in (-1.0, 0.1):
        G = nx.Graph([(0, 1, {"weight": 2.0}), (1, 2, {"weight": w}), (0, 2, {"weight": 1.0})])
        with pytest.raises(NotImplementedError):
            nx.clustering(G, weight="weight", backend="gravel")


@settings(max_examples=40, deadline=None)
@given(G=nx_graphs(max_n=16))
def test_reciprocity(G):
    check("overall_reciprocity", G)
    check("reciprocity", G)
    if G.is_directed():
        check("reciprocity", G, list(G)[::2])
        check("reciprocity", G, next(iter(G)))  # an isolated node raises


def test_reciprocity_errors():
    with pytest.raises(nx.NetworkXError, match="empty graphs"):
        nx.overall_reciprocity(nx.DiGraph(), backend="gravel")
    G = nx.DiGraph([(0, 1)])
    G.add_node(2)
    with pytest.raises(nx.NetworkXError, match="isolated nodes"):
        nx.reciprocity(G, 2, backend="gravel")
    said = BackendInterface.can_run("reciprocity", (nx.path_graph(3),), {"nodes": [0]})
    assert isinstance(said, str) and "directed" in said


@settings(max_examples=40, deadline=None)
@given(G=nx_graphs(directed=True, max_n=16))
def test_weak_components(G):
    check("is_weakly_connected", G)
    check("number_weakly_connected_components", G)


@pytest.mark.parametrize("name", ["is_weakly_connected", "number_weakly_connected_components"])
def test_weak_components_errors(name):
    check(name, nx.path_graph(3))  # undirected: NetworkXNotImplemented
    check(name, nx.DiGraph())


@settings(max_examples=40, deadline=None)
@given(G=nx_graphs(directed=False, max_n=16), k=st.integers(-1, 6))
def test_k_truss(G, k):
    for *_, d in G.edges(data=True):
        d.clear()  # NetworkX keeps every attribute: gravel converts graphs without edge data
    G.graph["name"] = "g"
    nx.set_node_attributes(G, "x", "tag")
    check("k_truss", G, k)  # self loops raise
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    check("k_truss", G, k)


def test_k_truss_errors():
    check("k_truss", nx.DiGraph([(0, 1)]), 3)
    check("k_truss", nx.MultiGraph([(0, 1)]), 3)
    check("k_truss", nx.Graph([(0, 0), (0, 1)]), 3)


def test_k_truss_of_a_larger_graph():
    G = nx.gnm_random_graph(300, 3000, seed=5)
    for k in range(2, 8):
        check("k_truss", G, k)


# -- the GPU path ----------------------------------------------------------------------------
@pytest.fixture
def on_gpu():
    nx.config.backends.gravel.device = "cuda"
    yield
    nx.config.backends.gravel.device = "auto"


@pytest.mark.gpu
@pytest.mark.parametrize(
    "name,args",
    [
        *[(name, ()) for name in PREDICTORS],
        ("common_neighbor_centrality", ([(0, 5), (1, 9)],)),
        ("square_clustering", ()),
        ("k_truss", (4,)),
    ],
)
def test_gpu_matches_networkx(name, args, on_gpu):
    G = nx.gnm_random_graph(120, 900, seed=6)
    check(name, G, *args)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_gpu_clustering_matches_networkx(directed, on_gpu):
    G = nx.gnm_random_graph(120, 900, seed=8, directed=directed)
    for u, v, d in G.edges(data=True):
        d["weight"] = (u * v) % 7 + 1
    check("clustering", G, weight="weight")
    check("clustering", G)
    check("square_clustering", G)


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [False, True])
def test_gpu_clustering_of_graphs_without_arcs(directed, on_gpu):
    kind = nx.DiGraph if directed else nx.Graph
    loops = kind([(0, 0, {"weight": 2.0}), (1, 1, {"weight": 3.0})])
    for G in (kind(), nx.empty_graph(4, create_using=kind), loops):
        for weight in (None, "weight"):
            check("clustering", G, weight=weight)
            check("average_clustering", G, weight=weight)  # the empty graph's raises
