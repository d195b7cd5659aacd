"""gravel as a NetworkX backend: ``nx.f(G, backend="gravel")`` equals NetworkX's own result.

NetworkX's own suite, run through the backend, is described in docs/networkx.md."""

import inspect
import subprocess
import sys
from pathlib import PurePosixPath

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx._algorithm import ALGORITHMS, GPU_MIN_ARCS
from gravel.nx._info import FUNCTIONS
from gravel.nx.interface import SMALL_GRAPH_EDGES, XFAIL, BackendInterface


@pytest.fixture(autouse=True)
def _quiet_cache():
    # NetworkX warns each time it reuses a cached conversion; the reuse is what we test
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore.discard("cache")


@st.composite
def nx_graphs(draw, directed=None, max_n=25):
    """Random NetworkX graphs, int or string labels; edges inserted in node order so that
    NetworkX's neighbour order is gravel's (the documented difference of the BFS functions)."""
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans()) if directed is None else directed
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    weights = draw(st.lists(st.integers(1, 9), min_size=len(pairs), max_size=len(pairs)))
    label = (lambda i: f"v{i:02d}") if draw(st.booleans()) else (lambda i: i)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(label(i) for i in range(n))
    edges = sorted(
        ((u, v) if directed else (min(u, v), max(u, v)), w) for (u, v), w in zip(pairs, weights)
    )
    G.add_edges_from((label(u), label(v), {"weight": w}) for (u, v), w in edges)
    return G


def first(G):
    return next(iter(G))


# name -> (graph kinds it takes, keyword arguments given the graph)
CASES = {
    "bfs_edges": ("both", lambda G: {"source": first(G)}),
    "bfs_tree": ("both", lambda G: {"source": first(G), "depth_limit": 2}),
    "bfs_layers": ("both", lambda G: {"sources": first(G)}),
    "descendants_at_distance": ("both", lambda G: {"source": first(G), "distance": 2}),
    "single_source_shortest_path_length": ("both", lambda G: {"source": first(G), "cutoff": 3}),
    "single_source_dijkstra_path_length": ("both", lambda G: {"source": first(G)}),
    "shortest_path_length": ("both", lambda G: {"source": first(G), "weight": "weight"}),
    "pagerank": ("both", lambda G: {"personalization": {first(G): 1}}),
    "connected_components": ("undirected", lambda G: {}),
    "number_connected_components": ("undirected", lambda G: {}),
    "is_connected": ("undirected", lambda G: {}),
    "node_connected_component": ("undirected", lambda G: {"n": first(G)}),
    "weakly_connected_components": ("directed", lambda G: {}),
    "strongly_connected_components": ("directed", lambda G: {}),
    "number_strongly_connected_components": ("directed", lambda G: {}),
    "is_strongly_connected": ("directed", lambda G: {}),
    "betweenness_centrality": ("both", lambda G: {"k": min(3, len(G)), "seed": 5}),
    "triangles": ("undirected", lambda G: {}),
    "transitivity": ("undirected", lambda G: {}),
    "average_clustering": ("undirected", lambda G: {}),
    "clustering": ("undirected", lambda G: {}),
    "core_number": ("both", lambda G: {}),
    "k_core": ("both", lambda G: {}),
    "label_propagation_communities": ("undirected", lambda G: {}),
    "greedy_color": ("undirected", lambda G: {}),
    "louvain_communities": ("undirected", lambda G: {"seed": 3}),
    "degree_centrality": ("both", lambda G: {}),
    "in_degree_centrality": ("directed", lambda G: {}),
    "out_degree_centrality": ("directed", lambda G: {}),
    "closeness_centrality": ("both", lambda G: {"distance": "weight"}),
    "eigenvector_centrality": ("both", lambda G: {"max_iter": 300}),
    "katz_centrality": ("both", lambda G: {"alpha": 0.05}),
    "hits": ("both", lambda G: {"max_iter": 0}),  # ARPACK's vectors: tests/nx/test_centrality.py
    "edge_betweenness_centrality": ("both", lambda G: {"k": min(3, len(G)), "seed": 5}),
    "bipartite_betweenness_centrality": ("undirected", lambda G: {"nodes": list(G)[::2]}),
    "square_clustering": ("both", lambda G: {}),
    "jaccard_coefficient": ("undirected", lambda G: {}),
    "adamic_adar_index": ("undirected", lambda G: {}),
    "resource_allocation_index": ("undirected", lambda G: {}),
    "preferential_attachment": ("undirected", lambda G: {}),
    "common_neighbor_centrality": ("undirected", lambda G: {}),
    "is_weakly_connected": ("directed", lambda G: {}),
    "number_weakly_connected_components": ("directed", lambda G: {}),
    "k_truss": ("undirected", lambda G: {"k": 3}),
    "reciprocity": ("directed", lambda G: {"nodes": list(G)[:3]}),
    "overall_reciprocity": ("both", lambda G: {}),
}


