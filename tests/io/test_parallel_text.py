"""The block-parallel text reader and writer (issue 55) against the one-thread reader (the whole
text parsed by one call of the tokenizer, as gravel read text before), independent readers (SciPy,
NetworkX, a line-by-line parser here) and NumPy's writer, on random texts and the shared datasets.

Texts are read in chunks of a few dozen bytes here, so that chunks and blocks end mid-file at
every kind of line (comments, blanks, CRLF, a line longer than a chunk)."""

import gzip

import networkx as nx
import numpy as np
import pytest
import scipy.io
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.io import _files, _parse

from ..conftest import DATASETS, dataset_ids, reference
from ..strategies import graphs
from .test_io import MALFORMED, write


def one_thread(monkeypatch):
    """Read every text whole, in one call of the tokenizer (the reader before issue 55)."""
    monkeypatch.setattr(_files, "TEXT_CHUNK", 1 << 30)
    monkeypatch.setattr(_parse, "SMALL_TEXT_BYTES", 1 << 30)


def in_blocks(monkeypatch, chunk=61):
    """Read texts by the parallel kernels, in chunks of `chunk` bytes, each read from the file
    in parts of 3 bytes or more on several threads."""
    monkeypatch.setattr(_files, "TEXT_CHUNK", chunk)
    monkeypatch.setattr(_files, "READ_PART", 3)
    monkeypatch.setattr(_parse, "SMALL_TEXT_BYTES", -1)


def error_of(path, **kw):
    with pytest.raises(gravel.GraphFormatError) as e:
        gravel.load(path, cache=False, **kw)
    return str(e.value)


@pytest.mark.parametrize("name,text,match", MALFORMED)
@pytest.mark.parametrize("chunk", [7, 61, 1 << 20])
def test_malformed_files_read_in_blocks(tmp_path, monkeypatch, name, text, match, chunk):
    in_blocks(monkeypatch, chunk)
    with pytest.raises(gravel.GraphFormatError, match=match):
        gravel.load(write(tmp_path, name, text), cache=False)


# random texts ----------------------------------------------------------------------------------

_COMMENT = st.sampled_from(["# c", "% x y", "  # indented", "", "   ", "\t"])
_SEP = st.sampled_from([" ", "\t", ",", "  ", " \t "])


@st.composite
def edge_texts(draw):
    """A SNAP-like edge list: (text, lines of (u, v, w or None) as written)."""
    weighted = draw(st.booleans())
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    rows = draw(
        st.lists(
            st.tuples(
                st.integers(0, 40),
                st.integers(0, 40),
                st.floats(-1e6, 1e6, allow_nan=False, width=32),
            ),
            min_size=1,
            max_size=60,
        )
    )
    lines, kept = [], []
    for u, v, w in rows:
        for _ in range(draw(st.integers(0, 1))):
            lines.append(draw(_COMMENT))
        sep = draw(_SEP)
        lines.append(f"{u}{sep}{v}" + (f"{sep}{w!r}" if weighted else ""))
        kept.append((u, v, w if weighted else None))
    return eol.join(lines) + draw(st.sampled_from(["", eol])), kept


def line_by_line(kept, undirected):
    """The graph of the lines, built from them one by one in Python (no gravel parser)."""
    src = [u for u, _, _ in kept]
    dst = [v for _, v, _ in kept]
    w = None if kept[0][2] is None else [x for _, _, x in kept]
    return gravel.Graph.from_edges(src, dst, w, directed=not undirected, dedupe=True)


@settings(max_examples=15, deadline=None)
@given(case=edge_texts(), chunk=st.integers(5, 400), undirected=st.booleans())
def test_random_edge_lists_read_alike(tmp_path_factory, case, chunk, undirected):
    text, kept = case
    path = tmp_path_factory.mktemp("t") / "g.txt"
    path.write_bytes(text.encode())
    expected = line_by_line(kept, undirected)
    with pytest.MonkeyPatch.context() as m:
        in_blocks(m, chunk)
        parallel = gravel.load(path, cache=False, undirected=undirected)
    with pytest.MonkeyPatch.context() as m:
        one_thread(m)
        whole = gravel.load(path, cache=False, undirected=undirected)
    assert parallel == expected and whole == expected


