"""The text parser of whole-array operations (io/device_text.py) and its CSR build
(io/device_csr.py), run by NumPy here and by CuPy on a GPU, against the CPU reader (the Numba
tokenizer and CSR build) on every text format: the same graphs bit for bit, the same errors.

Texts are cut into pieces of a few bytes here, so that pieces end at every kind of line (comments,
blanks, CRLF, a line longer than a piece). Where the vectorized path is expected to read every
piece itself, the tests also count the pieces it handed to the tokenizer."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
import gravel.io as gio
from gravel.arrays import host
from gravel.io import _parse, device_csr, device_text

from ..strategies import graphs
from .test_io import MALFORMED, write
from .test_parallel_text import edge_texts


def load_by(xp, path, piece=1 << 20, **kw):
    """`gravel.load` of `path` with its text parsed and its CSR built by `xp`, in pieces of
    `piece` bytes; (graph, pieces the tokenizer read instead)."""
    tokenized = []
    real = _parse._tokenized
    with pytest.MonkeyPatch.context() as m:
        m.setattr(gio, "_text_parser", lambda device, p, fmt: xp if fmt in gio._TEXTS else None)
        m.setattr(_parse, "DEVICE_PIECE_BYTES", piece)
        m.setattr(_parse, "_tokenized", lambda *a: tokenized.append(1) or real(*a))
        G = gravel.load(path, cache=False, device="cuda", **kw)
    return G, len(tokenized)


def same(G, H):
    """G and H hold the same graph, bit for bit (weights' bits included)."""
    assert (G.n, G.directed) == (H.n, H.directed)
    assert np.array_equal(G.offsets, H.offsets) and np.array_equal(G.indices, H.indices)
    assert (G.weights is None) == (H.weights is None)
    if G.weights is not None:
        assert np.array_equal(G.weights.view(np.int32), H.weights.view(np.int32))
    assert (G.labels is None) == (H.labels is None)
    if G.labels is not None:
        assert np.array_equal(G.labels, H.labels)


def error_of(load, path):
    with pytest.raises(gravel.GraphFormatError) as e:
        load(path)
    return str(e.value)


TRICKY = [
    ("crlf.txt", "0 1\r\n1 2\r\n2 0\r\n"),
    ("tabs.txt", "0\t1\n1\t\t2 \t\n  2 \t 3\t\n"),
    ("comments.txt", "# a\n% b\n\n   \n0 1\n  # indented\n\t\n1 2\n# last"),
    ("no_end.txt", "0 1\n1 2"),
    ("blank_tail.txt", "0 1\n1 2\n  \t "),
    ("commas.csv", "0,1\n1, 2,\n 2 ,3 , \n"),
    ("zeros.txt", "000 01\n000000000000000002 3\n"),
    ("weights.txt", "0 1 1.5\n1 2 -2.25e-3\n2 3 +7\n3 4 5.\n4 5 .5\n5 6 1E+2\n6 7 -0\n7 8 -0.0\n"),
    ("exps.txt", "0 1 1e-320\n1 2 9.99e37\n2 3 3.4e38\n3 4 -1e39\n4 5 123456789012345e-30\n"),
    ("digits.txt", "0 1 0.30000000000000004\n1 2 1234567890123456789.5\n2 3 9007199254740993\n"),
    ("pair_weights.txt", "0 1 1\n0 1 -3\n1 0 2\n1 1 4\n0 1 -3\n2 2 0\n2 2 -0.0\n"),
    (
        "sym.mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n% note\n%\n4 4 4\n1 1 2.5\n"
        "% mid\n3 1 -1e2\n4 2 0.125\n4 4 7\n",
    ),
    ("pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\r\n3 3 2\r\n1 2\r\n3 1\r\n"),
    ("integer.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 3\n2 1 -4\n"),
    ("sp.gr", "c first\np sp 3 4\na 1 2 5\nc mid\n  a 2 3 1.5\na\t3 1 2e1\na 1 3,0.5\n"),
    ("tw.gr", "c pace\np tw 4 3\n1 2\n2 3\n\n3 4"),
    ("ours.gr", "c gravel: undirected, weighted\np sp 3 4\na 1 2 5\na 2 1 5\na 2 3 1\na 3 2 1\n"),
    ("header.txt", "# gravel edge list: 6 vertices, undirected, weighted\n0 1 2\n1 2 3.5\n"),
]


@pytest.mark.parametrize("piece", [5, 13, 64, 1 << 20])
@pytest.mark.parametrize("name,text", TRICKY, ids=[t[0] for t in TRICKY])
def test_tricky_texts_read_as_the_cpu_reads_them(tmp_path, name, text, piece):
    path = write(tmp_path, name, text)
    G, tokenized = load_by(np, path, piece)
    same(G, gravel.load(path, cache=False))
    assert tokenized == 0  # every piece read by whole-array operations


@pytest.mark.parametrize("piece", [7, 1 << 20])
@pytest.mark.parametrize(
    "text",
    ["0 1 nan\n1 2 inf\n2 0 -Infinity\n", "0 1 1" + "0" * 40 + "\n", "0 1 1e-99999\n"],
)
def test_what_the_arrays_leave_out_the_tokenizer_reads(tmp_path, text, piece):
    path = write(tmp_path, "g.txt", text)
    G, tokenized = load_by(np, path, piece)
    same(G, gravel.load(path, cache=False))
    assert tokenized > 0


@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("relabel", [False, True])
@pytest.mark.parametrize("dedupe", [False, True])
def test_options_of_load_build_the_same_graph(tmp_path, undirected, relabel, dedupe):
    text = "# ids\n5 9 1.5\n9 5 0.5\n5 9 -1\n7 7 2\n9 12 3\n5 9 nan\n"
    path = write(tmp_path, "g.txt", text)
    options = {"undirected": undirected, "relabel": relabel, "dedupe": dedupe}
    G, _ = load_by(np, path, 11, **options)
    same(G, gravel.load(path, cache=False, **options))
    G, _ = load_by(np, path, 11, weighted=False)
    same(G, gravel.load(path, cache=False, weighted=False))


_WRITTEN = st.sampled_from(["g.mtx", "g.txt", "g.csv", "g.gr", "g.mtx.gz", "g.gr.gz"])


@settings(max_examples=20, deadline=None)
@given(data=st.data(), piece=st.integers(5, 300), fmt=_WRITTEN)
def test_every_written_format_reads_as_the_cpu_reads_it(tmp_path_factory, data, piece, fmt):
    G = data.draw(graphs(max_n=40, max_m=150, weighted=data.draw(st.booleans())))
    path = tmp_path_factory.mktemp("t") / fmt
    gravel.save(G, path)
    H, tokenized = load_by(np, path, piece, dedupe=False)
    same(H, gravel.load(path, cache=False, dedupe=False))
    if G.weights is None or np.isfinite(G.weights).all():
        assert tokenized == 0


@settings(max_examples=20, deadline=None)
@given(case=edge_texts(), piece=st.integers(5, 400), undirected=st.booleans())
def test_random_edge_lists_read_as_the_cpu_reads_them(tmp_path_factory, case, piece, undirected):
    text, _ = case
    path = tmp_path_factory.mktemp("t") / "g.txt"
    path.write_bytes(text.encode())
    G, tokenized = load_by(np, path, piece, undirected=undirected)
    same(G, gravel.load(path, cache=False, undirected=undirected))
    assert tokenized == 0


def _written(value, style, digits, sign):
    """A weight as a file may write it."""
    text = {
        "repr": repr(value),
        "e": f"{value:.{digits}e}",
        "E": f"{value:.{digits}E}",
        "f": f"{math.fmod(value, 1e5):.{digits % 10}f}",
        "g": f"{value:.{digits + 1}g}",
    }[style]
    return "+" + text if sign and not text.startswith("-") else text


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(
        st.tuples(
            st.floats(-1e30, 1e30, allow_nan=False, allow_infinity=False),
            st.sampled_from(["repr", "e", "E", "f", "g"]),
            st.integers(0, 14),
            st.booleans(),
        ),
        min_size=1,
        max_size=40,
    ),
    piece=st.integers(8, 200),
)
def test_weights_are_the_tokenizers_bit_for_bit(tmp_path_factory, values, piece):
    lines = [f"{k} {k + 1} {_written(*v)}" for k, v in enumerate(values)]
    path = tmp_path_factory.mktemp("t") / "g.txt"
    path.write_text("\n".join(lines) + "\n")
    G, tokenized = load_by(np, path, piece, dedupe=False)
    same(G, gravel.load(path, cache=False, dedupe=False))
    assert tokenized == 0


