"""The backend's shortest-path, BFS and DAG functions against NetworkX's own results on random
graphs: equal where NetworkX defines the answer (BFS trees, lengths, unweighted paths), valid
shortest paths of NetworkX's length where weighted paths tie, and NetworkX's exceptions."""

import gc
import inspect

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gravel.nx._algorithm import ALGORITHMS

from .helpers import called, first, nx_function, nx_graphs, same


def last(G):
    return list(G)[-1]


def middle(G):
    return list(G)[len(G) // 2]


# name -> keyword arguments given the graph: results equal NetworkX's (lists in order)
EXACT = {
    "bfs_predecessors": lambda G: {"source": first(G)},
    "bfs_successors": lambda G: {"source": first(G), "depth_limit": 2},
    "generic_bfs_edges": lambda G: {"source": first(G), "depth_limit": 3},
    "bfs_layers": lambda G: {"sources": [first(G), last(G), first(G)]},
    "descendants": lambda G: {"source": first(G)},
    "ancestors": lambda G: {"source": last(G)},
    "descendants_at_distance": lambda G: {"source": middle(G), "distance": 1},
    "single_source_shortest_path": lambda G: {"source": first(G), "cutoff": 2.5},
    "single_source_shortest_path_length": lambda G: {"source": first(G), "cutoff": 1.5},
    "single_target_shortest_path": lambda G: {"target": last(G)},
    "single_target_shortest_path_length": lambda G: {"target": last(G), "cutoff": 2},
    "all_pairs_shortest_path": lambda G: {"cutoff": 2},
    "all_pairs_shortest_path_length": lambda G: {},
    "bidirectional_shortest_path": lambda G: {"source": first(G), "target": last(G)},
    "has_path": lambda G: {"source": last(G), "target": first(G)},
    "dijkstra_path_length": lambda G: {"source": first(G), "target": last(G)},
    "single_source_dijkstra_path_length": lambda G: {"source": first(G), "cutoff": 6},
    "all_pairs_dijkstra_path_length": lambda G: {"cutoff": 9},
    "bellman_ford_path_length": lambda G: {"source": middle(G), "target": last(G)},
    "single_source_bellman_ford_path_length": lambda G: {"source": first(G)},
    "all_pairs_bellman_ford_path_length": lambda G: {},
    "is_negatively_weighted": lambda G: {},
    # Dijkstra's paths (weights drawn: None or "weight"): NetworkX's heap replayed
    "single_source_dijkstra": lambda G: {"source": first(G)},
    "single_source_dijkstra_path": lambda G: {"source": first(G), "cutoff": 7},
    "dijkstra_path": lambda G: {"source": first(G), "target": last(G)},
    "all_pairs_dijkstra": lambda G: {},
    "all_pairs_dijkstra_path": lambda G: {"cutoff": 8},
    # unit weights: NetworkX's Bellman-Ford takes BFS's paths
    "single_source_bellman_ford": lambda G: {"source": first(G), "weight": None},
    "single_source_bellman_ford_path": lambda G: {"source": first(G), "weight": None},
    "bellman_ford_path": lambda G: {"source": first(G), "target": last(G), "weight": None},
    "all_pairs_bellman_ford_path": lambda G: {"weight": None},
}

# shortest_path and shortest_path_length: every call form
FORMS = [
    {},
    {"source": "first"},
    {"target": "last"},
    {"source": "first", "target": "last"},
]


def ends(G, form):
    return {k: {"first": first, "last": last}[v](G) for k, v in form.items()}


def signed(G):
    """A copy of G whose weights 1..9 become -2..6: negative edges, often negative cycles."""
    H = G.copy()
    for *_, d in H.edges(data=True):
        d["weight"] -= 3
    return H


@pytest.mark.parametrize("name", sorted(EXACT))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_matches_networkx(name, data):
    G = data.draw(nx_graphs())
    if name.startswith(("bellman_ford", "single_source_bellman", "all_pairs_bellman", "is_neg")):
        G = data.draw(st.sampled_from([G, signed(G)]))
    args = EXACT[name](G)
    if "dijkstra" in name and "weight" not in args:
        args["weight"] = data.draw(st.sampled_from([None, "weight"]))
    assert same(called(name, G, **args), called(name, G, backend="gravel", **args))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_is_negatively_weighted_of_each_edge_matches_networkx(data):
    G = data.draw(nx_graphs().filter(lambda G: G.number_of_edges()).map(signed))
    for edge in G.edges:
        args = {"edge": edge, "weight": data.draw(st.sampled_from(["weight", "other"]))}
        assert called("is_negatively_weighted", G, backend="gravel", **args) == called(
            "is_negatively_weighted", G, **args
        )


@pytest.mark.parametrize("name", ["shortest_path", "shortest_path_length"])
@pytest.mark.parametrize("form", FORMS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_call_form_matches_networkx(name, form, data):
    G = data.draw(nx_graphs())
    weight = data.draw(st.sampled_from([None, "weight"]))
    method = data.draw(st.sampled_from(["dijkstra", "bellman-ford"]))
    args = ends(G, form) | {"weight": weight, "method": method}
    ours, theirs = called(name, G, backend="gravel", **args), called(name, G, **args)
    # of several tied weighted paths, NetworkX's Bellman-Ford may keep another than gravel
    tied = method == "bellman-ford" and weight is not None
    if name == "shortest_path" and tied and not isinstance(theirs, type):
        assert_same_lengths(G, theirs, ours, args.get("source"), args.get("target"))
    else:
        assert same(theirs, ours)


def path_weight(G, path):
    assert all(G.has_edge(u, v) for u, v in zip(path, path[1:])), path
    return sum(G[u][v]["weight"] for u, v in zip(path, path[1:]))


def assert_same_lengths(G, theirs, ours, source=None, target=None):
    """Weighted paths (any of several that tie): the same pairs, each a path of G from its source
    to its target as heavy as NetworkX's."""
    if isinstance(theirs, list) and theirs and isinstance(theirs[0], tuple):  # all pairs
        assert [s for s, _ in ours] == [s for s, _ in theirs]
        for (s, a), (_, b) in zip(theirs, ours):
            assert_same_lengths(G, a, b, source=s)
        return
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for key in theirs:
            s, t = (source, key) if source is not None else (key, target)
            assert_same_lengths(G, theirs[key], ours[key], s, t)
        return
    assert ours[0] == theirs[0] and ours[-1] == theirs[-1]
    assert (source is None or ours[0] == source) and (target is None or ours[-1] == target)
    assert path_weight(G, ours) == path_weight(G, theirs)


# Bellman-Ford's weighted paths: several may tie, so any of them of NetworkX's length
WEIGHTED_PATHS = {
    "single_source_bellman_ford": lambda G: {"source": first(G)},
    "single_source_bellman_ford_path": lambda G: {"source": first(G)},
    "bellman_ford_path": lambda G: {"source": first(G), "target": last(G)},
    "all_pairs_bellman_ford_path": lambda G: {},
}


@pytest.mark.parametrize("name", sorted(WEIGHTED_PATHS))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_weighted_paths_are_shortest_as_networkx_s(name, data):
    G = data.draw(nx_graphs())
    if G.is_directed():
        G = data.draw(st.sampled_from([G, signed(G)]))
    args = WEIGHTED_PATHS[name](G)
    theirs, ours = called(name, G, **args), called(name, G, backend="gravel", **args)
    if isinstance(theirs, type):  # an exception (a negative cycle, no path)
        assert ours is theirs
        return
    if isinstance(theirs, tuple):  # (lengths, paths), or (length, path) to a target
        assert ours[0] == theirs[0]
        theirs, ours = theirs[1], ours[1]
    assert_same_lengths(G, theirs, ours, args.get("source"), args.get("target"))


@st.composite
def tied_graphs(draw):
    """Small graphs, edges in node order, weights 0..3: many shortest paths tie."""
    G = draw(nx_graphs(max_n=9))
    for *_, d in G.edges(data=True):
        d["weight"] = draw(st.integers(0, 3))
    return G


@settings(max_examples=40, deadline=None)
@given(G=tied_graphs())
def test_dijkstra_keeps_networkx_s_path_of_several_tied(G):
    for name, args in [
        ("single_source_dijkstra", {"source": first(G)}),
        ("shortest_path", {"target": last(G), "weight": "weight"}),
        ("shortest_path", {"source": first(G), "target": last(G), "weight": "weight"}),
    ]:
        assert same(called(name, G, **args), called(name, G, backend="gravel", **args))


@pytest.mark.parametrize(
    "edges",
    [
        [(0, 1, 2), (0, 2, 1), (0, 3, 0), (2, 1, 1), (3, 4, 0), (4, 1, 2)],
        # a graph where gravel.sssp's tree reaches 4 over 0, 1, 2 and NetworkX's over 0, 3
        [(0, 1, 1), (0, 3, 2), (1, 2, 1), (2, 1, 2), (2, 4, 3), (3, 4, 3), (4, 1, 1)],
    ],
)
def test_dijkstra_keeps_networkx_s_path_of_several_tied_and_zero_weights(edges):
    G = nx.DiGraph()
    G.add_weighted_edges_from(edges)
    for kwargs in ({}, {"cutoff": 1}):
        ours = nx.single_source_dijkstra(G, 0, backend="gravel", **kwargs)
        assert ours == nx.single_source_dijkstra(G, 0, **kwargs)
        assert list(ours[0]) == list(nx.single_source_dijkstra(G, 0, **kwargs)[0])  # settle order
    assert nx.shortest_path(G, target=1, weight="weight", backend="gravel") == nx.shortest_path(
        G, target=1, weight="weight"
    )


@settings(max_examples=30, deadline=None)
@given(G=nx_graphs(directed=True), pair=st.tuples(st.integers(0, 30), st.integers(0, 30)))
def test_lowest_common_ancestor_matches_networkx(G, pair):
    nodes = list(G)
    G.remove_edges_from([(u, v) for u, v in list(G.edges) if nodes.index(u) >= nodes.index(v)])
    u, v = (nodes[i % len(nodes)] for i in pair)
    ours = called("lowest_common_ancestor", G, node1=u, node2=v, default="-", backend="gravel")
    assert ours == called("lowest_common_ancestor", G, node1=u, node2=v, default="-")


def test_negative_cycles_raise_networkx_unbounded():
    G = nx.DiGraph([(0, 1, {"weight": 1}), (1, 2, {"weight": -3}), (2, 1, {"weight": 1})])
    G.add_edge(3, 0, weight=1)
    for call in (
        lambda **b: nx.single_source_bellman_ford_path_length(G, 0, **b),
        lambda **b: nx.bellman_ford_path(G, 0, 2, **b),
        lambda **b: nx.shortest_path_length(G, 0, weight="weight", method="bellman-ford", **b),
        lambda **b: dict(nx.all_pairs_bellman_ford_path(G, **b)),
    ):
        with pytest.raises(nx.NetworkXUnbounded, match="Negative cycle detected."):
            call(backend="gravel")
    # from a vertex the cycle cannot reach, or to the source itself, there is no error
    assert nx.single_source_bellman_ford(G, 2, 2, backend="gravel") == (0, [2])
    U = nx.Graph([(0, 1, {"weight": -1})])  # an undirected negative edge is a cycle
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(U, 0, backend="gravel")


G3 = nx.path_graph(3)
D3 = nx.DiGraph([(0, 1), (1, 2)])
ERRORS = [
    ("single_source_shortest_path", G3, (9,), {}),
    ("single_target_shortest_path_length", G3, (9,), {}),
    ("bidirectional_shortest_path", G3, (0, 9), {}),
    ("bidirectional_shortest_path", D3, (2, 0), {}),
    ("has_path", G3, (9, 0), {}),
    ("shortest_path", G3, (0, 2), {"method": "floyd"}),
    ("shortest_path", D3, (2, 0), {"weight": "weight"}),
    ("shortest_path_length", D3, (2, 0), {"weight": "weight", "method": "bellman-ford"}),
    ("dijkstra_path", D3, (2, 0), {}),
    ("dijkstra_path_length", D3, (2, 0), {}),
    ("dijkstra_path_length", D3, (9, 0), {}),
    ("single_source_dijkstra", D3, (2, 0), {}),
    ("single_source_dijkstra_path_length", G3, (9,), {}),
    ("bellman_ford_path", D3, (2, 0), {}),
    ("bellman_ford_path_length", D3, (2, 0), {}),
    ("bellman_ford_path_length", D3, (9, 9), {}),
    ("single_source_bellman_ford", D3, (9,), {}),
    ("single_source_bellman_ford", D3, (9, 9), {}),
    ("is_negatively_weighted", G3, (), {"edge": (0, 2)}),
    ("bfs_successors", G3, (9,), {}),
    ("generic_bfs_edges", G3, (9,), {}),
    ("descendants", G3, (9,), {}),
    ("ancestors", D3, (9,), {}),
    ("bfs_layers", G3, ([0, 9],), {}),
    ("lowest_common_ancestor", nx.DiGraph([(0, 1), (1, 0)]), (0, 1), {}),
    ("lowest_common_ancestor", nx.DiGraph(), (0, 1), {}),
    ("lowest_common_ancestor", D3, (0, 9), {}),
]


def raised(name, G, args, kwargs):
    try:
        out = nx_function(name)(G, *args, **kwargs)
        list(out) if inspect.isgenerator(out) else out
    except Exception as exc:  # noqa: BLE001  (compared with NetworkX's own)
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("name,G,args,kwargs", ERRORS, ids=[e[0] for e in ERRORS])
def test_networkx_exceptions(name, G, args, kwargs):
    theirs = raised(name, G, args, kwargs)
    assert theirs is not None
    ours = raised(name, G, args, kwargs | {"backend": "gravel"})
    assert ours[0] is theirs[0], ours
    if theirs[0] is not nx.NodeNotFound:  # NodeNotFound's wording varies within NetworkX too
        assert ours == theirs


@pytest.mark.parametrize(
    "name,args,kwargs,reason",
    [
        ("generic_bfs_edges", (0,), {"neighbors": G3.neighbors}, "neighbors"),
        ("bfs_successors", (0,), {"sort_neighbors": sorted}, "sort_neighbors"),
        ("dijkstra_path", (0, 2), {"weight": lambda u, v, d: 1}, "weight functions"),
        ("shortest_path", (0,), {"weight": lambda u, v, d: 1}, "weight functions"),
        ("is_negatively_weighted", (), {"edge": (0, 1, 2)}, "pair"),
    ],
)
def test_can_run_declines_with_the_reason(name, args, kwargs, reason):
    from gravel.nx.interface import BackendInterface

    said = BackendInterface.can_run(name, (G3, *args), kwargs)
    assert isinstance(said, str) and reason in said


@pytest.mark.parametrize("weights", [[0.1, 0.2], [-1.5, 2.0]])
def test_weights_gravel_cannot_take_run_on_networkx(weights):
    G = nx.DiGraph([(0, 1, {"weight": weights[0]}), (1, 2, {"weight": weights[1]})])
    if weights[0] == 0.1:  # float32 does not hold 0.1: NetworkX runs, and its sum is exact
        with pytest.raises(NotImplementedError):
            nx.dijkstra_path_length(G, 0, 2, backend="gravel")
        assert nx.dijkstra_path_length(G, 0, 2) == 0.1 + 0.2
    else:  # Dijkstra refuses negative weights; Bellman-Ford takes them
        with pytest.raises(NotImplementedError):
            nx.single_source_dijkstra_path_length(G, 0, backend="gravel")
        assert nx.bellman_ford_path_length(G, 0, 2, backend="gravel") == 0.5


def test_signatures_are_networkx_s():
    from gravel.nx._info import FUNCTIONS

    for name in [*EXACT, *WEIGHTED_PATHS, "shortest_path", "lowest_common_ancestor"]:
        assert name in FUNCTIONS
        theirs = list(inspect.signature(nx_function(name)).parameters.values())
        assert list(ALGORITHMS[name].signature.parameters.values()) == theirs[:-2], name


def test_all_pairs_are_lazy():
    G = nx.path_graph(4)
    for name in ("all_pairs_shortest_path", "all_pairs_dijkstra_path_length"):
        out = nx_function(name)(G, backend="gravel")
        assert iter(out) is out
        assert next(out) == next(nx_function(name)(G))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("dijkstra_path_length", (0, 3)),
        ("single_source_dijkstra_path_length", (0,)),
        ("all_pairs_dijkstra_path_length", ()),
    ],
)
def test_dijkstra_s_lengths_ask_gravel_for_no_tree(monkeypatch, name, args):
    """Lengths need no predecessor pass (a quarter of an SSSP on the GPU)."""
    from gravel.nx.algorithms.shortest_paths import trees

    real, asked = trees.sssp, []

    def sssp(graph, s, **kw):
        asked.append(kw.get("predecessors", True))
        return real(graph, s, **kw)

    monkeypatch.setattr(trees, "sssp", sssp)
    G = nx.Graph([(0, 1, {"weight": 2}), (1, 2, {"weight": 1}), (2, 3, {"weight": 4})])
    out, expect = nx_function(name)(G, *args, backend="gravel"), nx_function(name)(G, *args)
    assert same(dict(out), dict(expect)) if name.startswith("all") else same(out, expect)
    assert asked and not any(asked)


