"""Arrow interop: gravel.load / gravel.save of Parquet edge tables, Result.to_arrow and
Graph.to_arrow, checked against pandas and NetworkX reading the same tables."""

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.catalog import CATALOG

from ..strategies import graphs

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")
nx = pytest.importorskip("networkx")

TMP = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _write(path, columns):
    pq.write_table(pa.table(columns), path)
    return path


def _arcs(G):
    """{(u, v): weight} over G's stored arcs, in labels where G has them."""
    src, dst = G.edges()
    if G.labels is not None:
        src, dst = G.labels[src], G.labels[dst]
    w = G.weights if G.weights is not None else np.ones(G.nnz)
    return dict(zip(zip(src.tolist(), dst.tolist()), w.tolist()))


@st.composite
def edge_tables(draw, max_id=30, max_m=60):
    m = draw(st.integers(0, max_m))
    ids = st.lists(st.integers(0, max_id), min_size=m, max_size=m)
    weights = st.lists(st.floats(0.0, 1e6, width=32), min_size=m, max_size=m)
    return (
        np.array(draw(ids), np.int64),
        np.array(draw(ids), np.int64),
        np.array(draw(weights), np.float32),
    )


@TMP
@given(edge_tables(), st.booleans())
def test_parquet_matches_pandas_minimum_of_parallel_edges(tmp_path, table, named):
    src, dst, w = table
    names = ("source", "target", "weight") if named else ("a", "b", "c")
    p = _write(tmp_path / "e.parquet", dict(zip(names, (src, dst, w))))
    G = gravel.load(p)
    # pandas, independently: one arc per (u, v), the least weight (gravel's dedupe)
    want = pd.DataFrame({"u": src, "v": dst, "w": w}).groupby(["u", "v"])["w"].min().to_dict()
    assert _arcs(G) == want
    assert G.directed and G.labels is None
    assert G.n == (int(max(src.max(), dst.max())) + 1 if len(src) else 0)


@TMP
@given(edge_tables(max_id=12, max_m=30))
def test_parquet_undirected_matches_networkx(tmp_path, table):
    src, dst, _ = table
    p = _write(tmp_path / "e.parquet", {"source": src, "target": dst})
    G = gravel.load(p, undirected=True)
    H = nx.Graph(list(zip(src.tolist(), dst.tolist())))
    assert not G.directed and G.weights is None
    assert sorted(G.to_networkx().edges()) == sorted(nx.Graph(G.to_networkx()).edges())
    assert {frozenset(e) for e in G.to_networkx().edges()} == {frozenset(e) for e in H.edges()}


def test_parquet_columns_by_name_win_over_position(tmp_path):
    p = _write(
        tmp_path / "e.parquet",
        {"x": [9, 9], "target": [1, 2], "source": [0, 1], "weight": [2.0, 3.0]},
    )
    assert _arcs(gravel.load(p)) == {(0, 1): 2.0, (1, 2): 3.0}


def test_parquet_first_two_integer_columns_then_a_numeric_weight(tmp_path):
    p = _write(
        tmp_path / "e.parquet",
        {
            "name": ["p", "q"],
            "from": np.array([0, 3], np.int32),
            "to": np.array([3, 1], np.uint16),
            "note": ["r", "s"],
            "w": [0.5, 1.5],
        },
    )
    G = gravel.load(p)
    assert _arcs(G) == {(0, 3): 0.5, (3, 1): 1.5} and G.n == 4
    assert gravel.load(p, weighted=False).weights is None


def test_parquet_without_a_weight_column_is_unweighted(tmp_path):
    p = _write(tmp_path / "e.parquet", {"s": [0, 1], "t": [1, 2], "label": ["a", "b"]})
    assert gravel.load(p).weights is None


def test_parquet_relabel_numbers_string_ids_as_from_pandas(tmp_path):
    df = pd.DataFrame({"source": ["b", "a", "c"], "target": ["c", "b", "d"], "weight": [1.0, 2, 3]})
    p = tmp_path / "e.parquet"
    df.to_parquet(p)
    G = gravel.load(p, relabel=True)
    assert G == gravel.Graph.from_pandas(df, weight="weight")
    assert G.labels.tolist() == ["a", "b", "c", "d"]


def test_parquet_relabel_of_sparse_integer_ids(tmp_path):
    p = _write(tmp_path / "e.parquet", {"source": [10**12, 5], "target": [5, 7]})
    with pytest.raises(gravel.GraphFormatError, match="e.parquet.*relabel=True"):
        gravel.load(p)
    G = gravel.load(p, relabel=True)
    assert G.labels.tolist() == [5, 7, 10**12] and _arcs(G) == {(10**12, 5): 1.0, (5, 7): 1.0}


