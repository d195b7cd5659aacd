"""benchmarks/gunrock.py: the binary CSR files it writes for Gunrock (read back as Gunrock's
``read_binary`` reads them, written out here), its reading of Gunrock's output, and its checks, fed
answers from NetworkX and SciPy printed the way Gunrock's apps print them."""

import subprocess
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from scipy.sparse.csgraph import dijkstra

import gravel
from gravel.cli import open_graph
from tests.strategies import graphs

from .helpers import BENCHMARKS, FAKE_BFS, script

gunrock = script("gunrock")
BIN = BENCHMARKS.parent / "third_party" / "gunrock-bin"


@pytest.fixture(scope="module")
def pair():
    G = open_graph("kron:7")[0].simple_undirected()
    return G, gravel.transform.add_random_weights(G, 1, 255, seed=1)


def read_csr(path):
    """A file as Gunrock's patched ``csr_t::read_binary`` reads it: int32 rows, columns and
    nonzeros, then int32 offsets, int32 column indices and float32 values."""
    with open(path, "rb") as f:
        rows, cols, nnz = np.fromfile(f, np.int32, 3).tolist()
        offsets = np.fromfile(f, np.int32, rows + 1)
        indices = np.fromfile(f, np.int32, nnz)
        values = np.fromfile(f, np.float32, nnz)
        assert f.read() == b""  # nothing after the values
    return rows, cols, offsets, indices, values


def host_rows(G, weights=None):
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    rows = [[] for _ in range(G.n)]
    w = np.ones(len(src)) if weights is None else np.float32(weights)
    for s, d, x in zip(src.tolist(), G.indices.tolist(), w.tolist()):
        rows[s].append((d, x))
    return [sorted(r) for r in rows]


@settings(max_examples=30, deadline=None)
@given(graphs(max_n=30, max_m=80, weighted=True))
def test_csr_file_reads_back_as_the_graph(tmp_path_factory, G):
    """Every arc with its weight (1 without), each row's targets ascending (TC intersects rows)."""
    path = tmp_path_factory.mktemp("csr") / "g.csr"
    gunrock.write_csr(path, G, weights=G.weights)
    rows, cols, offsets, indices, values = read_csr(path)
    assert rows == cols == G.n and np.array_equal(offsets, G.offsets)
    got = [
        list(zip(indices[a:b].tolist(), values[a:b].tolist()))
        for a, b in zip(offsets[:-1], offsets[1:])
    ]
    assert [sorted(r) for r in got] == host_rows(G, G.weights)
    assert all(np.all(np.diff(indices[a:b]) >= 0) for a, b in zip(offsets[:-1], offsets[1:]))


def test_csr_file_sorts_rows_a_trusted_graph_left_unsorted(tmp_path):
    G = gravel.Graph.from_csr(
        np.array([0, 3, 3, 3]), np.array([2, 0, 1]), np.array([3.0, 1.0, 2.0]), trusted=True
    )
    _, _, _, indices, values = read_csr(gunrock.write_csr(tmp_path / "g.csr", G, G.weights))
    assert indices.tolist() == [0, 1, 2] and values.tolist() == [1.0, 2.0, 3.0]


def test_csr_file_refuses_a_name_gunrock_would_parse_as_text_and_too_many_arcs(tmp_path):
    from types import SimpleNamespace

    G = gravel.Graph.from_edges([0, 1], [1, 2], n=3)
    with pytest.raises(ValueError, match="ending in .csr"):
        gunrock.write_csr(tmp_path / "g.mtx", G)
    with pytest.raises(ValueError, match=f"{G.nnz + 1} values for {G.nnz} arcs"):
        gunrock.write_csr(tmp_path / "g.csr", G, weights=np.ones(G.nnz + 1))
    with pytest.raises(ValueError, match="int32"):
        gunrock.write_csr(tmp_path / "g.csr", SimpleNamespace(n=3, nnz=2**31))
    assert not (tmp_path / "g.csr").exists()


def printed(name, values, source=0, ms=1.25, extra=""):
    """An app's output, as its print statements write it (GUNROCK_PRINT_ALL set)."""
    label = gunrock.LABELS[name]
    text = f"Source : {source}\n" if name in ("bfs", "sssp") else ""
    text += f"Single source : {source}\n" if name == "bc" else ""
    cells = " ".join(repr(float(x)) if isinstance(x, float) else str(x) for x in values)
    text += f"{label}[:{len(values)}] = {cells} \n{extra}GPU Elapsed Time : {ms} (ms)\n"
    return text