# generators whose order NetworkX and gravel choose differently (_info.FUNCTIONS says how)
UNORDERED = {"strongly_connected_components"}
# partitions that depend on the visit order: compared as valid partitions (and by modularity in
# test_louvain_modularity_is_networkx_s)
PARTITIONS = {"louvain_communities"}


def same(a, b):
    if isinstance(a, nx.Graph):
        return set(a.nodes) == set(b.nodes) and set(a.edges) == set(b.edges)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == pytest.approx(b, rel=1e-6, abs=1e-9, nan_ok=True)
    return a == b


DICT_VALUES = type({}.values())


def nx_function(name):
    """NetworkX's function `name` (the community functions live in ``nx.community``)."""
    if name.startswith("bipartite_"):
        return getattr(nx.bipartite, name.removeprefix("bipartite_"))
    return getattr(nx, name) if hasattr(nx, name) else getattr(nx.community, name)


def called(name, G, **kwargs):
    """The function's result, generators as lists; an exception's type where NetworkX raises."""
    try:
        out = nx_function(name)(G, **kwargs)
        return list(out) if inspect.isgenerator(out) or isinstance(out, DICT_VALUES) else out
    except (nx.NetworkXException, ZeroDivisionError) as exc:
        return type(exc)


def test_every_function_is_registered_with_networkx_signature():
    assert set(FUNCTIONS) == set(ALGORITHMS) >= set(CASES)  # others: their own test files
    for name, func in ALGORITHMS.items():
        theirs = list(inspect.signature(nx_function(name)).parameters.values())
        assert list(func.signature.parameters.values()) == theirs[:-2], name  # less backend=


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_matches_networkx(name, data):
    kinds, kwargs = CASES[name]
    G = data.draw(nx_graphs(directed={"both": None, "directed": True, "undirected": False}[kinds]))
    args = kwargs(G)
    if name in ("core_number", "k_core", "k_truss"):
        G.remove_edges_from(list(nx.selfloop_edges(G)))
    if name in (
        "k_core",
        "k_truss",
    ):  # it keeps every edge attribute: gravel takes graphs without any
        for *_, d in G.edges(data=True):
            d.clear()
    ours, theirs = called(name, G, backend="gravel", **args), called(name, G, **args)
    if name in UNORDERED:
        ours, theirs = sorted(map(sorted, ours)), sorted(map(sorted, theirs))
    if name in PARTITIONS:
        assert isinstance(ours, list) and nx.community.is_partition(G, ours)
        position = {v: i for i, v in enumerate(G)}
        firsts = [min(position[v] for v in c) for c in ours]
        assert firsts == sorted(firsts)  # by first node
        return
    assert same(theirs, ours)


