"""Files as a user meets them (issue 17): sparse ids, directories, byte-order marks, headers that
disagree with the data, damaged caches, round trips of every written format, and what writes
leave behind."""

import gzip
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.lib import format as npformat

import gravel
from gravel import transform


def write(tmp_path, name, data):
    p = tmp_path / name
    data = data.encode() if isinstance(data, str) else data
    p.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return p


# sparse ids


def test_issue_17_sparse_ids_are_refused_before_allocating(tmp_path):
    p = write(tmp_path, "sparse.txt", "0 1\n1 1000000000\n")
    with pytest.raises(gravel.GraphFormatError, match=r"sparse.txt: .*relabel=True.*--relabel"):
        gravel.load(p)
    G = gravel.load(p, relabel=True)
    assert G.n == 3 and G.labels.tolist() == [0, 1, 1_000_000_000] and G.nnz == 2


def test_ids_with_a_few_gaps_are_kept(tmp_path):
    # a million vertices cost 8 MB of offsets: kept as written, whatever the edge count
    p = write(tmp_path, "gaps.txt", "0 1\n5 999999\n")
    assert gravel.load(p).n == 1_000_000


# paths and bytes


def test_issue_17_a_directory_is_not_a_missing_file(tmp_path):
    with pytest.raises(gravel.GraphFormatError, match="is a directory"):
        gravel.load(tmp_path)


@pytest.mark.parametrize(
    "name,text",
    [
        ("bom.txt", "0 1\n1 2\n"),
        ("bom.txt.gz", "# c\n0 1\n1 2\n"),
        ("bom.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n"),
        ("bom.gr", "p sp 3 2\na 1 2 1\na 2 3 1\n"),
    ],
)
def test_issue_17_utf8_byte_order_mark_is_accepted(tmp_path, name, text):
    G = gravel.load(write(tmp_path, name, b"\xef\xbb\xbf" + text.encode()), cache=False)
    assert G.n == 3 and G.nnz == 2


@pytest.mark.parametrize(
    "name,text,match",
    [
        (
            "more.mtx",
            "%%MatrixMarket matrix coordinate pattern general\n% c\n2 2 1\n1 2\n\n2 1\n",
            r"more.mtx, line 6: more entries than the 1 the header declares",
        ),
        ("more.gr", "p sp 2 1\na 1 2 1\nc x\na 2 1 1\n", r"more.gr, line 4: more arcs than"),
        (
            "fewer.mtx",
            "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n",
            r"fewer.mtx: header declares 3 entries, the file ends after 1 \(truncated\?\)",
        ),
    ],
)
def test_issue_17_entry_counts_that_disagree_with_the_header(tmp_path, name, text, match):
    with pytest.raises(gravel.GraphFormatError, match=match):
        gravel.load(write(tmp_path, name, text), cache=False)


# the binary cache and .gravel files


def _cache_of(cache):
    (cached,) = cache.glob("*.gravel")
    return cached


def _edit(path, old, new):
    data = path.read_bytes()
    assert data.count(old.tobytes()) == 1
    path.write_bytes(data.replace(old.tobytes(), new.tobytes()))


def test_issue_17_a_cache_edited_in_place_is_rebuilt_with_one_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(tmp_path / "cache"))
    p = write(tmp_path, "g.txt", "0 1\n1 2\n2 3\n3 4\n")
    G = gravel.load(p)
    cached = _cache_of(tmp_path / "cache")
    # same size, still a valid graph: only the checksum tells
    _edit(cached, np.array([1, 2, 3, 4], np.int32), np.array([1, 2, 3, 3], np.int32))
    with pytest.warns(UserWarning, match=rf"g.txt: .*{cached.name}: checksum mismatch"):
        assert gravel.load(p) == G
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gravel.load(p) == G  # rebuilt: no second warning
    # an id out of range is caught the same way, never an error that names neither file
    _edit(cached, np.array([1, 2, 3, 4], np.int32), np.array([1, 2, 3, 99], np.int32))
    with pytest.warns(UserWarning, match="rebuilding the binary cache"):
        assert gravel.load(p) == G


@pytest.mark.parametrize("damage", ["edit", "truncate", "out_of_range_v1"])
def test_issue_17_a_damaged_gravel_file_is_an_error_naming_it(tmp_path, damage):
    from gravel.io import binary

    p = tmp_path / "g.gravel"
    gravel.save(gravel.generate.grid(3, 3), p)
    if damage == "edit":
        data = bytearray(p.read_bytes())
        data[-5] ^= 1
        p.write_bytes(bytes(data))
        match = "checksum mismatch"
    elif damage == "truncate":
        p.write_bytes(p.read_bytes()[:-7])
        match = "truncated"
    else:
        # a version 1 file (no checksum) whose arc points past the last vertex
        with open(p, "wb") as f:
            for a in (np.array([binary.MAGIC, 1, 1, 0, 0]), np.array([0, 1]), np.array([5])):
                npformat.write_array(f, a)
        match = "out of range"
    with pytest.raises(gravel.GraphFormatError, match=rf"g.gravel: .*{match}"):
        gravel.load(p)


def test_version_1_files_are_still_read(tmp_path):
    from gravel.io import binary

    p = tmp_path / "old.gravel"
    with open(p, "wb") as f:
        for a in (np.array([binary.MAGIC, 1, 0, 1, 0]), np.array([0, 1, 2]), np.array([1, 0])):
            npformat.write_array(f, a)
        npformat.write_array(f, np.array([2.5, 2.5], np.float32))
    G = gravel.load(p)
    assert not G.directed and G.n == 2 and G.weights.tolist() == [2.5, 2.5]


# round trips


