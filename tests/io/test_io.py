import gzip

import numpy as np
import pytest

import gravel

from ..conftest import DATASETS


def write(tmp_path, name, text):
    p = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(p, "wt") as f:
            f.write(text)
    else:
        p.write_text(text)
    return p


def test_snap_edge_list_with_comments_weights_and_commas(tmp_path):
    p = write(tmp_path, "g.txt", "# comment\n% other\n0 1 2.5\n\n1,2,3\n2\t0\t1e1\n")
    G = gravel.load(p)
    assert G.directed and G.n == 3
    assert G.to_scipy().toarray().tolist() == [[0, 2.5, 0], [0, 0, 3], [10, 0, 0]]


def test_edge_list_ids_kept_or_relabelled(tmp_path):
    p = write(tmp_path, "g.txt.gz", "10 20\n20 30\n")
    assert gravel.load(p).n == 31
    G = gravel.load(p, relabel=True, undirected=True)
    assert G.n == 3 and G.labels.tolist() == [10, 20, 30] and G.m == 2 and not G.directed


def test_matrix_market_symmetric_is_undirected_one_based(tmp_path):
    p = write(
        tmp_path,
        "g.mtx",
        "%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 2\n2 1 7\n3 3 1\n",
    )
    G = gravel.load(p)
    assert not G.directed and G.n == 3 and G.m == 2 and G.self_loops == 1
    assert G.to_scipy()[0, 1] == 7 and G.to_scipy()[1, 0] == 7


def test_dimacs_and_pace(tmp_path):
    G = gravel.load(write(tmp_path, "g.gr", "c x\np sp 3 2\na 1 2 5\na 2 3 1\n"))
    assert G.directed and G.n == 3 and G.weights.tolist() == [5, 1]
    H = gravel.load(write(tmp_path, "h.gr", "c x\np tw 3 2\n1 2\n2 3\n"))
    assert not H.directed and H.m == 2 and H.weights is None


#: malformed files, and what their error says (tests/io/test_parallel_text.py reads them in blocks)
MALFORMED = [
    ("a.txt", "0 1\n1 x\n", r"a.txt, line 2: cannot read a number"),
    ("b.txt", "0 1\n-1 2\n", r"line 2: negative vertex id"),
    ("c.txt", "0 1\n1.5 2\n", r"line 2: vertex id is not an integer"),
    ("d.txt", "0 1 1\n1 2\n", r"line 2: number of columns"),
    ("e.txt", "0\n", r"line 1: expected at least two columns"),
    ("f.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n", "coordinate"),
    ("g.mtx", "%%MatrixMarket matrix coordinate complex general\n", "unsupported field"),
    (
        "h.mtx",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n2 1\n",
        "truncated",
    ),
    (
        "i.mtx",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n",
        r"index 3 outside 1..2",
    ),
    ("j.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 2\n", "square"),
    ("k.mtx", "1 2\n", "banner"),
    (
        "l.mtx",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 x\n",
        r"line 2: expected 'rows",
    ),
    ("m.gr", "p sp 2 1\na 1 3 1\n", "outside 1..2"),
    ("n.gr", "p sp 2 2\na 1 2 1\n", "truncated"),
    ("o.gr", "a 1 2 1\n", "problem line"),
    ("p.gr", "p sp 2 1\n1 2 1\n", r"line 2: unexpected line"),
    ("q.txt", "0 99999999999\n", "int32"),
    ("r.csv", "0,1\n1,,2\n", r"line 2: empty field \(two commas"),
    ("s.csv", "0,1\n,1,2\n", r"line 2: empty field"),
    ("t.txt", "0 1 1.5\n1 2 inflate\n", r"line 2: cannot read a number"),
    (
        "u.txt",
        "# gravel edge list: 3 vertices, directed, weighted\n0 1\n1 2\n",
        r"u.txt, line 2: line 1 declares a weighted graph, the lines have no weight column",
    ),
    # issue 51: a fourth column is refused, naming the line, in every text format
    ("v.txt", "0 1 1.5 1700000000\n", r"v.txt, line 1: more than three columns"),
    ("w.csv", "# SNAP\n0,1\n1,2,3,4\n", r"w.csv, line 3: more than three columns"),
    ("x.gr", "p sp 2 1\na 1 2 1 9\n", r"x.gr, line 2: more than three columns"),
    (
        "y.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1 0\n",
        r"y.mtx, line 3: more than three columns",
    ),
    # issue 51: no edges and no header: an error naming the file, not a graph of 0 vertices
    ("empty.txt", "", r"empty.txt: no edges, and no header"),
    ("comments.txt", "# FromNodeId ToNodeId\n\n", r"comments.txt: no edges"),
    ("empty.csv.gz", "", r"empty.csv.gz: no edges"),
]


@pytest.mark.parametrize("name,text,match", MALFORMED)
def test_malformed_files_name_file_and_line(tmp_path, name, text, match):
    with pytest.raises(gravel.GraphFormatError, match=match):
        gravel.load(write(tmp_path, name, text), cache=False)


def test_classic_mac_line_ends_and_spelled_out_infinity(tmp_path):
    G = gravel.load(write(tmp_path, "cr.txt", "0 1\r1 2\r2 3\r"), cache=False)
    assert G.edges()[1].tolist() == [1, 2, 3] and G.weights is None
    W = gravel.load(write(tmp_path, "inf.txt", "0 1 1.5\n1 2 Infinity\n2 3 -inf\n"), cache=False)
    assert W.weights.tolist() == [1.5, float("inf"), float("-inf")]