@pytest.mark.parametrize("endpoints", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("k", [None, 1, 4])
@pytest.mark.parametrize("directed", [False, True])
def test_betweenness_options(directed, k, normalized, endpoints):
    G = nx.gnp_random_graph(30, 0.1, seed=3, directed=directed)
    kw = dict(k=k, normalized=normalized, endpoints=endpoints, seed=11)
    assert same(
        nx.betweenness_centrality(G, **kw), nx.betweenness_centrality(G, backend="gravel", **kw)
    )


def test_string_labels_map_back():
    G = nx.Graph([("b", "a"), ("a", "c"), ("c", "b"), ("c", ("t", 1))])
    G.add_node(frozenset({1}))
    assert nx.triangles(G, backend="gravel") == {
        "b": 1,
        "a": 1,
        "c": 1,
        ("t", 1): 0,
        frozenset({1}): 0,
    }
    assert nx.core_number(G, backend="gravel") == nx.core_number(G)
    assert list(nx.connected_components(G, backend="gravel")) == list(nx.connected_components(G))
    assert nx.pagerank(G, backend="gravel") == pytest.approx(nx.pagerank(G))


def test_conversion_is_cached(monkeypatch):
    calls = []
    convert = BackendInterface.convert_from_nx

    def counting(*args, **kwargs):
        calls.append(1)
        return convert(*args, **kwargs)

    monkeypatch.setattr(BackendInterface, "convert_from_nx", staticmethod(counting))
    G = nx.path_graph(6)
    nx.pagerank(G, backend="gravel")
    nx.pagerank(G, backend="gravel", alpha=0.9)
    assert len(calls) == 1
    assert G.__networkx_cache__["backends"]["gravel"]
    G.add_edge(0, 5)  # a mutation clears the cache: the next call converts again
    assert nx.pagerank(G, backend="gravel") == pytest.approx(nx.pagerank(G))
    assert len(calls) == 2


@pytest.mark.parametrize(
    "name,graph,kwargs,reason",
    [
        ("pagerank", nx.MultiGraph([(0, 1)]), {}, "multigraphs"),
        ("betweenness_centrality", nx.path_graph(3), {"weight": "weight"}, "weighted"),
        ("bfs_edges", nx.path_graph(3), {"source": 0, "sort_neighbors": sorted}, "sort_neighbors"),
        ("generic_bfs_edges", nx.path_graph(3), {"source": 0, "neighbors": len}, "neighbors"),
        ("transitivity", nx.DiGraph([(0, 1), (1, 2), (2, 0)]), {}, "directed"),
        ("shortest_path_length", nx.path_graph(3), {"source": 0, "weight": len}, "weight func"),
        ("pagerank", nx.path_graph(3), {"tol": 0}, "tol=0"),
        ("core_number", nx.algorithms.approximation.kcomponents._AntiGraph(), {}, "adjacency"),
        ("louvain_communities", nx.DiGraph([(0, 1)]), {}, "directed"),
        ("louvain_communities", nx.path_graph(3), {"max_level": 1.5}, "max_level"),
        ("louvain_communities", nx.path_graph(3), {"resolution": -1}, "resolution"),
        ("louvain_communities", nx.path_graph(3), {"threshold": float("nan")}, "threshold"),
        ("louvain_communities", nx.path_graph(3), {"seed": "abc"}, "seed"),
        ("label_propagation_communities", nx.DiGraph([(0, 1)]), {}, "directed"),
        ("greedy_color", nx.DiGraph([(0, 1)]), {}, "directed"),
        ("greedy_color", nx.path_graph(3), {"strategy": "smallest_last"}, "largest_first"),
        (
            "greedy_color",
            nx.path_graph(3),
            {"strategy": nx.coloring.strategy_largest_first},
            "largest_first",
        ),
        ("greedy_color", nx.path_graph(3), {"interchange": True}, "interchange"),
    ],
)
def test_can_run_gives_the_reason(name, graph, kwargs, reason):
    said = BackendInterface.can_run(name, (graph,), kwargs)
    assert isinstance(said, str) and reason in said


def test_small_graphs_stay_on_networkx():
    said = BackendInterface.should_run("pagerank", (nx.path_graph(5),), {})
    assert isinstance(said, str) and "too small" in said
    big = nx.gnm_random_graph(2000, SMALL_GRAPH_EDGES, seed=1)
    assert BackendInterface.should_run("pagerank", (big,), {}) is True


def test_the_edge_count_dispatch_reads_follows_the_graph():
    G = nx.gnm_random_graph(2000, SMALL_GRAPH_EDGES - 1, seed=1)
    assert isinstance(BackendInterface.should_run("pagerank", (G,), {}), str)
    G.add_edge(*next(nx.non_edges(G)))  # NetworkX empties G's cache, the count with it
    assert BackendInterface.should_run("pagerank", (G,), {}) is True
    G.remove_edge(*next(iter(G.edges)))
    assert isinstance(BackendInterface.should_run("pagerank", (G,), {}), str)


def test_node_local_calls_stay_on_networkx_under_auto_dispatch(caplog):
    G = nx.gnm_random_graph(2000, SMALL_GRAPH_EDGES, seed=1)
    G.add_node("alone")
    with nx.config(backend_priority=["gravel"]), caplog.at_level("DEBUG", "networkx"):
        assert nx.is_isolate(G, "alone") and not nx.is_isolate(G, 0)
    assert "one node's adjacency" in caplog.text
    assert nx.is_isolate(G, "alone", backend="gravel")


def test_auto_dispatch_falls_back_with_the_reason(caplog):
    G = nx.path_graph(5)
    with nx.config(backend_priority=["gravel"]), caplog.at_level("DEBUG", "networkx"):
        assert nx.pagerank(G) == pytest.approx(nx.pagerank(G, backend="networkx"))
    assert "too small" in caplog.text


@pytest.mark.parametrize(
    "call,error",
    [
        (
            lambda **b: nx.single_source_shortest_path_length(nx.path_graph(3), 9, **b),
            nx.NodeNotFound,
        ),
        (
            lambda **b: nx.single_source_dijkstra_path_length(nx.path_graph(3), 9, **b),
            nx.NodeNotFound,
        ),
        (lambda **b: nx.shortest_path_length(nx.path_graph(3), 9, **b), nx.NodeNotFound),
        (lambda **b: list(nx.bfs_edges(nx.path_graph(3), 9, **b)), nx.NetworkXError),
        (
            lambda **b: nx.descendants_at_distance(nx.path_graph(3), 9, 1, **b),
            nx.NetworkXError,
        ),
        (lambda **b: nx.node_connected_component(nx.path_graph(3), 9, **b), KeyError),
        (lambda **b: nx.is_connected(nx.Graph(), **b), nx.NetworkXPointlessConcept),
        (
            lambda **b: nx.core_number(nx.Graph([(0, 0), (0, 1)]), **b),
            nx.NetworkXNotImplemented,
        ),
        (
            lambda **b: nx.pagerank(nx.path_graph(9), max_iter=1, **b),
            nx.PowerIterationFailedConvergence,
        ),
        (
            lambda **b: nx.pagerank(nx.path_graph(3), personalization={7: 1}, **b),
            ZeroDivisionError,
        ),
    ],
)
def test_networkx_exceptions(call, error):
    with pytest.raises(error):
        call()  # NetworkX's own, to be sure the case is one
    with pytest.raises(error):
        call(backend="gravel")


def test_a_call_keeping_every_edge_attribute_leaves_weighted_calls_right():
    """k_core keeps every edge attribute: NetworkX caches its conversion as holding all of them
    and hands it to later weighted calls, so on a graph whose edges carry data gravel refuses it
    (NetworkX runs k_core) rather than cache an unweighted graph under that key."""
    G = nx.Graph([(0, 1, {"weight": 5.0}), (1, 2, {"weight": 1.0, "cost": 2.0})])
    with pytest.raises(NotImplementedError):
        nx.k_core(G, backend="gravel")
    assert nx.single_source_dijkstra_path_length(G, 0, backend="gravel") == {0: 0, 1: 5, 2: 6}
    assert nx.pagerank(G, backend="gravel") == pytest.approx(nx.pagerank(G))
    bare = nx.path_graph(4)  # no edge data: every attribute is none, and gravel runs it
    assert sorted(nx.k_core(bare, 1, backend="gravel").edges) == [(0, 1), (1, 2), (2, 3)]


def test_non_numeric_weights_go_back_to_networkx():
    G = nx.Graph([(0, 1, {"weight": "heavy"})])
    with pytest.raises(NotImplementedError):
        nx.pagerank(G, backend="gravel")
    with pytest.raises(NotImplementedError):
        nx.community.louvain_communities(G, backend="gravel")


def lfr():
    return nx.LFR_benchmark_graph(250, 3, 1.5, 0.009, average_degree=5, min_community=20, seed=10)


def weighted_karate():
    G = nx.karate_club_graph()  # "weight": 1 to 7
    G.add_edge(0, 0, weight=3)
    return G


@pytest.mark.parametrize(
    "graph,weight,resolution",
    [
        (nx.karate_club_graph, None, 1),
        (weighted_karate, "weight", 1),
        (weighted_karate, "weight", 0.5),
        (lfr, "weight", 1),
        (lambda: nx.planted_partition_graph(8, 30, 0.4, 0.02, seed=2), None, 1),
        (lambda: nx.les_miserables_graph(), "weight", 1.5),
    ],
)
def test_louvain_modularity_is_networkx_s(graph, weight, resolution):
    """A valid partition whose modularity is within 5 % of NetworkX's, seed for seed."""
    G = graph()
    for seed in range(3):
        kw = dict(weight=weight, resolution=resolution, seed=seed)
        ours = nx.community.louvain_communities(G, backend="gravel", **kw)
        assert nx.community.is_partition(G, ours)
        assert ours == nx.community.louvain_communities(G, backend="gravel", **kw)  # same seed
        q = [
            nx.community.modularity(G, p, weight=weight, resolution=resolution)
            for p in (ours, nx.community.louvain_communities(G, **kw))
        ]
        assert q[0] >= q[1] - 0.05 * abs(q[1]), (seed, q)


def test_louvain_seeds_from_networkx_random_states():
    import random

    import numpy as np

    G = lfr()
    again = nx.community.louvain_communities(G, seed=random.Random(7), backend="gravel")
    assert again == nx.community.louvain_communities(G, seed=7, backend="gravel")
    for seed in (np.random.RandomState(7), np.random.default_rng(7)):
        assert nx.community.is_partition(
            G, nx.community.louvain_communities(G, seed=seed, backend="gravel")
        )
    random.seed(4)  # seed=None draws from random's global state, as NetworkX's own code does
    first_call = nx.community.louvain_communities(G, backend="gravel")
    random.seed(4)
    assert nx.community.louvain_communities(G, backend="gravel") == first_call


def test_louvain_edge_cases():
    G = nx.empty_graph(5)
    assert nx.community.louvain_communities(G, backend="gravel") == [{0}, {1}, {2}, {3}, {4}]
    assert nx.community.louvain_communities(nx.Graph(), backend="gravel") == []
    G = nx.karate_club_graph()
    G.add_edge(0, 1, weight=-1)  # gravel refuses negative weights: NetworkX runs them
    with pytest.raises(NotImplementedError):
        nx.community.louvain_communities(G, backend="gravel")


@pytest.mark.parametrize(
    "graph",
    [
        nx.karate_club_graph(),
        nx.les_miserables_graph(),
        nx.planted_partition_graph(6, 20, 0.5, 0.05, seed=1),
        nx.Graph([(0, 0), (0, 1), (1, 2), (3, 4), (4, 4)]),
        nx.empty_graph(["b", "a"]),
        nx.Graph(),
    ],
)
def test_label_propagation_and_colouring_are_networkx_s(graph):
    ours = nx.community.label_propagation_communities(graph, backend="gravel")
    theirs = nx.community.label_propagation_communities(graph)
    assert type(ours) is type(theirs) is DICT_VALUES
    assert list(ours) == list(theirs)  # the same sets, in the same order
    ours, theirs = nx.greedy_color(graph, backend="gravel"), nx.greedy_color(graph)
    assert list(ours.items()) == list(theirs.items())  # the same colours, in the same order


def test_auto_dispatch_sends_refused_calls_back(caplog, monkeypatch):
    from gravel.nx import interface

    monkeypatch.setattr(interface, "SMALL_GRAPH_EDGES", 0)
    G = nx.karate_club_graph()
    with nx.config(backend_priority=["gravel"]), caplog.at_level("DEBUG", "networkx"):
        assert nx.greedy_color(G, "smallest_last") == nx.greedy_color(G, "smallest_last")
        assert "largest_first" in caplog.text
        parts = nx.community.louvain_communities(G, resolution=-0.5, seed=1)
        assert parts == nx.community.louvain_communities(
            G, resolution=-0.5, seed=1, backend="networkx"
        )
        assert "resolution" in caplog.text
        G.add_edge(0, 1, weight=-1)
        parts = nx.community.louvain_communities(G, seed=1)
        assert parts == nx.community.louvain_communities(G, seed=1, backend="networkx")
        assert "non-negative" in caplog.text


def test_import_networkx_stays_light():
    code = (
        "import sys, networkx\n"
        "assert 'gravel' in networkx.utils.backends.backend_info\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cupy', 'numba')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_on_start_tests_marks_the_xfail_table():
    class Item:  # a pytest item of a file outside the rootdir: its node id names no path
        def __init__(self, path, name):
            self.path, self.name, self.nodeid, self.markers = path, name, f"::T::{name}", []

        def add_marker(self, marker):
            self.markers.append(marker)

    site = PurePosixPath("/venv/site-packages/networkx/algorithms")
    items = [Item(site / path, test) for path, test in XFAIL]
    items.append(Item(site / "tests/test_core.py", "test_other"))
    BackendInterface.on_start_tests(items)
    assert [len(item.markers) for item in items] == [1] * len(XFAIL) + [0]


def test_device_config_chooses_gravel_s_device():
    from gravel.backends import cuda
    from gravel.errors import DeviceUnavailableError

    G = nx.karate_club_graph()
    assert nx.config.backends.gravel.device == "auto"
    with nx.config.backends.gravel(device="cpu"):
        got = nx.pagerank(G, backend="gravel")
    assert got == pytest.approx(nx.pagerank(G), abs=1e-9)
    if not cuda.available():
        with nx.config.backends.gravel(device="cuda"), pytest.raises(DeviceUnavailableError):
            nx.pagerank(G, backend="gravel")


@pytest.mark.parametrize(
    "config,edges,expect",
    [
        ("auto", GPU_MIN_ARCS // 2 - 1, "cpu"),
        ("auto", GPU_MIN_ARCS // 2, "auto"),
        ("cuda", 10, "cuda"),
        ("cpu", GPU_MIN_ARCS, "cpu"),
    ],
)
def test_auto_runs_graphs_under_the_gpu_s_size_on_the_cpu(monkeypatch, config, edges, expect):
    """Under "auto" a graph of fewer than GPU_MIN_ARCS arcs goes to gravel's CPU path; a device
    named in the config is passed on as it is."""
    from gravel.nx.algorithms.link_analysis import pagerank_alg

    asked = []

    class Asked(Exception):
        """The device is all this test reads: the call stops there."""

    def spy(*args, device, **kwargs):
        asked.append(device)
        raise Asked

    monkeypatch.setattr(pagerank_alg, "gravel_pagerank", spy)
    G = nx.gnm_random_graph(2 * edges // 3 + 2, edges, seed=1)  # no self loops: 2 arcs an edge
    with nx.config.backends.gravel(device=config), pytest.raises(Asked):
        nx.pagerank(G, backend="gravel")
    assert asked == [expect]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 30),
    seed=st.integers(0, 2**31 - 1),
    directed=st.booleans(),
    labels=st.sampled_from(["ids", "shuffled", "strings"]),
)
def test_conversion_equals_the_edge_list(n, seed, directed, labels):
    """The adjacency read into a CSR is the graph of NetworkX's own edge list, whatever the
    labels (ids in order, other ints, strings), with loops, and with weights where set (the
    default where not)."""
    import random

    from gravel import Graph
    from gravel.nx.convert import from_networkx

    rng = random.Random(seed)
    g = nx.gnp_random_graph(n, rng.random() * 0.4, seed=seed, directed=directed)
    g.add_edges_from((v, v) for v in g if rng.random() < 0.1)
    if labels != "ids":
        order = rng.sample(range(n), n)
        g = nx.relabel_nodes(
            g, {v: order[v] if labels == "shuffled" else f"v{order[v]}" for v in g}
        )
    for u, v, d in g.edges(data=True):
        if rng.random() < 0.7:
            d["w"] = rng.choice([0.5, 2.0, 3.25])
    got = from_networkx(g, {"w": 1.0})
    index = {v: i for i, v in enumerate(g)}
    edges = list(g.edges(data="w", default=1.0))
    want = Graph.from_edges(
        [index[u] for u, _, _ in edges],
        [index[v] for _, v, _ in edges],
        [w for _, _, w in edges],
        n=n,
        directed=directed,
    )
    assert got.labels == list(g)
    assert got.graph == want  # weights included


# (functions that NetworkX decorates with not_implemented_for, connected_components say, ask the
# graph is_directed() before any backend sees it: their AttributeError is NetworkX's own)
@pytest.mark.parametrize("call", [nx.pagerank, nx.betweenness_centrality])
def test_issue_51_a_gravel_graph_is_a_clear_type_error(call):
    import gravel

    with pytest.raises(TypeError, match=r"not a gravel\.Graph: .*G\.to_networkx\(\)"):
        call(gravel.generate.grid(3, 3), backend="gravel")
    with pytest.raises(TypeError, match="takes a NetworkX graph, not a builtins.dict"):
        BackendInterface.convert_from_nx({0: {1: {}}})
