"""What the command shows while it works and when it is done: bench rows as they are timed
(flushed, so that a redirected output shows them), a line on stderr for a long call, and the run
summary's times."""

import io
import json
import sys
import time

import pytest

from gravel.cli import main, output, progress
from gravel.cli.bench import row_line


def test_bench_prints_each_row_flushed_before_the_table(tmp_path, monkeypatch):
    """`gravel bench ... > file`: each row reaches the file as soon as it is timed, before the
    next algorithm starts and before the table."""
    from gravel.algorithms import cc

    out, record = tmp_path / "out.txt", tmp_path / "b.json"
    on_disk = {}  # what the file held when cc first ran, and when the table was printed
    real_cc, real_table = cc.connected_components, output.print_bench_table

    def cc_spy(*args, **kwargs):
        on_disk.setdefault("cc", out.read_text())
        return real_cc(*args, **kwargs)

    def table_spy(rows):
        on_disk["table"] = out.read_text()
        return real_table(rows)

    monkeypatch.setattr(cc, "connected_components", cc_spy)
    monkeypatch.setattr(output, "print_bench_table", table_spy)
    argv = ["bench", "grid:8x8", "--algo", "bfs", "--algo", "cc", "--device", "cpu"]
    with open(out, "w") as f:  # block-buffered, as stdout is when redirected to a file
        monkeypatch.setattr(sys, "stdout", f)
        assert main(argv + ["--repeat", "1", "--json", str(record)]) == 0
    rows = json.loads(record.read_text())["results"]
    assert [r["algo"] for r in rows] == ["bfs", "cc"]
    bfs_line, cc_line = (row_line(r) for r in rows)
    assert bfs_line.startswith("grid:8x8  bfs (cpu): time (ms) ")
    assert cc_line.startswith("grid:8x8  cc (cpu): time (ms) ")
    assert on_disk["cc"] == bfs_line + "\n"  # bfs's row was in the file before cc ran
    assert on_disk["table"] == bfs_line + "\n" + cc_line + "\n"
    lines = out.read_text().splitlines()
    assert lines[:2] == [bfs_line, cc_line] and "gravel bench" in lines[2]  # the table follows


def test_a_row_line_shows_the_columns_the_row_fills():
    row = {"graph": "g", "algo": "bfs", "device": "cpu", "time_s": 0.0125, "min_s": 0.01}
    row |= {"max_s": 0.02, "scipy_s": 0.05, "speedup_vs_scipy": 4.0}
    line = "g  bfs (cpu): time (ms) 12.50, min..max 10.0..20.0, SciPy (ms) 50.00, vs SciPy 4.0x"
    assert row_line(row) == line


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_long_call_says_so_once_on_a_log(monkeypatch):
    log = io.StringIO()
    with progress.working("running louvain on g", delay=0.0, file=log):
        time.sleep(0.2)
    assert log.getvalue() == "gravel: running louvain on g ...\n"
    quiet = io.StringIO()
    with progress.working("running bfs on g", delay=5.0, file=quiet):
        pass
    assert quiet.getvalue() == ""


def test_a_long_call_keeps_time_on_a_terminal(monkeypatch):
    monkeypatch.setattr(progress, "TICK_S", 0.05)
    term = Terminal()
    with pytest.raises(KeyboardInterrupt):
        with progress.working("running louvain on g", delay=0.0, file=term):
            time.sleep(0.3)
            raise KeyboardInterrupt  # passes through, the line cleared first
    shown = term.getvalue()
    assert "\rgravel: running louvain on g (00:00)" in shown
    assert shown.endswith("\r")  # cleared: the next line starts clean
    assert shown.rstrip("\r").split("\r")[-1].strip() == ""


def test_a_quick_command_shows_no_progress(capsys):
    assert main(["run", "bfs", "grid:3x3", "--json"]) == 0
    assert capsys.readouterr().err == ""


def test_the_run_summary_gives_the_call_time_and_compiling(monkeypatch, capsys):
    from gravel.algorithms import cc

    real = cc.connected_components
    spent = {"compile_s": 0.0}

    def slow(*args, **kwargs):
        time.sleep(0.2)  # outside the algorithm's own time, as checks and copies are
        res = real(*args, **kwargs)
        res.compile_s = spent["compile_s"]
        return res

    monkeypatch.setattr(cc, "connected_components", slow)
    assert main(["run", "cc", "grid:4x4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    keys = list(out)
    assert keys[keys.index("time_s") + 1] == "call_s"  # the whole call beside the algorithm's
    assert out["call_s"] >= out["time_s"] + 0.2 and out["compile_s"] == 0.0
    assert main(["run", "cc", "grid:4x4"]) == 0
    table = capsys.readouterr().out
    assert "call_s" in table and "compile_s" not in table  # 0: left out of the table
    spent["compile_s"] = 1.25
    assert main(["run", "cc", "grid:4x4"]) == 0
    table = capsys.readouterr().out
    assert "compile_s" in table and "1.25" in table
