"""Edge tables in, results out keyed by the caller's labels: Graph.from_pandas, Result.to_pandas
and Result.to_dict."""

import numpy as np
import pytest

import gravel
from gravel.algorithms.catalog import CATALOG

pd = pytest.importorskip("pandas")

EDGES = pd.DataFrame(
    {"from": ["b", "a", "c", "a"], "to": ["c", "b", "d", "d"], "w": [1.5, 2.0, 0.5, 4.0]}
)


def test_from_pandas_string_labels_round_trip():
    G = gravel.Graph.from_pandas(EDGES, "from", "to", "w")
    assert G.labels.tolist() == ["a", "b", "c", "d"]
    src, dst = G.edges()
    got = sorted(zip(G.labels[src], G.labels[dst], G.weights.tolist()))
    want = sorted(zip(EDGES["from"], EDGES["to"], EDGES["w"]))
    assert got == want


def test_from_pandas_matches_networkx():
    nx = pytest.importorskip("networkx")
    H = nx.from_pandas_edgelist(EDGES, "from", "to", "w", create_using=nx.DiGraph)
    G = gravel.Graph.from_pandas(EDGES, "from", "to", "w")
    assert sorted(G.to_networkx().edges(data="weight")) == sorted(H.edges(data="w"))


def test_from_pandas_undirected_and_unweighted():
    G = gravel.Graph.from_pandas(EDGES, "from", "to", directed=False)
    assert not G.directed and G.weights is None and G.nnz == 2 * len(EDGES)


def test_from_pandas_relabel_false_keeps_ids():
    df = pd.DataFrame({"source": [3, 1], "target": [1, 5]})
    G = gravel.Graph.from_pandas(df, relabel=False)
    assert G.labels is None and G.n == 6
    assert gravel.Graph.from_pandas(df).labels.tolist() == [1, 3, 5]


def test_from_pandas_unorderable_labels_keep_first_appearance():
    df = pd.DataFrame({"source": ["x", 1], "target": [(2, 3), "x"]})
    G = gravel.Graph.from_pandas(df)
    assert G.labels.tolist() == ["x", 1, (2, 3)]


@pytest.mark.parametrize("column", ["source", "target", "weight"])
def test_from_pandas_bad_column_is_named(column):
    names = {"source": "from", "target": "to", "weight": "w"} | {column: "nope"}
    with pytest.raises(KeyError, match="nope"):
        gravel.Graph.from_pandas(EDGES, names["source"], names["target"], names["weight"])


def _labelled(directed=True):
    return gravel.Graph.from_pandas(EDGES, "from", "to", "w", directed=directed)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_result_to_pandas_matches_arrays(name):
    algo = CATALOG[name]
    G = _labelled(directed=False)  # every algorithm takes an undirected graph
    res = algo.call(G, 1 if algo.takes_source else None, device="cpu")
    df = res.to_pandas(G)
    assert list(df.columns) == ["vertex", *algo.arrays]
    assert df["vertex"].tolist() == G.labels.tolist()
    for array in algo.arrays:
        values = np.asarray(getattr(res, array))
        if array in algo.id_arrays:
            want = [G.labels[v] if v >= 0 else -1 for v in values.tolist()]
            assert df[array].tolist() == want
        else:
            np.testing.assert_array_equal(df[array].to_numpy(), values)
    first = np.asarray(getattr(res, algo.arrays[0]))
    if algo.arrays[0] not in algo.id_arrays:
        assert res.to_dict(G) == dict(zip(G.labels.tolist(), first.tolist()))


def test_result_without_graph_uses_ids():
    G = _labelled()
    res = gravel.bfs(G, 0, device="cpu")
    assert res.to_pandas()["vertex"].tolist() == [0, 1, 2, 3]
    assert res.to_dict() == dict(enumerate(res.depth.tolist()))


def test_bfs_parents_map_to_labels():
    G = _labelled()
    res = gravel.bfs(G, 0, device="cpu")  # from "a"; "a" reaches b, c and d
    assert res.to_dict(G) == {"a": 0, "b": 1, "c": 2, "d": 1}
    assert res.to_pandas(G).set_index("vertex")["parent"].to_dict() == {
        "a": "a",
        "b": "a",
        "c": "b",
        "d": "a",
    }


def test_result_of_another_graph_is_refused():
    res = gravel.bfs(_labelled(), 0, device="cpu")
    with pytest.raises(ValueError, match="4 vertices"):
        res.to_pandas(gravel.Graph.from_edges([0], [1]))


def test_program_result_to_pandas():
    G = _labelled()
    res = gravel.programs.run(G, gravel.programs.bfs(), device="cpu")
    assert "vertex" in res.to_pandas(G).columns


def test_missing_pandas_gives_a_hint(monkeypatch):
    import sys

    res = gravel.bfs(_labelled(), 0, device="cpu")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"gravel\[pandas\]"):
        res.to_pandas()


# -- a label where an algorithm takes a vertex (issue 20) ------------------------------------------
def test_bfs_and_sssp_from_a_label_match_networkx():
    nx = pytest.importorskip("networkx")
    G = _labelled()
    H = nx.from_pandas_edgelist(EDGES, "from", "to", "w", create_using=nx.DiGraph)
    for label in G.labels.tolist():
        depth = gravel.bfs(G, label, device="cpu").to_dict(G)
        want = nx.single_source_shortest_path_length(H, label)
        assert {v: d for v, d in depth.items() if d >= 0} == want
        res = gravel.sssp(G, label, device="cpu")
        assert res.source == G.labels.tolist().index(label)
        dist = {v: d for v, d in res.to_dict(G).items() if np.isfinite(d)}
        assert dist == pytest.approx(nx.single_source_dijkstra_path_length(H, label, weight="w"))