@pytest.mark.parametrize("piece", [6, 1 << 20])
@pytest.mark.parametrize("name,text,match", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_files_give_the_cpu_readers_error(tmp_path, name, text, match, piece):
    path = write(tmp_path, name, text)
    expected = error_of(lambda p: gravel.load(p, cache=False), path)
    assert error_of(lambda p: load_by(np, p, piece), path) == expected


MORE_MALFORMED = [
    ("g.txt", "0 1\n1 2 3\n"),
    ("g.txt", "0 1 1\n1 2 x\n"),
    ("g.txt", "0 1 2\n1 2 1e\n"),
    ("g.txt", "0 1 2\n1 2 1.5.5\n"),
    ("g.txt", "0 1 2\n1 2 --1\n"),
    ("g.txt", "0 1 2\n1 2 .\n"),
    ("g.txt", "0 1\n1 2 # note\n"),
    ("g.csv", "0,1,\n1,2,,\n"),
    ("g.csv", "0,1\n , \n"),
    ("g.csv", "0,1\n,# x\n"),
    ("g.gr", "p sp 2 2\na 1 2 1\na\n"),
    ("g.gr", "p sp 2 2\na 1 2 1\na,,1 2 1\n"),
    ("g.gr", "p sp 2 2\na 1 2 1\nab 1 2 1\n"),
    ("g.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 3\n2 1 1.5\n"),
    ("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n2 1\n"),
    ("g.txt", "# gravel edge list: 2 vertices, directed\n0 1\n1 5\n"),
]


@pytest.mark.parametrize("piece", [5, 9, 1 << 20])
@pytest.mark.parametrize("name,text", MORE_MALFORMED)
def test_more_malformed_lines_give_the_cpu_readers_error(tmp_path, name, text, piece):
    path = write(tmp_path, name, text)
    expected = error_of(lambda p: gravel.load(p, cache=False), path)
    assert error_of(lambda p: load_by(np, p, piece), path) == expected


@settings(max_examples=20, deadline=None)
@given(
    case=edge_texts(),
    piece=st.integers(5, 400),
    at=st.integers(0, 10**6),
    bad=st.sampled_from(["x y", "1 -2", "1.5 2", "3", "1,,2", "1 2 3 4", "1 2 nanx", ",1 2"]),
)
def test_an_error_names_the_line_the_cpu_reader_names(tmp_path_factory, case, piece, at, bad):
    text, _ = case
    lines = text.split("\n")
    lines.insert(at % (len(lines) + 1), bad)
    path = tmp_path_factory.mktemp("t") / "g.txt"
    path.write_text("\n".join(lines))
    expected = error_of(lambda p: gravel.load(p, cache=False), path)
    assert error_of(lambda p: load_by(np, p, piece), path) == expected


_BYTES = st.lists(st.sampled_from(list(b"0123456789") * 3 + list(b"  \t\r\n\n,#%.-+eEac")))


def tokenized(buf, comments, prefix):
    """The tokenizer's reading of `buf`: (src, dst, weights or None, columns, lines, error)."""
    from gravel.backends.cpu.text import parse_lines

    cap = int(np.count_nonzero(buf == 10)) + 1
    src, dst, w = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap)
    marks = np.frombuffer(comments, np.uint8)
    rows, columns, err, line = parse_lines(buf, marks, prefix[0] if prefix else 0, src, dst, w)
    return src[:rows], dst[:rows], w[:rows] if columns == 3 else None, columns, line, err