def answers(G, W, source):
    """Each app's per-vertex result as Gunrock's conventions give it, from NetworkX and SciPy."""
    N = G.to_networkx()
    depth = np.full(G.n, 2**31 - 1, np.int64)
    for v, d in nx.single_source_shortest_path_length(N, source).items():
        depth[v] = d
    A = W.to_scipy()
    distance = dijkstra(A, indices=source).astype(np.float32)
    distance[np.isinf(distance)] = np.finfo(np.float32).max
    rank = nx.pagerank(N, alpha=0.85, tol=1e-12)
    half = nx.betweenness_centrality_subset(N, [source], list(N), normalized=False)
    tri = nx.triangles(N)
    return {
        "bfs": depth.tolist(),
        "sssp": distance.tolist(),
        "pagerank": [float(np.float32(rank[v])) for v in range(G.n)],
        "bc": [float(np.float32(half[v])) for v in range(G.n)],
        "tc": [tri[v] for v in range(G.n)],
    }


@pytest.mark.parametrize("name", gunrock.ALGOS)
def test_right_answers_pass_and_a_wrong_value_fails(pair, name):
    G, W = pair
    source = int(np.argmax(G.out_degree))
    values = answers(G, W, source)[name]
    extra = f"Total Graph Traingles : {sum(values)}\n" if name == "tc" else ""
    out = gunrock.parse_output(printed(name, values, source, 3.5, extra), gunrock.LABELS[name])
    assert out["ms"] == 3.5
    assert gunrock.check(name, G, W, source, out) == []
    v = int(np.argmax(np.asarray(values) > 0) + 1) % G.n  # a reached vertex, or any
    wrong = list(values)
    wrong[v] = wrong[v] * 2 + 1
    out = gunrock.parse_output(printed(name, wrong, source), gunrock.LABELS[name])
    assert gunrock.check(name, G, W, source, out) != []


@pytest.mark.parametrize(("error", "passes"), [(2e-5, True), (1e-3, False)])
def test_bc_check_allows_float32_sums_only(pair, error, passes):
    G, W = pair
    source = int(np.argmax(G.out_degree))
    values = [v * (1 + error) for v in answers(G, W, source)["bc"]]
    out = gunrock.parse_output(printed("bc", values, source), gunrock.LABELS["bc"])
    assert (gunrock.check("bc", G, W, source, out) == []) == passes


def test_a_short_result_is_refused(pair):
    G, W = pair
    text = "GPU distances[:40] = 0 1 2\nGPU Elapsed Time : 0.52 (ms)\n"
    with pytest.raises(RuntimeError, match="40 values announced, 3 printed"):
        gunrock.parse_output(text, "GPU distances")
    text = "GPU distances[:3] = 0 1 1\nGPU Elapsed Time : 0.52 (ms)\n"
    out = gunrock.parse_output(text, "GPU distances")
    assert gunrock.check("bfs", G, W, 0, out) == [f"3 values for {G.n} vertices"]


def test_output_without_a_time_is_refused():
    with pytest.raises(RuntimeError, match="no time"):
        gunrock.parse_output("GPU rank[:2] = 0.5 0.5\n", "GPU rank")


def test_tc_total_must_sum_the_counts(pair):
    G, W = pair
    counts = answers(G, W, 0)["tc"]
    text = printed("tc", counts, extra=f"Total Graph Traingles : {sum(counts) + 3}\n")
    problems = gunrock.check("tc", G, W, 0, gunrock.parse_output(text, gunrock.LABELS["tc"]))
    assert problems == [f"total {sum(counts) + 3} is not the counts' sum {sum(counts)}"]


@pytest.mark.gpu
@pytest.mark.skipif(not (BIN / "COMMIT").exists(), reason="Gunrock's apps are not built here")
def test_gunrock_answers_pass_gravels_verifiers(pair):
    G, W = pair
    sources = np.argsort(G.out_degree)[-2:].astype(int).tolist()
    # an app that hangs fails its cell within a minute, not the device's whole call
    cells = gunrock.gunrock_cells(G, W, sources, BIN, repeat=2, algos=gunrock.ALGOS, timeout=60)
    problems = {name: cell["problems"] for name, cell in cells.items()}
    assert problems == {name: [] for name in gunrock.ALGOS}, validated(G, sources[-1], problems)
    assert all(cell["gunrock_s"] > 0 for cell in cells.values())