@settings(max_examples=15, deadline=None)
@given(
    case=edge_texts(),
    chunk=st.integers(5, 400),
    at=st.integers(0, 10**6),
    bad=st.sampled_from(["x y", "1 -2", "1.5 2", "3", "1,,2", "1 2 3 4", "1 2 nanx"]),
)
def test_an_error_names_the_line_the_one_thread_reader_names(
    tmp_path_factory, case, chunk, at, bad
):
    text, _ = case
    lines = text.split("\n")
    lines.insert(at % (len(lines) + 1), bad)
    path = tmp_path_factory.mktemp("t") / "g.txt"
    path.write_text("\n".join(lines))
    with pytest.MonkeyPatch.context() as m:
        in_blocks(m, chunk)
        parallel = error_of(path)
    with pytest.MonkeyPatch.context() as m:
        one_thread(m)
        whole = error_of(path)
    assert parallel == whole


_WRITTEN = st.sampled_from(["g.mtx", "g.txt", "g.csv", "g.gr", "g.mtx.gz", "g.gr.gz"])


@settings(max_examples=20, deadline=None)
@given(data=st.data(), chunk=st.integers(5, 300), fmt=_WRITTEN)
def test_every_written_format_reads_back_in_blocks(tmp_path_factory, data, chunk, fmt):
    G = data.draw(graphs(max_n=40, max_m=150, weighted=data.draw(st.booleans())))
    path = tmp_path_factory.mktemp("t") / fmt
    gravel.save(G, path)
    with pytest.MonkeyPatch.context() as m:
        in_blocks(m, chunk)
        assert gravel.load(path, cache=False, dedupe=False) == G


@settings(max_examples=15, deadline=None)
@given(data=st.data(), fmt=st.sampled_from(["mtx", "txt", "csv", "gr"]))
def test_parallel_writer_writes_numpys_bytes(tmp_path_factory, data, fmt):
    G = data.draw(graphs(max_n=40, max_m=150, weighted=data.draw(st.booleans())))
    folder = tmp_path_factory.mktemp("t")
    gravel.save(G, folder / f"numpy.{fmt}")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_files, "SMALL_TEXT_ROWS", -1)
        gravel.save(G, folder / f"kernels.{fmt}")
    assert (folder / f"numpy.{fmt}").read_bytes() == (folder / f"kernels.{fmt}").read_bytes()


def test_weights_print_as_printf_does(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    w = (rng.standard_normal(5000) * 10.0 ** rng.integers(-44, 38, 5000)).astype(np.float32)
    w[:8] = [0, -0.0, np.nan, np.inf, -np.inf, 1e-5, 1e9, 1199460.625]
    G = gravel.Graph.from_edges(np.arange(5000), np.arange(5000)[::-1], w)
    monkeypatch.setattr(_files, "SMALL_TEXT_ROWS", -1)
    gravel.save(G, tmp_path / "g.txt")
    lines = (tmp_path / "g.txt").read_text().splitlines()[1:]
    src, dst = G.edges()
    assert [line.split()[2] for line in lines] == ["%.9g" % x for x in G.weights]
    H = gravel.load(tmp_path / "g.txt", cache=False)
    assert np.array_equal(H.weights, G.weights, equal_nan=True)
    assert all(int(line.split()[0]) == u for line, u in zip(lines, src))


# shared datasets --------------------------------------------------------------------------------


def independent(path, entry):
    """The dataset read without gravel's parser: SciPy for Matrix Market, NetworkX for SNAP edge
    lists, line by line for DIMACS and PACE."""
    if entry["format"] == "mtx":
        with gzip.open(path) as f:
            A = scipy.io.mmread(f).tocoo()
        return A.row, A.col, None if A.dtype == bool or entry.get("weighted") is False else A.data
    if entry["format"] == "snap":
        with gzip.open(path, "rt") as f:
            G = nx.read_edgelist(f, nodetype=int, create_using=nx.DiGraph)
        src, dst = zip(*G.edges())
        return np.array(src), np.array(dst), None
    rows = []
    with gzip.open(path, "rt") as f:
        for line in f:
            words = line.split()
            if words and words[0] not in ("c", "p"):
                rows.append([int(x) for x in words[1 if words[0] == "a" else 0 :]])
    rows = np.array(rows)
    return rows[:, 0] - 1, rows[:, 1] - 1, rows[:, 2] if rows.shape[1] == 3 else None


@pytest.mark.parametrize("entry", reference(), ids=dataset_ids(reference()))
def test_datasets_read_in_blocks_as_independent_readers_read_them(entry, monkeypatch):
    path = DATASETS / entry["file"]
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared datasets sit beside the checkout in CI)")
    in_blocks(monkeypatch, 1 << 20)
    G = gravel.load(path, cache=False, relabel=entry["format"] == "snap")
    src, dst, w = independent(path, entry)
    if entry["format"] == "snap":
        labels = G.labels
        src, dst = np.searchsorted(labels, src), np.searchsorted(labels, dst)
    n = G.n
    undirected = not G.directed
    H = gravel.Graph.from_edges(
        src, dst, None if G.weights is None else w, n=n, directed=not undirected, dedupe=True
    )
    assert G == H