def test_truncated_gzip(tmp_path):
    p = tmp_path / "t.txt.gz"
    p.write_bytes(gzip.compress(b"0 1\n" * 1000)[:-20])
    with pytest.raises(gravel.GraphFormatError, match="truncated gzip"):
        gravel.load(p)


# round trips of every written format: tests/io/test_files.py


def test_missing_file():
    with pytest.raises(gravel.GraphFormatError, match="no such file"):
        gravel.load("/nonexistent/graph.mtx")


def test_failed_save_leaves_no_file(tmp_path, monkeypatch):
    G = gravel.generate.grid(3, 3)
    from gravel.io import edgelist

    def boom(f, G, sep=" "):
        f.write(b"partial")
        raise RuntimeError("disk full")

    monkeypatch.setattr(edgelist, "write", boom)
    monkeypatch.setitem(gravel.io.FORMATS, "edgelist", edgelist)
    with pytest.raises(RuntimeError):
        gravel.save(G, tmp_path / "out.txt")
    assert list(tmp_path.iterdir()) == []


def test_binary_cache_is_written_and_used(tmp_path, monkeypatch):
    p = write(tmp_path, "g.txt", "0 1\n1 2\n")
    G = gravel.load(p)
    from gravel.io._cache import cache_dir

    assert list(cache_dir().glob("*.gravel"))
    # a cache hit must not parse the text again
    from gravel.io import edgelist

    monkeypatch.setattr(edgelist, "read", lambda *a: pytest.fail("parsed despite the cache"))
    assert gravel.load(p) == G
    # a changed file is parsed again
    p.write_text("0 1\n1 2\n2 3\n")
    monkeypatch.undo()
    assert gravel.load(p).n == 4


def test_not_a_binary_graph(tmp_path):
    p = tmp_path / "x.gravel"
    p.write_bytes(b"junk")
    with pytest.raises(gravel.GraphFormatError, match="not a gravel binary graph"):
        gravel.load(p)


@pytest.mark.parametrize(
    "name,n,m,directed",
    [
        ("rome99.gr.gz", 3353, 8859, True),
        ("Pajek_EAT_RS.mtx.gz", 23219, 325592 - 0, True),
        ("USA-road-NY.pace.gr.gz", 264346, 365050, False),
    ],
)
def test_shared_dataset_sizes(name, n, m, directed):
    if not (DATASETS / name).is_file():
        pytest.skip(f"{DATASETS} is absent")
    G = gravel.load(DATASETS / name)
    assert (G.n, G.directed) == (n, directed)
    assert G.m == m


def test_load_builds_the_graph_once_merging_parallel_edges(tmp_path, monkeypatch):
    path = write(tmp_path, "dup.txt", "0 1 5\n0 1 2\n1 2 7\n0 1 9\n2 2 1\n")
    built = []
    build = gravel.Graph._build  # every constructor's body

    def counting(self, *args, **kwargs):
        built.append(1)
        build(self, *args, **kwargs)

    monkeypatch.setattr(gravel.Graph, "_build", counting)
    G = gravel.load(path, cache=False)
    assert len(built) == 1
    assert G.indices.tolist() == [1, 2, 2] and G.weights.tolist() == [2, 7, 1]  # minimum kept
    K = gravel.load(path, cache=False, dedupe=False)
    assert G.nnz == 3 and K.nnz == 5 and K.weights.tolist() == [5, 2, 9, 7, 1]
    U = gravel.load(path, cache=False, undirected=True)
    assert U.indices.tolist() == [1, 0, 2, 1, 2] and U.weights.tolist() == [2, 2, 7, 7, 1]


def test_issue_51_three_columns_and_declared_empty_lists_stay_valid(tmp_path):
    G = gravel.load(write(tmp_path, "w.txt", "0 1 2.5\n1 2 1e3\n"), cache=False)
    assert G.weights.tolist() == [2.5, 1000.0]
    for empty in (gravel.Graph.from_edges([], [], n=0), gravel.Graph.from_edges([], [], n=3)):
        path = gravel.save(empty, tmp_path / "e.txt")
        assert gravel.load(path, cache=False) == empty


@pytest.mark.parametrize(
    "lines",
    [
        "0 1 nan\n0 1 2\n0 1 3\n",
        "0 1 3\n0 1 nan\n0 1 2\n",
        "0 1 2\n0 1 3\n0 1 nan\n",
    ],
)
def test_issue_51_a_nan_duplicate_never_wins_over_a_number(tmp_path, lines):
    G = gravel.load(write(tmp_path, "dup.txt", lines + "1 2 nan\n1 2 nan\n"), cache=False)
    assert G.weights[0] == 2.0  # the minimum of the numbers, whatever the order
    assert np.isnan(G.weights[1])  # every copy NaN: NaN


@pytest.mark.parametrize("compact", ["_compact_small", "_compact_in_place"])
def test_issue_51_both_compactions_pass_over_nan(compact):
    from gravel.backends.cpu import csr

    offsets = np.array([0, 3, 5], np.int64)
    indices = np.array([1, 1, 1, 0, 0], np.int32)
    weights = np.array([np.nan, 4.0, 3.0, np.nan, np.nan], np.float32)
    nnz = getattr(csr, compact)(offsets, indices, weights, True, False)
    assert nnz == 2 and weights[0] == 3.0 and np.isnan(weights[1])