def same_rows(got, expected):
    assert (got.columns, got.lines, got.error) == expected[3:]
    assert np.array_equal(host(got.src), expected[0]) and np.array_equal(host(got.dst), expected[1])
    assert (got.weights is None) == (expected[2] is None)
    if got.weights is not None:
        assert np.array_equal(host(got.weights).view(np.int64), expected[2].view(np.int64))


@settings(max_examples=300, deadline=None)
@given(text=_BYTES, dimacs=st.booleans())
def test_a_piece_is_the_tokenizers_or_left_to_it(text, dimacs):
    """Random bytes of the formats' alphabet: the rows the tokenizer reads, or None; None always
    where the tokenizer names an error."""
    buf = np.array(text, np.uint8)
    comments, prefix = (b"c", b"a") if dimacs else (b"#%", b"")
    expected = tokenized(buf, comments, prefix)
    got = device_text.parse_piece(np, buf, comments, prefix)
    if expected[5] != 0:
        assert got is None
    elif got is not None:
        same_rows(got, expected)


@settings(max_examples=30, deadline=None)
@given(
    arcs=st.lists(
        st.tuples(
            st.integers(0, 7),
            st.integers(0, 7),
            st.sampled_from([0.0, -0.0, 1.0, -2.5, 3.0, np.nan, np.inf]),
        ),
        max_size=40,
    ),
    directed=st.booleans(),
    dedupe=st.booleans(),
    weighted=st.booleans(),
)
def test_device_csr_is_from_edge_blocks_bit_for_bit(arcs, directed, dedupe, weighted):
    src = np.array([a[0] for a in arcs], np.int32)
    dst = np.array([a[1] for a in arcs], np.int32)
    w = np.array([a[2] for a in arcs], np.float32) if weighted else None
    half = len(arcs) // 2
    blocks = [(src[:half], dst[:half], w[:half] if weighted else None)]
    blocks.append((src[half:], dst[half:], w[half:] if weighted else None))
    G = device_csr.graph_of(np, blocks, 8, directed, dedupe, weighted)
    assert blocks == []
    expected = gravel.Graph.from_edges(src, dst, w, n=8, directed=directed, dedupe=dedupe)
    same(G, expected)


