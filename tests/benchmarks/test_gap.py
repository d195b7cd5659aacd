"""benchmarks/gap.py end to end, with stand-ins for GAP's binaries and Gunrock's BFS app, and
NetworKit and igraph: its table's cells come from the runs it makes, each peer's answer checked."""

import json
import os
import signal
import subprocess
import sys

import pytest

from .helpers import BENCHMARKS, FAKE_BFS, script

pytest.importorskip("networkit")
pytest.importorskip("igraph")

#: GAP's kernels as gap.py calls them: each prints its trials' times
FAKE_GAP = "#!/bin/sh\necho 'Trial Time:          0.00200'\necho 'Trial Time:          0.00400'\n"


def test_gunrock_and_gap_cells_join_gravels_row(tmp_path):
    gap, bin_dir = tmp_path / "gap", tmp_path / "gunrock"
    gap.mkdir()
    bin_dir.mkdir()
    for name in ("bfs", "sssp", "pr", "cc", "bc", "tc", "converter"):
        (gap / name).write_text(FAKE_GAP)
        (gap / name).chmod(0o755)
    (bin_dir / "bfs").write_text(FAKE_BFS.format(python=sys.executable))
    (bin_dir / "bfs").chmod(0o755)
    (bin_dir / "COMMIT").write_text("0123abc\n")
    (gap / "COMMIT").write_text("b5e3e19 (sbeamer/gapbs)\n")
    out = tmp_path / "gap.json"
    env = os.environ | {"PYTHONPATH": str(BENCHMARKS.parent / "src")}
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "gap.py"), "grid:12x9", "--gap", str(gap)]
        + ["--gunrock", str(bin_dir), "--generator", "gravel", "--algo", "bfs"]
        + ["--threads", "1", "--repeat", "3", "--peers", "--peer-repeat", "2"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(out.read_text())
    assert (record["gunrock_commit"], record["gap_commit"]) == (
        "0123abc",
        "b5e3e19 (sbeamer/gapbs)",
    )
    (row,) = record["rows"]
    # GAP's median trial; the fake app's time of a second run of -n 3 (0.25 ms a run)
    assert (row["graph"], row["primitive"], row["gap_s"]) == ("grid:12x9", "bfs", 0.003)
    assert row["problems"] == [] and row["gunrock_s"] == 0.75e-3
    assert row["gravel_cpu_s"] > 0
    assert row["peer_problems"] == [] and row["networkit_s"] > 0 and row["igraph_s"] > 0


def test_gap_commit_is_a_checkouts_head_or_a_copys_stamp(tmp_path):
    gap = script("gap")
    assert gap.gap_commit(tmp_path) is None  # neither: the table says so
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "c"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    assert gap.gap_commit(tmp_path) == head.strip()
    (tmp_path / "COMMIT").write_text("b5e3e19\nbuilt by hand\n")  # a stamp wins
    assert gap.gap_commit(tmp_path) == "b5e3e19"


def test_a_run_stopped_by_its_time_limit_writes_the_rows_it_has(tmp_path):
    """SIGTERM while GAP's SSSP runs: the BFS row is written, the record marked cut."""
    gap = tmp_path / "gap"
    gap.mkdir()
    for name in ("bfs", "sssp", "pr", "cc", "bc", "tc", "converter"):
        (gap / name).write_text("#!/bin/sh\nexec sleep 60\n" if name == "sssp" else FAKE_GAP)
        (gap / name).chmod(0o755)
    out = tmp_path / "gap.json"
    env = os.environ | {"PYTHONPATH": str(BENCHMARKS.parent / "src"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(BENCHMARKS / "gap.py"), "grid:12x9", "--gap", str(gap)]
        + ["--generator", "gravel", "--algo", "bfs", "--algo", "sssp", "--threads", "1"]
        + ["--json", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    said = []
    for line in proc.stdout:  # the BFS row printed: the run is in SSSP's GAP runs
        said.append(line)
        if " bfs " in line:
            break
    proc.send_signal(signal.SIGTERM)
    said.append(proc.communicate(timeout=60)[0])
    assert proc.returncode == 0, "".join(said)
    record = json.loads(out.read_text())
    assert record["cut"] is True and [r["primitive"] for r in record["rows"]] == ["bfs"]


def _stand_in_catalog(wrong):
    """gap.py's CATALOG where PageRank and BFS have a "cusparse" baseline computed on the CPU
    (SciPy), its answer made wrong by one vertex where `wrong`; CC has none."""
    import types

    import numpy as np
    from scipy.sparse.csgraph import breadth_first_order

    def pagerank(G, source):
        def run():
            at, deg = G.to_scipy().T.tocsr(), G.out_degree
            inv = np.where(deg > 0, 1.0 / np.maximum(deg, 1), 0.0)
            x = np.full(G.n, 1.0 / G.n)
            for _ in range(20):
                x = 0.85 * (at @ (x * inv) + x[deg == 0].sum() / G.n) + 0.15 / G.n
            x[0] += 0.01 * wrong
            return x

        return run

    def bfs(G, source):
        def run():
            visited = np.zeros(G.n, bool)
            visited[breadth_first_order(G.to_scipy(), source, return_predecessors=False)] = True
            visited[-1] ^= wrong
            return visited

        return run

    def algo(build):
        base = () if build is None else (types.SimpleNamespace(name="cusparse", build=build),)
        return types.SimpleNamespace(baselines=base)

    return {"pagerank": algo(pagerank), "bfs": algo(bfs), "cc": algo(None)}


@pytest.mark.parametrize("wrong", [False, True])
def test_cusparse_cells_are_timed_only_where_their_answers_check(monkeypatch, wrong):
    """cuSPARSE's cells (here SciPy stand-ins, timed on the CPU): an answer equal to gravel's is
    timed, one a vertex off is reported and not timed; a primitive without the baseline gets
    no cell."""
    import gravel

    gap = script("gap")
    monkeypatch.setattr(gap, "CATALOG", _stand_in_catalog(wrong))
    G = gravel.generate.kronecker(8, 8, seed=3)
    for name, units in (("pagerank", gap.PR_ITERATIONS), ("bfs", 1)):
        cells = gap.spmv_cells(name, G, [int(G.out_degree.argmax())], 2, units, device="cpu")
        assert (cells["cusparse_s"] is None) == wrong, cells
        assert bool(cells["cusparse_problems"]) == wrong, cells
    assert gap.spmv_cells("cc", G, [0], 2, 1, device="cpu") == {}


@pytest.mark.gpu
def test_cusparse_cells_on_the_gpu():
    """gravel bench's cuSPARSE baselines of PageRank and BFS pass gap.py's checks and are timed."""
    pytest.importorskip("cupy")
    import gravel

    gap = script("gap")
    G = gravel.generate.kronecker(10, 8, seed=3)
    for name, units in (("pagerank", gap.PR_ITERATIONS), ("bfs", 1)):
        cells = gap.spmv_cells(name, G, [int(G.out_degree.argmax())], 2, units)
        assert cells["cusparse_problems"] == [] and cells["cusparse_s"] > 0, cells
