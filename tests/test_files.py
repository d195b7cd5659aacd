"""Files as a user meets them (issue 17): sparse ids, directories, byte-order marks, headers that
disagree with the data, damaged caches, round trips of every written format, and what writes
leave behind."""

import gzip

import pytest

import gravel


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