def test_gzip_and_plain_texts_longer_than_a_chunk(tmp_path, monkeypatch):
    G = gravel.generate.kronecker(10, progress=False, device="cpu")
    gravel.save(G, tmp_path / "g.mtx.gz")
    gravel.save(G, tmp_path / "g.mtx")
    in_blocks(monkeypatch, 4096)
    assert gravel.load(tmp_path / "g.mtx.gz", cache=False) == G
    assert gravel.load(tmp_path / "g.mtx", cache=False) == G
    # a line longer than a chunk, after one that fits
    long = "0 1\n" + "1" * 5000 + " 2\n"
    assert "long.txt, line 2: cannot read a number" in error_of(write(tmp_path, "long.txt", long))


PEAK = """
import json, sys
import gravel
from gravel.backends.cpu import csr
from gravel.io import _parse

def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))

path, small = sys.argv[1:]
limits = _parse.SMALL_TEXT_BYTES, csr.SMALL_ARCS
_parse.SMALL_TEXT_BYTES = csr.SMALL_ARCS = -1  # the warm-up loads every kernel of a large load
gravel.load(small, cache=False, progress=False)
_parse.SMALL_TEXT_BYTES, csr.SMALL_ARCS = limits
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak RSS starts again from the RSS now
before = status("VmRSS:")
G = gravel.load(path, cache=False, progress=False)
size = sum(a.nbytes for a in (G.offsets, G.indices, G.weights) if a is not None)
print(json.dumps({"over_csr": (status("VmHWM:") - before) / size}))
"""


@pytest.mark.slow
def test_a_text_load_peaks_within_twice_its_csr(tmp_path):
    """Issue 51: loading a text edge list peaked at 5.1x its CSR (8.1x for a directed kron:19)."""
    import json
    import subprocess
    import sys

    G = gravel.generate.kronecker(19, directed=True, progress=False, device="cpu")
    path, small = tmp_path / "kron19.txt", tmp_path / "kron10.txt"
    gravel.save(G, path)
    gravel.save(gravel.generate.kronecker(10, directed=True, progress=False, device="cpu"), small)
    del G
    out = subprocess.run(
        [sys.executable, "-c", PEAK, str(path), str(small)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout.splitlines()[-1])["over_csr"] <= 2.0


def test_gzip_written_in_members_on_every_core(tmp_path, monkeypatch):
    from gravel.io import _gzip

    monkeypatch.setattr(_gzip, "PIECE_BYTES", 1000)  # many members
    G = gravel.generate.kronecker(9, progress=False, device="cpu")
    gravel.save(G, tmp_path / "g.txt.gz")
    gravel.save(G, tmp_path / "g.txt")
    data = (tmp_path / "g.txt.gz").read_bytes()
    assert data.count(b"\x1f\x8b\x08") > 10  # members, each with its own header
    assert gzip.decompress(data) == (tmp_path / "g.txt").read_bytes()
    assert gravel.load(tmp_path / "g.txt.gz", cache=False) == G
    empty = gravel.Graph.from_edges([], [], n=3)
    gravel.save(empty, tmp_path / "e.mtx.gz")
    assert gravel.load(tmp_path / "e.mtx.gz", cache=False) == empty