def test_results_are_built_with_the_collector_paused_and_it_is_restored(monkeypatch):
    from gravel.nx.algorithms.shortest_paths.trees import Tree

    built, paths = [], Tree.paths

    def spy(self, *args, **kwargs):
        built.append(gc.isenabled())
        return paths(self, *args, **kwargs)

    monkeypatch.setattr(Tree, "paths", spy)
    G = nx.path_graph(5)
    want = nx.single_source_shortest_path(G, 1)
    assert nx.single_source_shortest_path(G, 1, backend="gravel") == want
    lazy = nx.all_pairs_shortest_path(G, backend="gravel")  # each source's paths as it comes
    assert gc.isenabled() and next(lazy) == (0, nx.single_source_shortest_path(G, 0))
    assert dict(lazy) == dict(list(nx.all_pairs_shortest_path(G))[1:])
    assert built == [False] * 6 and gc.isenabled()
    gc.disable()  # a caller's own pause outlasts the call
    try:
        assert nx.single_source_shortest_path(G, 1, backend="gravel") == want
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.gpu
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_the_gpu_gives_the_cpu_s_results(data):
    G = data.draw(nx_graphs())
    name = data.draw(st.sampled_from(sorted(EXACT)))
    args = EXACT[name](G)
    with nx.config.backends.gravel(device="cpu"):
        want = called(name, G, backend="gravel", **args)
    with nx.config.backends.gravel(device="cuda"):
        assert same(want, called(name, G, backend="gravel", **args))
