"""Bad input through the backend raises what NetworkX raises: calls raising NetworkX's exceptions
(missing nodes, empty graphs, bad arguments) and, by name, the functions whose errors the other
test files do not already compare (each case is first checked to raise in NetworkX, and there
gravel's function must have run). Left out: input that gravel declines (its ``can_run`` reasons,
tested with them), where NetworkX's dispatch runs its own code, and graph kinds that NetworkX's
``not_implemented_for`` refuses before any backend is asked."""

import inspect

import networkx as nx
import pytest

from gravel.nx.interface import BackendInterface

from .helpers import nx_function

P3 = nx.path_graph(3)
LOOP = nx.Graph([(0, 0), (0, 1)])
NAN = nx.Graph([(0, 1, {"weight": float("nan")}), (1, 2, {"weight": 1.0})])

CASES = [
    # a cutoff that is not a number fails where NetworkX compares it
    ("all_pairs_shortest_path", P3, (), {"cutoff": "x"}),
    ("all_pairs_shortest_path_length", P3, (), {"cutoff": "x"}),
    ("all_pairs_dijkstra", P3, (), {"cutoff": "x"}),
    ("all_pairs_dijkstra_path", P3, (), {"cutoff": "x"}),
    ("all_pairs_dijkstra_path_length", P3, (), {"cutoff": "x"}),
    # a source or target that is not a node
    ("bfs_predecessors", P3, (9,), {}),
    ("bfs_tree", P3, (9,), {}),
    ("single_target_shortest_path", P3, (9,), {}),
    ("single_source_dijkstra_path", P3, (9,), {}),
    # no graph at all; a self loop where NetworkX refuses one; a k that is not a number
    ("is_strongly_connected", nx.DiGraph(), (), {}),
    ("k_core", LOOP, (), {}),
    ("k_core", P3, (), {"k": "x"}),
    # a sample larger than the graph
    ("betweenness_centrality", P3, (), {"k": 4, "seed": 1}),
    # no such algorithm; NaN weights (NetworkX raises on them unless told to ignore them)
    ("maximum_spanning_edges", P3, (), {"algorithm": "nope"}),
    ("maximum_spanning_tree", P3, (), {"algorithm": "nope"}),
    ("maximum_spanning_tree", NAN, (), {}),
    ("maximum_spanning_edges", NAN, (), {}),
]


def raised(name, G, args, kwargs):
    """The exception the call raises, its result drawn whole where it is lazy; None if none."""
    try:
        out = nx_function(name)(G, *args, **kwargs)
        if inspect.isgenerator(out):
            list(out)
        elif name.startswith("all_pairs_"):
            dict(out)
    except Exception as exc:  # noqa: BLE001  (compared with NetworkX's own)
        return exc
    return None


@pytest.mark.parametrize("name,G,args,kwargs", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_what_networkx_raises(name, G, args, kwargs, monkeypatch):
    theirs = raised(name, G.copy(), args, kwargs)
    assert theirs is not None, "NetworkX takes this input: not a case"
    ran = []
    func = getattr(BackendInterface, name)
    monkeypatch.setattr(
        BackendInterface, name, staticmethod(lambda *a, **k: ran.append(1) or func(*a, **k))
    )
    ours = raised(name, G.copy(), args, kwargs | {"backend": "gravel"})
    assert ran, "gravel's function did not run: NetworkX raised before dispatch"
    # the same class, or a subclass of it (NumPy's UFuncTypeError is a TypeError): what an
    # `except` clause written for NetworkX catches
    assert isinstance(ours, type(theirs)), f"{ours!r} where NetworkX raises {theirs!r}"


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
        (lambda **b: nx.is_isolate(nx.path_graph(3), 7, **b), nx.NetworkXError),
        (lambda **b: nx.ego_graph(nx.path_graph(3), 9, **b), nx.NodeNotFound),
        (
            lambda **b: nx.minimum_spanning_edges(nx.path_graph(3), "dijkstra", **b),
            ValueError,
        ),
        (
            lambda **b: nx.minimum_spanning_tree(nx.path_graph(3), algorithm="x", **b),
            ValueError,
        ),
        (
            lambda **b: nx.minimum_spanning_tree(nx.path_graph(3, nx.DiGraph), **b),
            nx.NetworkXNotImplemented,
        ),
        (
            lambda **b: nx.maximal_independent_set(nx.path_graph(3), [0, 1], **b),
            nx.NetworkXUnfeasible,
        ),
        (
            lambda **b: nx.maximal_independent_set(nx.path_graph(3), [7], **b),
            nx.NetworkXUnfeasible,
        ),
        (lambda **b: nx.maximal_independent_set(nx.Graph(), **b), IndexError),
        (
            lambda **b: list(nx.community.louvain_communities(nx.path_graph(4), max_level=0, **b)),
            ValueError,
        ),
    ],
)
def test_networkx_exceptions(call, error):
    with pytest.raises(error):
        call()  # NetworkX's own, to be sure the case is one
    with pytest.raises(error):
        call(backend="gravel")