@st.composite
def written_graphs(draw):
    """Small graphs as gravel writes them: either direction, trailing isolated vertices, float32
    weights from 0 to inf (or none), no parallel arcs (loading merges them)."""
    n = draw(st.integers(0, 12))
    m = draw(st.integers(0, 30)) if n else 0
    ids = st.lists(st.integers(0, n - 1), min_size=m, max_size=m) if n else st.just([])
    src, dst = np.array(draw(ids), np.int64), np.array(draw(ids), np.int64)
    w = None
    if draw(st.booleans()):
        values = st.floats(-(2.0**100), np.inf, width=32, allow_nan=False)
        w = np.array(draw(st.lists(values, min_size=m, max_size=m)), np.float32)
    extra = draw(st.integers(0, 3))
    G = gravel.Graph.from_edges(src, dst, w, n=n + extra, directed=draw(st.booleans()))
    return transform.deduplicate(G)


WRITTEN = ["g.mtx", "g.mtx.gz", "g.txt", "g.txt.gz", "g.csv", "g.gr", "g.gr.gz", "g.gravel"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(written_graphs())
def test_issue_17_every_written_format_round_trips(tmp_path_factory, G):
    d = tmp_path_factory.mktemp("rt")
    for name in WRITTEN:
        H = gravel.load(gravel.save(G, d / name), cache=False)
        assert (H.n, H.directed, H.weighted) == (G.n, G.directed, G.weighted), name
        assert H == G, name


def test_issue_17_convert_grid_to_edge_list_keeps_it_undirected(tmp_path, capsys):
    from gravel.cli import main

    out = tmp_path / "g.txt"
    grid = gravel.generate.grid(3, 3)
    assert main(["convert", "grid:3x3", str(out)]) == 0
    assert "undirected" in out.read_text().splitlines()[0]
    assert gravel.load(out) == grid
    # isolated trailing vertices survive, and undirected=True still symmetrizes a directed list
    G = gravel.Graph.from_edges([0], [1], n=4)
    H = gravel.load(gravel.save(G, tmp_path / "d.txt"), undirected=True, cache=False)
    assert (H.n, H.directed, H.m) == (4, False, 1)


def test_gravel_edge_list_header_bounds_the_ids(tmp_path):
    p = write(tmp_path, "h.txt", "# gravel edge list: 3 vertices, directed\n0 1\n# c\n1 3\n")
    with pytest.raises(gravel.GraphFormatError, match=r"h.txt, line 4: vertex 3 outside 0..2"):
        gravel.load(p)


# what writes leave behind


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_issue_17_written_files_respect_the_umask(tmp_path, umask):
    import os

    old = os.umask(umask)
    try:
        p = gravel.save(gravel.generate.grid(2, 2), tmp_path / "g.mtx")
    finally:
        os.umask(old)
    assert p.stat().st_mode & 0o777 == 0o666 & ~umask


def test_issue_17_stale_temporaries_are_removed_on_the_next_write(tmp_path):
    import os
    import subprocess

    from gravel.io import _atomic

    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs: the writer was killed
    stale = tmp_path / f".g.txt.{_atomic._HOST}-{dead.pid}-0a0b0c0d.gravel-tmp"
    alive = tmp_path / f".g.txt.{_atomic._HOST}-{os.getpid()}-0a0b0c0d.gravel-tmp"
    foreign = tmp_path / ".g.txt.ffffffff-1-0a0b0c0d.gravel-tmp"  # another host, just now
    other = tmp_path / ".hidden"
    for p in (stale, alive, foreign, other):
        p.write_text("partial")
    gravel.save(gravel.generate.grid(2, 2), tmp_path / "h.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [alive.name, foreign.name, other.name, "h.txt"]
    )


def test_write_errors_name_the_path_not_a_temporary(tmp_path):
    target = tmp_path / "missing" / "g.mtx"
    with pytest.raises(FileNotFoundError) as e:
        gravel.save(gravel.generate.grid(2, 2), target)
    assert e.value.filename == str(target) and "gravel-tmp" not in str(e.value)


def test_issue_18_gravel_files_are_mapped_not_read(tmp_path):
    p = tmp_path / "g.gravel"
    # 5 arcs: the labels that follow them start 4 bytes off an 8-byte boundary
    G = gravel.Graph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 3, 0], labels=[10, 11, 12, 13])
    gravel.save(G, p)
    H = gravel.load(p)
    assert H == G and H.labels.tolist() == [10, 11, 12, 13]
    for a in (H.offsets, H.indices):
        assert not a.flags.owndata and not a.flags.writeable  # a view of the mapped file


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")), max_size=60),
    chunk=st.integers(1, 300),
    part=st.integers(1, 50),
    buffers=st.booleans(),
)
def test_text_chunks_read_in_parts_are_the_files_bytes(
    tmp_path_factory, lines, chunk, part, buffers
):
    """Text.chunks with each fill read in parts on several threads (READ_PART), into the one
    buffer or into buffers handed to it: whole lines, which joined are the file. Its first line
    is "#": no gzip signature, byte-order mark or text of CR line ends to set apart."""
    from gravel.io import _files

    data = b"#\n" + b"\n".join(lines)
    path = tmp_path_factory.mktemp("text") / "t.txt"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_files, "READ_PART", part)
        m.setattr(_files, "TEXT_CHUNK", 1)  # the head as short: every chunk's fill reads
        m.setattr(_files, "HEAD_BYTES", 1)
        with _files.Text(path, False) as text:
            take = (lambda size: np.empty(size, np.uint8)) if buffers else None
            got = [piece.tobytes() for piece in text.chunks(chunk, take)]
    assert b"".join(got) == data
    assert all(piece.endswith(b"\n") for piece in got[:-1])