def test_parquet_keeps_negative_and_nan_weights_as_the_text_loader_does(tmp_path):
    src, dst, w = [0, 1, 2], [1, 2, 0], [-1.5, np.nan, 2.0]
    p = _write(tmp_path / "e.parquet", {"source": src, "target": dst, "weight": w})
    t = tmp_path / "e.txt"
    t.write_text("".join(f"{a} {b} {c}\n" for a, b, c in zip(src, dst, w)))
    G, T = gravel.load(p), gravel.load(t)
    assert (
        np.array_equal(G.weights, T.weights, equal_nan=True)
        and G.offsets.tolist() == T.offsets.tolist()
    )
    # the algorithms that cannot take them refuse, naming the arc
    with pytest.raises(gravel.InvalidWeightError, match="0 -> 1"):
        gravel.sssp(G, 0, device="cpu")


@pytest.mark.parametrize(
    "columns, message",
    [
        ({"a": ["x"], "b": [1]}, r"no edge columns.*'source' and 'target'.*a \(string\)"),
        ({"source": ["x", "y"], "target": [1, 2]}, r"column 'source' holds string.*relabel=True"),
        ({"source": [0.5], "target": [1]}, r"column 'source' holds double, not integer"),
        ({"source": [0, None], "target": [1, 2]}, r"column 'source' has a missing value.*row 1"),
        ({"source": [0, 1], "target": [1, -2]}, r"negative vertex id -2 in column 'target', row 1"),
        ({"source": [0], "target": [1], "weight": ["heavy"]}, r"column 'weight' holds string"),
        (
            {"source": [0, 1], "target": [1, 2], "weight": [1.0, None]},
            r"column 'weight' has a missing value \(null\) in row 1",
        ),
    ],
)
def test_parquet_errors_name_the_file_and_column(tmp_path, columns, message):
    p = _write(tmp_path / "bad.parquet", columns)
    with pytest.raises(gravel.GraphFormatError, match="bad.parquet: " + message):
        gravel.load(p)


def test_parquet_read_in_batches_is_the_file_read_whole(tmp_path, monkeypatch):
    from gravel.backends.cpu.csr import expand_runs
    from gravel.io import arrow

    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 40, 50), rng.integers(0, 40, 50)
    w = rng.random(50)
    p = tmp_path / "e.parquet"
    pq.write_table(pa.table({"source": src, "target": dst, "weight": w}), p, row_group_size=7)
    monkeypatch.setattr(arrow, "BATCH_ROWS", 4)
    blocks, n, directed = arrow.read(p)
    assert len(blocks) == 13 and (n, directed) == (None, None)
    got = [np.concatenate([expand_runs(s) for s, _, _ in blocks])]
    got += [np.concatenate([b[k] for b in blocks]) for k in (1, 2)]
    assert [a.tolist() for a in got] == [src.tolist(), dst.tolist(), w.tolist()]
    G = gravel.load(p, cache=False)
    assert G == gravel.Graph.from_edges(src, dst, w, dedupe=True)
    # a null in a later batch is named by its row in the file
    holes = pa.array([None if i == 37 else float(x) for i, x in enumerate(w)])
    pq.write_table(pa.table({"source": src, "target": dst, "weight": holes}), p, row_group_size=7)
    with pytest.raises(gravel.GraphFormatError, match=r"'weight' has a missing value.*row 37"):
        arrow.read(p)


def test_parquet_that_is_not_parquet(tmp_path):
    p = tmp_path / "junk.parquet"
    p.write_text("0 1\n")
    with pytest.raises(gravel.GraphFormatError, match="junk.parquet: not a readable Parquet"):
        gravel.load(p)


