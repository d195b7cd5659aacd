"""`gravel run program:FILE`: a vertex program in a file of its own, run from the command line,
against the built-in primitive; its parameters, outputs and errors."""

import json

import numpy as np
import pytest

import gravel
from gravel.cli import main

from .helpers import BFS_FILE, write

#: what a run refuses a source 99 on grid:2x2 with
NOT_IN_2X2 = "parameter 'source': vertex 99 is not in the graph (ids 0..3)"

STRUCTURED_FILE = """
import gravel

def program():
    state = [("hops", "int32"), ("seen", "bool")]
    return gravel.programs.Program(
        state, "int32",
        init={"hops": "0 if v == 0 else -1", "seen": "v == 0"}, start="v == 0",
        send="state.hops + 1", process="message", reduce="min",
        apply={"hops": "total if not state.seen else state.hops", "seen": "True"},
    )
"""


def test_a_program_file_runs_like_the_builtin(tmp_path, capsys):
    path = write(tmp_path, BFS_FILE)
    out = tmp_path / "depth.npy"
    argv = ["run", f"program:{path}", "grid:6x7", "--source", "9", "-o", str(out), "--json"]
    assert main(argv + ["--device", "cpu"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "program" and summary["converged"] is True
    G = gravel.generate.grid(6, 7)
    assert np.array_equal(np.load(out), gravel.bfs(G, 9, device="cpu").depth)


def test_params_from_the_file_and_the_flags(tmp_path, capsys):
    path = write(tmp_path, BFS_FILE + "\nparams = {'source': 3}\n")
    out = tmp_path / "d.csv"
    assert main(["run", f"program:{path}", "grid:1x5", "-o", str(out), "--device", "cpu"]) == 0
    depth = np.loadtxt(out, delimiter=",", skiprows=1)[:, 1]
    assert depth.tolist() == [3, 2, 1, 0, 1]
    assert main(["run", f"program:{path}", "grid:1x5", "--param", "source=0", "-o", str(out)]) == 0
    assert np.loadtxt(out, delimiter=",", skiprows=1)[:, 1].tolist() == [0, 1, 2, 3, 4]


def test_a_program_file_runs_over_parts(tmp_path, capsys):
    """--parts: the program over CPU workers, to the single machine's state."""
    pytest.importorskip("distributed")
    path = write(tmp_path, STRUCTURED_FILE)
    out = tmp_path / "s.csv"
    argv = ["run", f"program:{path}", "grid:4x5", "--parts", "2", "-o", str(out), "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert "distributed" in summary["strategy"] and summary["converged"] is True
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    assert table[:, 1].tolist() == gravel.bfs(gravel.generate.grid(4, 5), 0).depth.tolist()


@pytest.mark.gpu
def test_a_program_file_runs_on_a_gpu_cluster(tmp_path, capsys):
    pytest.importorskip("distributed")
    path = write(tmp_path, BFS_FILE)
    out = tmp_path / "depth.npy"
    argv = ["run", f"program:{path}", "grid:6x7", "--source", "9", "--gpus", "1", "-o", str(out)]
    assert main(argv + ["--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["device"] == "cuda" and "distributed" in summary["strategy"]
    expected = gravel.bfs(gravel.generate.grid(6, 7), 9, device="cpu").depth
    assert np.array_equal(np.load(out), expected)


def test_max_iter_stops_and_says_so(tmp_path, capsys):
    path = write(tmp_path, BFS_FILE)
    assert main(["run", f"program:{path}", "grid:1x9", "--max-iter", "2", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["iterations"] == 2 and summary["converged"] is False


def test_a_structured_state_writes_a_column_per_field(tmp_path, capsys):
    path = write(tmp_path, STRUCTURED_FILE)
    out = tmp_path / "s.csv"
    assert main(["run", f"program:{path}", "grid:2x3", "-o", str(out), "--device", "cpu"]) == 0
    header = out.read_text().splitlines()[0]
    assert header == "vertex,state.hops,state.seen"
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    assert table[:, 1].tolist() == gravel.bfs(gravel.generate.grid(2, 3), 0).depth.tolist()


@pytest.mark.parametrize(
    ("text", "argv", "says"),
    [
        (None, [], "no such program file"),
        ("x = 1\n", [], "defines no vertex program"),
        ("raise ValueError('boom')\n", [], "prog.py: ValueError: boom"),
        (
            "from gravel.programs import Program\nprogram = Program('int32', 'int32', "
            "send='state +', apply='total', semiring='min_plus')\n",
            [],
            "send = 'state +' does not parse",
        ),
        (BFS_FILE, ["--param", "source"], "write NAME=VALUE"),
        (BFS_FILE, ["--param", "source=abc"], "must be a number"),
        (BFS_FILE, ["--param", "depth=3"], "unknown parameters ['depth']"),
        (BFS_FILE.replace("source", "root"), ["--source", "1"], "programs with a `source`"),
        (BFS_FILE, ["--alpha", "0.5"], "--alpha does not apply to vertex programs"),
        (BFS_FILE, ["--parts", "0"], "--parts must be at least 1, not 0"),
        (BFS_FILE, ["--parts", "2", "--execution", "hybrid"], "--execution chooses devices"),
        (BFS_FILE, ["--parts", "2", "--gpus", "1"], "give --gpus or --parts, not both"),
        (BFS_FILE, ["--gpus", "1", "--device", "cpu"], "leave out --device cpu"),
        (BFS_FILE, ["--gpus", "0", "--device", "auto"], "gpus must be at least 1, not 0"),
        (BFS_FILE, ["--gpus", "1", "--execution", "hybrid"], "not with --parts or --gpus"),
        (BFS_FILE, ["--param", "source=1e300"], "parameter 'source' = 1e+300 is not a int64"),
        (BFS_FILE + "params = {'source': 'abc'}\n", [], "'abc': expected a int64 value"),
        (
            "from gravel import programs\nprogram = programs.bfs\n",
            ["--source", "99"],
            NOT_IN_2X2,
        ),
        # a source outside the graph, on every path (before, a `source` not declared a vertex
        # ran from nowhere and exited 0)
        (BFS_FILE, ["--source", "99"], NOT_IN_2X2),
        (BFS_FILE, ["--param", "source=99"], NOT_IN_2X2),
        (BFS_FILE + "params = {'source': 99}\n", [], NOT_IN_2X2),
        (BFS_FILE.replace("params=", "vertices=(), params="), ["--source", "99"], NOT_IN_2X2),
        (
            "def program():\n    raise KeyError('lost')\n",
            [],
            "prog.py: program(): KeyError: 'lost'",
        ),
    ],
)
def test_errors_name_the_file_or_the_flag(tmp_path, capsys, text, argv, says):
    path = tmp_path / "prog.py" if text is None else write(tmp_path, text)
    assert main(["run", f"program:{path}", "grid:2x2", "--device", "cpu"] + argv) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_param_is_for_programs_only(capsys):
    assert main(["run", "bfs", "grid:2x2", "--param", "x=1"]) == 2
    assert "--param applies to vertex programs" in capsys.readouterr().err


@pytest.mark.parametrize("execution", ["hybrid-seed", "hybrid"])
def test_execution_hybrid(tmp_path, capsys, execution):
    """--execution runs the program hybrid (its GPU part on the CPU with --device cpu)."""
    path = write(tmp_path, BFS_FILE)
    out = tmp_path / "depth.npy"
    argv = ["run", f"program:{path}", "kron:8", "--source", "3", "-o", str(out), "--json"]
    assert main(argv + ["--device", "cpu", "--execution", execution]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["execution"] == execution and 0 <= summary["gpu_share"] <= 1
    G = gravel.generate.kronecker(8)
    assert np.array_equal(np.load(out), gravel.bfs(G, 3, device="cpu").depth)


def test_execution_is_for_programs_only(capsys):
    assert main(["run", "bfs", "grid:2x2", "--execution", "hybrid"]) == 2
    assert "--execution applies to vertex programs" in capsys.readouterr().err