def validated(G, source, problems):
    """The failure's message: the problems, then what Gunrock's BFS says of itself with
    --validate (its answer beside its own CPU reference's), to tell a fault on the device from
    one in the file or in the reading of its output."""
    with tempfile.TemporaryDirectory() as folder:
        path = gunrock.write_csr(Path(folder) / "g.csr", G)
        cmd = [str(BIN / "bfs"), "-m", str(path), "-s", str(source), "--validate"]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            said = (run.stdout + run.stderr)[-3000:]
        except (OSError, subprocess.TimeoutExpired) as e:
            said = str(e)
    return f"{problems}\n{' '.join(cmd)}:\n{said}"


def test_cells_run_each_app_on_the_files_written(pair, tmp_path):
    """The fake BFS prints its time to one digit with its whole result, as the patched apps do:
    the answer comes from that run, the time from a second one."""
    import sys

    G, W = pair
    app = tmp_path / "bfs"
    app.write_text(FAKE_BFS.format(python=sys.executable))
    app.chmod(0o755)
    sources = np.argsort(G.out_degree)[-2:].astype(int).tolist()
    cells = gunrock.gunrock_cells(G, W, sources, tmp_path, repeat=3, algos=["bfs"])
    assert cells == {"bfs": {"gunrock_s": 0.75e-3, "problems": []}}
    # files written once for several calls are the ones the app reads: another graph's fail
    (tmp_path / "other").mkdir()
    H = gravel.generate.grid(16, 8)
    files = gunrock.graph_files(H, gravel.transform.add_random_weights(H), tmp_path / "other")
    other = gunrock.gunrock_cells(G, W, sources, tmp_path, repeat=3, algos=["bfs"], files=files)
    assert other["bfs"]["gunrock_s"] is None and other["bfs"]["problems"]


def test_a_failing_app_gives_a_failed_cell(pair, tmp_path):
    G, W = pair
    app = tmp_path / "tc"
    app.write_text("#!/bin/sh\necho 'Error: input matrix must be symmetric'\nexit 1\n")
    app.chmod(0o755)
    cells = gunrock.gunrock_cells(G, W, [0], tmp_path, repeat=1, algos=["tc"])
    assert cells["tc"]["gunrock_s"] is None
    assert cells["tc"]["problems"][0].endswith("exited 1: Error: input matrix must be symmetric")


def test_an_app_that_hangs_gives_a_failed_cell(pair, tmp_path):
    G, W = pair
    app = tmp_path / "bfs"
    app.write_text("#!/bin/sh\nexec sleep 60\n")
    app.chmod(0o755)
    cells = gunrock.gunrock_cells(G, W, [0], tmp_path, repeat=1, algos=["bfs"], timeout=0.5)
    assert cells["bfs"]["gunrock_s"] is None
    assert "timed out after 0.5 seconds" in cells["bfs"]["problems"][0]


def test_an_app_missing_or_not_executable_gives_a_failed_cell(pair, tmp_path):
    G, W = pair
    (tmp_path / "sssp").write_text("#!/bin/sh\nexit 0\n")  # its mode left at 0o644
    cells = gunrock.gunrock_cells(G, W, [0], tmp_path, repeat=1, algos=["bfs", "sssp"])
    assert [cells[name]["gunrock_s"] for name in ("bfs", "sssp")] == [None, None]
    assert "bfs cannot run" in cells["bfs"]["problems"][0]
    assert "sssp cannot run" in cells["sssp"]["problems"][0]


@pytest.mark.parametrize("ms", [12.27, 5.25, 0.7634, 104.5])
def test_a_time_printed_at_precision_zero_is_refused(ms):
    """C's %.0g, as a stream at precision 0 prints a float (after an integer result's head under
    GUNROCK_PRINT_ALL): one significant digit, refused; the same time at the default precision
    (%g) is read."""
    values = "GPU distances[:3] = 0 1 1\n"
    with pytest.raises(RuntimeError, match="one significant digit"):
        gunrock.parse_output(f"{values}GPU Elapsed Time : {ms:.0g} (ms)\n", "GPU distances")
    out = gunrock.parse_output(f"{values}GPU Elapsed Time : {ms:g} (ms)\n", "GPU distances")
    assert out["ms"] == float(f"{ms:g}")