def test_label_or_id_name_the_same_vertex_and_neither_is_named():
    G = _labelled()
    assert np.array_equal(gravel.bfs(G, "b").depth, gravel.bfs(G, 1).depth)
    for bad in ("zz", 4, -1, 1.5, True, None):
        with pytest.raises(gravel.VertexNotFoundError, match=repr(bad) if bad != 4 else "4"):
            gravel.bfs(G, bad, device="cpu")
    with pytest.raises(gravel.VertexNotFoundError, match="'a'"):  # no labels: ids only
        gravel.bfs(gravel.Graph.from_edges([0], [1]), "a")


def test_integers_are_ids_even_where_the_labels_are_integers():
    """Integer labels (a relabelled file's ids) are not looked up: an integer is an id on every
    graph, as the command line and the verifiers expect (caller_id's documented rule)."""
    df = pd.DataFrame({"source": [5, 1], "target": [1, 0]})
    G = gravel.Graph.from_pandas(df)  # labels [0, 1, 5]
    assert G.labels.tolist() == [0, 1, 5]
    assert gravel.bfs(G, 2, device="cpu").to_dict(G) == {0: 2, 1: 1, 5: 0}  # id 2 is label 5
    with pytest.raises(gravel.VertexNotFoundError, match="vertex 5 is not in the graph"):
        gravel.bfs(G, 5, device="cpu")


def _string_labelled(nx, directed):
    """A NetworkX graph with string labels, weighted, with dangling vertices when directed."""
    if not directed:
        return nx.les_miserables_graph()
    H = nx.gnp_random_graph(40, 0.08, seed=3, directed=True)
    nx.set_edge_attributes(H, {e: 1 + i % 4 for i, e in enumerate(H.edges)}, "weight")
    return nx.relabel_nodes(H, {i: f"v{i:02d}" for i in H})


@pytest.mark.parametrize("directed", [False, True])
def test_pagerank_vectors_keyed_by_labels_match_networkx(directed):
    nx = pytest.importorskip("networkx")
    H = _string_labelled(nx, directed)
    G = gravel.Graph.from_networkx(H)
    nodes = list(H)
    vectors = {
        "personalization": {nodes[1]: 1.0, nodes[5]: 2.0, nodes[9]: 0.5},
        "nstart": {v: 1 + i % 3 for i, v in enumerate(nodes)},
        "dangling": {nodes[2]: 1.0, nodes[7]: 3.0},
    }
    got = gravel.pagerank(G, **vectors, stopping="networkx", device="cpu").to_dict(G)
    assert got == pytest.approx(nx.pagerank(H, **vectors), abs=1e-9)
    by_id = {k: {nodes.index(v): x for v, x in d.items()} for k, d in vectors.items()}
    same = gravel.pagerank(G, **by_id, stopping="networkx", device="cpu")
    assert np.array_equal(same.rank, gravel.pagerank(G, **vectors, stopping="networkx").rank)
    with pytest.raises(
        gravel.VertexNotFoundError, match="personalization: 'nobody' is not a vertex"
    ):
        gravel.pagerank(G, personalization={"nobody": 1}, device="cpu")


@pytest.mark.parametrize("directed", [False, True])
def test_betweenness_from_labelled_sources_matches_networkx(directed):
    import random

    nx = pytest.importorskip("networkx")

    class Picks(random.Random):  # NetworkX samples its k sources with seed.sample
        def sample(self, population, k):
            return list(chosen)

    H = _string_labelled(nx, directed)
    G = gravel.Graph.from_networkx(H)
    nodes = list(H)
    chosen = [nodes[0], nodes[4], nodes[11], nodes[30]]
    got = gravel.betweenness_centrality(G, sources=chosen, device="cpu")
    want = nx.betweenness_centrality(H, k=len(chosen), seed=Picks())
    assert got.to_dict(G) == pytest.approx(want, abs=1e-12, nan_ok=True)
    assert sorted(got.sources.tolist()) == sorted(nodes.index(v) for v in chosen)
    mixed = [nodes.index(chosen[0]), *chosen[1:]]  # ids and labels may mix
    again = gravel.betweenness_centrality(G, sources=mixed, device="cpu")
    assert np.array_equal(again.centrality, got.centrality)
    with pytest.raises(gravel.VertexNotFoundError, match="'nobody'"):
        gravel.betweenness_centrality(G, sources=[chosen[0], "nobody"], device="cpu")


def test_a_reordered_labelled_graph_starts_from_the_labelled_vertex():

    G = _labelled(directed=False)
    R = gravel.transform.relabel(G, np.array([3, 1, 0, 2]), transparent=True)
    assert R.order is not None and R.labels is not None
    assert np.array_equal(gravel.bfs(R, "c").depth, gravel.bfs(G, "c").depth)


@pytest.mark.parametrize("relabel", [True, False])
def test_from_pandas_names_a_missing_vertex(relabel):
    import pandas as pd

    df = pd.DataFrame({"s": [0, None, 2], "t": [1, 2, 0]}, index=[10, 11, 12])
    with pytest.raises(gravel.InvalidGraphError, match="column 's' has no vertex at row 11"):
        gravel.Graph.from_pandas(df, "s", "t", relabel=relabel)