def test_parquet_without_pyarrow_is_a_one_line_hint(tmp_path, monkeypatch):
    p = _write(tmp_path / "e.parquet", {"source": [0], "target": [1]})
    c = tmp_path / "e.csv"
    c.write_text("0,1\n1,2\n")
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(
        ImportError, match=r"e.parquet needs pyarrow: pip install 'gravel\[arrow\]'"
    ):
        gravel.load(p)
    with pytest.raises(ImportError, match="needs pyarrow"):
        gravel.save(gravel.generate.grid(2, 2), tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()
    # .csv stays gravel's own edge-list reader, pyarrow or not
    assert gravel.load(c, cache=False).nnz == 2


@TMP
@given(graphs(weighted=True))
def test_parquet_save_load_round_trip(tmp_path, G):
    p = gravel.save(G, tmp_path / "g.parquet")
    H = gravel.load(p, dedupe=False)  # G's parallel arcs stay
    assert H == G and H.n == G.n and H.directed == G.directed


def test_parquet_save_of_a_labelled_graph_writes_labels(tmp_path):
    G = gravel.Graph.from_networkx(nx.path_graph(["a", "b", "c"]), weight=None)
    p = gravel.save(G, tmp_path / "g.parquet")
    t = pq.read_table(p)
    assert t.column_names == ["source", "target"]
    assert sorted(zip(t["source"].to_pylist(), t["target"].to_pylist())) == [("a", "b"), ("b", "c")]
    assert gravel.load(p, relabel=True) == G


# -- results and graphs out as Arrow tables ----------------------------------------------------
EDGES = pd.DataFrame(
    {"from": ["b", "a", "c", "a", "x"], "to": ["c", "b", "d", "d", "y"], "w": [1.5, 2, 0.5, 4, 1]}
)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_result_to_arrow_matches_to_pandas(name):
    algo = CATALOG[name]
    G = gravel.Graph.from_pandas(EDGES, "from", "to", "w", directed=False)
    res = algo.call(G, 1 if algo.takes_source else None, device="cpu")
    table, frame = res.to_arrow(G), res.to_pandas(G)
    assert table.column_names == list(frame.columns)
    for column in frame.columns:
        got = table[column].to_pylist()
        if column in algo.id_arrays:  # "no vertex": -1 in pandas, null in Arrow
            got = [-1 if v is None else v for v in got]
        want = frame[column]
        if pd.api.types.is_numeric_dtype(want):
            np.testing.assert_array_equal(np.asarray(got, float), want.to_numpy(float))
        else:
            assert got == want.tolist()
    # without the graph: ids, and the same table pandas builds
    plain = res.to_arrow().to_pandas()
    pd.testing.assert_frame_equal(plain, res.to_pandas(), check_dtype=False)


def test_bfs_to_arrow_parents_are_labels_or_null():
    G = gravel.Graph.from_pandas(EDGES, "from", "to", "w")
    t = gravel.bfs(G, 0, device="cpu").to_arrow(G)  # from "a"
    got = dict(zip(t["vertex"].to_pylist(), t["parent"].to_pylist()))
    assert got == {"a": "a", "b": "a", "c": "b", "d": "a", "x": None, "y": None}
    assert t["parent"].null_count == 2


def test_program_result_to_arrow_has_a_column_per_field():
    G = gravel.Graph.from_pandas(EDGES, "from", "to", "w")
    res = gravel.programs.run(G, gravel.programs.bfs(), device="cpu")
    assert res.to_arrow(G).column_names == list(res.to_pandas(G).columns)


def test_result_to_arrow_of_another_graph_is_refused():
    res = gravel.bfs(gravel.Graph.from_edges([0, 1], [1, 2]), 0, device="cpu")
    with pytest.raises(ValueError, match="3 vertices"):
        res.to_arrow(gravel.Graph.from_edges([0], [1]))


@settings(max_examples=30, deadline=None)
@given(graphs(weighted=True))
def test_graph_to_arrow_lists_every_arc(G):
    t = G.to_arrow()
    src, dst = G.edges()
    assert t["source"].to_pylist() == src.tolist() and t["target"].to_pylist() == dst.tolist()
    assert t["weight"].to_pylist() == G.weights.tolist()
    # NetworkX, independently, from the table: the same simple graph
    H = nx.from_pandas_edgelist(
        t.to_pandas(), "source", "target", create_using=nx.DiGraph if G.directed else nx.Graph
    )
    assert {frozenset(e) if not G.directed else e for e in H.edges()} == {
        frozenset(e) if not G.directed else e for e in G.to_networkx().edges()
    }


def test_labelled_graph_to_arrow_names_labels():
    G = gravel.Graph.from_pandas(EDGES, "from", "to")
    t = G.to_arrow()
    assert t.column_names == ["source", "target"]
    assert sorted(zip(t["source"].to_pylist(), t["target"].to_pylist())) == sorted(
        zip(EDGES["from"], EDGES["to"])
    )


def test_to_arrow_without_pyarrow_is_a_one_line_hint(monkeypatch):
    G = gravel.Graph.from_edges([0], [1])
    res = gravel.bfs(G, 0, device="cpu")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    for call in (res.to_arrow, G.to_arrow):
        with pytest.raises(ImportError, match=r"to_arrow needs pyarrow: pip install"):
            call()
