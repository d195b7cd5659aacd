"""Bad input through the backend raises what NetworkX raises: the functions whose errors the
other test files do not already compare (each case is first checked to raise in NetworkX).
Input that gravel declines (its ``can_run`` reasons, tested with them) is left out: NetworkX's
dispatch runs its own code there, which raises its own error."""

import inspect

import networkx as nx
import pytest

from .test_backend import nx_function

P3 = nx.path_graph(3)
D3 = nx.DiGraph([(0, 1), (1, 2)])
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
    # a graph of the kind the function is not defined for, or no graph at all
    ("number_connected_components", D3, (), {}),
    ("strongly_connected_components", P3, (), {}),
    ("number_strongly_connected_components", P3, (), {}),
    ("is_strongly_connected", P3, (), {}),
    ("is_strongly_connected", nx.DiGraph(), (), {}),
    ("weakly_connected_components", P3, (), {}),
    ("k_core", LOOP, (), {}),
    ("k_core", P3, (), {"k": "x"}),
    ("label_propagation_communities", D3, (), {}),
    # a sample larger than the graph
    ("betweenness_centrality", P3, (), {"k": 4, "seed": 1}),
    # no such algorithm; NaN weights where NetworkX is asked not to ignore them
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
def test_bad_input_raises_what_networkx_raises(name, G, args, kwargs):
    theirs = raised(name, G, args, kwargs)
    assert theirs is not None, "NetworkX takes this input: not a case"
    ours = raised(name, G, args, kwargs | {"backend": "gravel"})
    # the same class, or a subclass of it (NumPy's UFuncTypeError is a TypeError): what an
    # `except` clause written for NetworkX catches
    assert isinstance(ours, type(theirs)), f"{ours!r} where NetworkX raises {theirs!r}"