def test_pieces_are_read_ahead_into_buffers_of_their_own():
    import threading
    import time

    from gravel.io._ahead import host_buffers, read_ahead

    made = []

    def written(buffers):  # as Text.chunks: each piece written into the buffer asked for last
        for k in range(1, 7):
            buf = buffers(k)
            assert buf.shape[0] >= k
            if k == 3:  # a line longer than the buffer: a larger one in its place
                buf = buffers(2 * k)
                assert buf.shape[0] >= 2 * k
            buf[:k] = k
            made.append(k)
            yield buf[:k]
        raise gravel.GraphFormatError("truncated gzip file", "g.txt.gz")

    got = []
    with pytest.raises(gravel.GraphFormatError, match="truncated gzip"):
        for piece in read_ahead(written, host_buffers(np)):
            ahead = min(piece.shape[0] + 1, 6)  # the piece the reader reads while this is held
            deadline = time.monotonic() + 10
            while made[-1] < ahead and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(0.02)  # time to run further, which it must not
            assert made[-1] == ahead
            assert piece.tolist() == [piece.shape[0]] * piece.shape[0]  # not written meanwhile
            got.append(piece.copy())
    assert [p.tolist() for p in got] == [[k] * k for k in range(1, 7)]
    before = threading.active_count()
    parts = read_ahead(lambda buffers: (buffers(3)[:3] for _ in range(100)), host_buffers(np))
    next(parts)
    parts.close()  # the caller stops early: the reading thread ends
    assert threading.active_count() == before


def test_a_line_longer_than_a_piece_read_ahead_doubles_its_buffer(tmp_path, monkeypatch):
    from functools import partial

    from gravel.io import _ahead, _files

    monkeypatch.setattr(_files, "TEXT_CHUNK", 1)
    monkeypatch.setattr(_files, "HEAD_BYTES", 1)
    text = b"0 1\n" + b"7" * 200_000 + b" 2\n1 2\n"
    path = tmp_path / "long.txt"
    path.write_bytes(text)
    sizes = []

    def empty(size):
        sizes.append(size)
        return np.empty(size, np.uint8)

    with _files.Text(path, False) as t:
        pieces = [p.tobytes() for p in _ahead.read_ahead(partial(t.chunks, 4096), empty)]
    assert b"".join(pieces) == text
    assert len(sizes) < 20  # the line's buffer doubled each time, not grown a byte at a time


def test_a_pinned_buffer_that_cannot_be_had_is_a_pinned_memory_error(monkeypatch):
    """cudaHostAlloc failing (the host's pinned memory spent): one PinnedMemoryError naming the
    size, not CuPy's error from deep in the read-ahead. CuPy stood in for by modules that fail
    as it does."""
    import sys
    import types

    from gravel.io._ahead import host_buffers

    class CUDARuntimeError(RuntimeError):
        pass

    def empty_pinned(size, dtype):
        raise CUDARuntimeError("cudaErrorMemoryAllocation: out of memory")

    runtime = types.SimpleNamespace(CUDARuntimeError=CUDARuntimeError)
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=runtime)
    cupyx = types.ModuleType("cupyx")
    cupyx.empty_pinned = empty_pinned
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    empty = host_buffers(cupy)
    with pytest.raises(gravel.errors.PinnedMemoryError, match="pinning a 268,435,456-byte buffer"):
        empty(1 << 28)


