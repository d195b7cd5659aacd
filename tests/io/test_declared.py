"""Sizes a header declares are checked before anything is allocated for them (issue 17)."""

import numpy as np
import pytest

import gravel
from gravel.errors import GraphFormatError, GraphTooLargeError
from gravel.io import _declared

MTX = "%%MatrixMarket matrix coordinate pattern general\n{n} {n} {m}\n1 2\n2 3\n3 1\n"
GR = "p sp {n} {m}\na 1 2 1\na 2 3 1\na 3 1 1\n"
EDGES = "# gravel edge list: {n} vertices, directed\n0 1\n1 2\n2 0\n"
FORMATS = {"g.mtx": MTX, "g.gr": GR}
#: formats whose header declares a vertex count (a gravel edge list declares no edge count)
VERTEX_COUNTS = FORMATS | {"g.txt": EDGES}


def write(tmp_path, name, template, **sizes):
    p = tmp_path / name
    p.write_text(template.format(**sizes))
    return p


@pytest.fixture
def no_graph_built(monkeypatch):
    """Fail the test if a graph's arrays are built."""

    def refuse(*args, **kwargs):
        raise AssertionError("the graph was built")

    monkeypatch.setattr(gravel.Graph, "from_edges", refuse)


@pytest.mark.parametrize("name", list(VERTEX_COUNTS))
def test_issue_17_a_vertex_count_past_int32_names_file_and_value(tmp_path, name, no_graph_built):
    p = write(tmp_path, name, VERTEX_COUNTS[name], n=10**12, m=3)
    with pytest.raises(GraphFormatError, match=r"1,000,000,000,000 vertices") as e:
        gravel.load(p, cache=False)
    assert str(p) in str(e.value) and e.value.path == p


@pytest.mark.parametrize("name", list(VERTEX_COUNTS))
def test_issue_17_a_vertex_count_beyond_memory_is_refused(
    tmp_path, name, monkeypatch, no_graph_built
):
    monkeypatch.setattr(_declared, "host_free_bytes", lambda: 2**30)  # 1 GiB available
    p = write(tmp_path, name, VERTEX_COUNTS[name], n=10**8, m=3)  # 24 bytes a vertex: 2.24 GiB
    with pytest.raises(
        GraphTooLargeError, match=r"100,000,000 vertices.* 2\.24 GiB.* 1\.00 GiB of memory avail"
    ) as e:
        gravel.load(p, cache=False)
    assert str(p) in str(e.value) and isinstance(e.value, MemoryError)


@pytest.mark.parametrize("name", list(FORMATS))
@pytest.mark.parametrize("sizes", [{"n": -3, "m": 3}, {"n": 3, "m": -3}], ids=["n", "m"])
def test_negative_counts_are_format_errors(tmp_path, name, sizes, no_graph_built):
    p = write(tmp_path, name, FORMATS[name], **sizes)
    with pytest.raises(GraphFormatError, match="negative") as e:
        gravel.load(p, cache=False)
    assert str(p) in str(e.value)


@pytest.mark.parametrize("name", list(FORMATS))
def test_issue_17_a_huge_entry_count_on_three_lines_is_truncation(tmp_path, name):
    p = write(tmp_path, name, FORMATS[name], n=3, m=10**12)
    with pytest.raises(GraphFormatError, match="1000000000000 .*ends after 3"):
        gravel.load(p, cache=False)


@pytest.mark.parametrize("name", list(VERTEX_COUNTS))
def test_declared_isolated_vertices_load(tmp_path, name):
    G = gravel.load(write(tmp_path, name, VERTEX_COUNTS[name], n=100_000, m=3), cache=False)
    assert G.n == 100_000 and G.nnz == 3
    assert np.array_equal(G.out_degree[:4], [1, 1, 1, 0])