def test_a_truncated_gzip_gives_the_cpu_readers_error(tmp_path):
    G = gravel.generate.kronecker(9, progress=False, device="cpu")
    gravel.save(G, tmp_path / "g.mtx.gz")
    data = (tmp_path / "g.mtx.gz").read_bytes()
    (tmp_path / "g.mtx.gz").write_bytes(data[: len(data) // 2])
    path = tmp_path / "g.mtx.gz"
    expected = error_of(lambda p: gravel.load(p, cache=False), path)
    assert error_of(lambda p: load_by(np, p, 4096), path) == expected


def test_the_powers_of_ten_are_the_tokenizers():
    powers = device_text.powers_of_ten()
    low = device_text.WEIGHT_CHARS + 10**device_text.EXPONENT_DIGITS
    assert powers[low] == 1.0 and powers[low + 3] == 1000.0 and powers[low - 1] == 0.1
    assert powers[0] == 0.0 and np.isinf(powers[-1])


def test_device_choice(tmp_path, monkeypatch):
    from gravel.backends import cuda

    path = write(tmp_path, "g.txt", "0 1\n1 2\n")
    with pytest.raises(gravel.UnknownNameError, match="unknown device 'gpu'"):
        gravel.load(path, cache=False, device="gpu")
    monkeypatch.setattr(cuda, "available", lambda: False)
    with pytest.raises(gravel.DeviceUnavailableError, match="device='cuda'"):
        gravel.load(path, cache=False, device="cuda")
    same(gravel.load(path, cache=False, device="auto"), gravel.load(path, cache=False))


# on the GPU -------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("piece", [13, 1 << 20])
@pytest.mark.parametrize("name,text", TRICKY, ids=[t[0] for t in TRICKY])
def test_gpu_reads_tricky_texts_as_the_cpu_reads_them(tmp_path, name, text, piece):
    import cupy

    path = write(tmp_path, name, text)
    G, tokenized = load_by(cupy, path, piece)
    same(G, gravel.load(path, cache=False))
    assert tokenized == 0


@pytest.mark.gpu
@settings(max_examples=20, deadline=None)
@given(data=st.data(), piece=st.integers(5, 300), fmt=_WRITTEN)
def test_gpu_reads_every_written_format_as_the_cpu_reads_it(tmp_path_factory, data, piece, fmt):
    import cupy

    G = data.draw(graphs(max_n=40, max_m=150, weighted=data.draw(st.booleans())))
    path = tmp_path_factory.mktemp("t") / fmt
    gravel.save(G, path)
    H, _ = load_by(cupy, path, piece, dedupe=False)
    same(H, gravel.load(path, cache=False, dedupe=False))


@pytest.mark.gpu
@pytest.mark.parametrize("name,text", MORE_MALFORMED)
def test_gpu_gives_the_cpu_readers_errors(tmp_path, name, text):
    import cupy

    path = write(tmp_path, name, text)
    expected = error_of(lambda p: gravel.load(p, cache=False), path)
    assert error_of(lambda p: load_by(cupy, p, 9), path) == expected


@pytest.mark.gpu
@pytest.mark.parametrize("fmt", ["g.txt", "g.mtx", "g.gr", "g.csv.gz"])
def test_load_on_cuda_is_the_cpu_load(tmp_path, fmt):
    import cupy

    G = gravel.generate.kronecker(14, progress=False, device="cpu")
    G = gravel.transform.add_random_weights(G, seed=3) if fmt == "g.gr" else G
    path = tmp_path / fmt
    gravel.save(G, path)
    H = gravel.load(path, cache=False, device="cuda")
    assert isinstance(H.device_graph.indices, cupy.ndarray)  # kept on the device
    same(H, gravel.load(path, cache=False))
    source = int(np.flatnonzero(np.diff(G.offsets))[0])
    depth = host(gravel.bfs(H, source, device="cuda").depth)
    assert np.array_equal(depth, gravel.bfs(G, source, device="cpu").depth)


@pytest.mark.gpu
@settings(max_examples=100, deadline=None)
@given(case=edge_texts(), text=_BYTES, dimacs=st.booleans())
def test_gpu_pieces_are_the_tokenizers(case, text, dimacs):
    import cupy

    comments, prefix = (b"c", b"a") if dimacs else (b"#%", b"")
    for piece in (np.frombuffer(case[0].encode(), np.uint8), np.array(text, np.uint8)):
        expected = tokenized(piece, comments, prefix)
        got = device_text.parse_piece(cupy, cupy.asarray(piece), comments, prefix)
        assert (got is None) == (device_text.parse_piece(np, piece, comments, prefix) is None)
        if got is not None:
            same_rows(got, expected)
