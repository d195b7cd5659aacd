import importlib
import json

import numpy as np
import pytest

import gravel
from gravel.cli import main

ALGOS = ["bfs", "sssp", "pagerank", "cc", "bc", "tc", "kcore"]


@pytest.mark.parametrize("algo", ALGOS)
def test_run_on_the_bundled_graph(algo, capsys):
    sampled = ["--k", "16"] if algo == "bc" else []
    assert main(["run", algo, "--json", "--device", "cpu"] + sampled) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["vertices"] == 4039 and out["edges"] == 88234 and out["device"] == "cpu"
    if algo == "tc":
        assert out["triangles"] == 1612010  # SNAP's published figure for ego-Facebook
    if algo == "cc":
        assert out["components"] == 1
    if algo == "kcore":
        assert out["degeneracy"] == 115


def test_run_writes_outputs(tmp_path, capsys):
    npy, csv = tmp_path / "d.npy", tmp_path / "d.csv"
    assert main(["run", "bfs", "grid:3x3", "--source", "0", "-o", str(npy)]) == 0
    assert np.load(npy).tolist() == [0, 1, 2, 1, 2, 3, 2, 3, 4]
    assert main(["run", "bfs", "grid:3x3", "--source", "0", "-o", str(csv)]) == 0
    rows = csv.read_text().splitlines()
    assert rows[0] == "vertex,depth,parent" and rows[1] == "0,0,0"


def test_text_summary(capsys):
    assert main(["run", "cc", "grid:4x4"]) == 0
    assert "components" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,match",
    [
        (["run", "bfs", "grid:3x3", "--source", "99"], "source vertex 99"),
        (["run", "bfs", "nosuchfile.txt"], "no such file"),
        (["run", "bfs", "kron:abc"], "unknown generator spec"),
        (["run", "pagerank", "grid:2x2", "--source", "1"], "--source does not apply"),
        (["run", "bfs", "grid:2x2", "-o", "x.unknown"], "unknown output type"),
        (["run", "mis", "grid:2x2", "--seed", "-1", "--device", "cpu"], "seed must be None"),
        (["run", "bfs", "kron:5:-3", "--device", "cpu"], "edge factor must be an integer"),
        (["bench", "grid:2x2", "--algo", "bfs", "--repeat", "0"], "--repeat must be at least 1"),
    ],
)
def test_errors_exit_2_with_one_line(argv, match, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "Traceback" not in err
    assert not list(tmp_path.iterdir())


EMPTY_LIST = "# gravel edge list: 0 vertices, directed, unweighted\n"  # no edges, declared


def test_an_empty_graph_is_not_benchmarked(capsys, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text(EMPTY_LIST)  # a file with no header and no edges is refused (issue 51)
    assert main(["bench", str(empty), "--algo", "bfs", "--device", "cpu"]) == 2
    assert "empty.txt: the graph is empty, there is nothing to time" in capsys.readouterr().err


def test_unknown_algorithm_is_rejected(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "nosuchalgo"])
    assert e.value.code == 2


def test_cuda_without_gpu(capsys):
    from gravel.backends import cuda

    if cuda.available():
        pytest.skip("a GPU is present")
    assert main(["run", "bfs", "--device", "cuda"]) == 2
    assert "device='cuda'" in capsys.readouterr().err


def test_malformed_file_names_line(tmp_path, capsys):
    p = tmp_path / "bad.txt"
    p.write_text("0 1\n2 three\n")
    assert main(["info", str(p)]) == 2
    assert f"{p}, line 2" in capsys.readouterr().err


def test_generate_convert_info(tmp_path, capsys):
    mtx, gbin = tmp_path / "k.mtx", tmp_path / "k.gravel"
    assert main(["generate", "kron:8", "-o", str(mtx)]) == 0
    assert main(["convert", str(mtx), str(gbin)]) == 0
    assert gravel.load(gbin) == gravel.load(mtx) == gravel.generate.kronecker(8)
    assert main(["info", str(gbin), "--json"]) == 0
    info = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert info["vertices"] == 256 and info["directed"] is False


def test_empty_graph_file(tmp_path, capsys):
    p = tmp_path / "empty.txt"
    p.write_text(EMPTY_LIST)
    assert main(["run", "cc", str(p), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["components"] == 0
    assert main(["run", "bfs", str(p)]) == 2


def test_bench_writes_json(tmp_path, capsys):
    out = tmp_path / "b.json"
    assert (
        main(
            [
                "bench",
                "grid:20x20",
                "--algo",
                "bfs",
                "--algo",
                "cc",
                "--device",
                "cpu",
                "--repeat",
                "2",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    rows = {r["algo"]: r for r in data["results"]}
    assert set(rows) == {"bfs", "cc"} and data["machine"]["cores"] >= 1
    # the record names the libraries that ran, as installed (the peers' too)
    import numpy
    import scipy

    libraries = data["machine"]["libraries"]
    assert (libraries["numpy"], libraries["scipy"]) == (numpy.__version__, scipy.__version__)
    bfs = rows["bfs"]
    assert bfs["time_s"] > 0 and bfs["min_s"] <= bfs["time_s"] <= bfs["max_s"]
    assert bfs["scipy_s"] > 0 and rows["cc"]["speedup_vs_scipy"] > 0
    assert "gravel bench" in capsys.readouterr().out


def test_bench_times_a_program_file_beside_the_catalog(tmp_path, capsys):
    from ..programs.helpers import BFS_FILE, write

    prog = write(tmp_path, BFS_FILE)
    out = tmp_path / "b.json"
    argv = ["bench", "grid:6x7", "--algo", "bfs", "--algo", f"program:{prog}", "--device", "cpu"]
    assert main(argv + ["--repeat", "2", "--source", "9", "--json", str(out)]) == 0
    rows = {r["algo"]: r for r in json.loads(out.read_text())["results"]}
    assert set(rows) == {"bfs", "program prog.py"}
    ran = rows["program prog.py"]
    assert ran["time_s"] > 0 and ran["min_s"] <= ran["time_s"] <= ran["max_s"]
    G = gravel.generate.grid(6, 7)
    program, _ = gravel.programs.files.load_program(prog)
    expect = gravel.programs.run(G, program, params={"source": 9}, device="cpu")
    assert ran["iterations"] == expect.iterations
    assert "program prog.py" in capsys.readouterr().out
    missing = tmp_path / "none.py"
    assert main(["bench", "grid:6x7", "--algo", f"program:{missing}", "--device", "cpu"]) == 2
    assert str(missing) in capsys.readouterr().err


def test_bench_reordered_graph_starts_from_the_same_source(tmp_path):
    out = tmp_path / "b.json"
    # RCM puts a peripheral vertex first: a source taken in internal ids would change BFS's depth
    assert (
        main(
            [
                "bench",
                "grid:12x7",
                "--algo",
                "bfs",
                "--device",
                "cpu",
                "--repeat",
                "1",
                "--reorder",
                "rcm",
                "--source",
                "40",
                "--no-baselines",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(out.read_text())
    ((name, info),) = data["graphs"].items()
    assert name == "grid:12x7 (rcm)" and info["reorder_s"] > 0 and info["reordered"]
    (row,) = data["results"]
    assert row["graph"] == name and "scipy_s" not in row
    assert row["iterations"] == gravel.bfs(gravel.generate.grid(12, 7), 40, device="cpu").iterations


def test_pagerank_flags_reach_the_function(monkeypatch, capsys):
    import importlib

    module = importlib.import_module("gravel.algorithms.pagerank")
    seen = {}
    real = module.pagerank

    def spy(G, **kwargs):
        seen.update(kwargs)
        return real(G, **kwargs)

    monkeypatch.setattr(module, "pagerank", spy)
    argv = ["run", "pagerank", "grid:4x4", "--json", "--alpha", "0.9", "--max-iter", "3"]
    assert main(argv + ["--tol", "0"]) == 0
    assert seen == {"device": "auto", "alpha": 0.9, "max_iter": 3, "tol": 0.0}
    assert json.loads(capsys.readouterr().out)["iterations"] == 3
    # flags left out are not passed: the function's own defaults apply
    seen.clear()
    assert main(["run", "pagerank", "grid:4x4", "--json"]) == 0
    assert seen == {"device": "auto"}


def test_bench_ranks_without_the_weights_it_adds(monkeypatch):
    """`gravel bench` weighs every graph (for SSSP); its PageRank ranks unweighted, as its cuSPARSE
    baseline and its memory floor do."""
    import importlib

    module = importlib.import_module("gravel.algorithms.pagerank")
    seen = []
    real = module.pagerank

    def spy(G, **kwargs):
        seen.append((G.weighted, kwargs.get("weight", True)))
        return real(G, **kwargs)

    monkeypatch.setattr(module, "pagerank", spy)
    argv = ["bench", "grid:6x6", "--algo", "pagerank", "--device", "cpu", "--repeat", "1"]
    assert main(argv) == 0
    assert seen and all(weighted and weight is None for weighted, weight in seen)


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["run", "bfs", "grid:3x3", "--tol", "1e-3"], "--tol"),
        (["run", "cc", "grid:3x3", "--max-iter", "5"], "--max-iter"),
        (["run", "pagerank", "grid:3x3", "--k", "2"], "--k"),
    ],
)
def test_algorithm_flags_of_another_algorithm_are_refused(argv, flag, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{flag} does not apply to {argv[1]}" in err and err.count("\n") == 1


def test_issue_17_sparse_ids_name_the_relabel_flag(tmp_path, capsys):
    p = tmp_path / "sparse.txt"
    p.write_text("0 1\n1 1000000000\n")
    assert main(["run", "bfs", str(p)]) == 2
    err = capsys.readouterr().err
    assert "--relabel" in err and str(p) in err and err.count("\n") == 1
    # with --relabel, --source and the output speak the file's ids
    out = tmp_path / "d.csv"
    argv = ["run", "bfs", str(p), "--relabel", "--source", "1000000000", "-o", str(out)]
    assert main(argv) == 0
    assert out.read_text().splitlines()[1:] == ["0,-1,-1", "1,-1,-1", "1000000000,0,1000000000"]
    assert main(["run", "bfs", str(p), "--relabel", "--source", "7"]) == 2
    assert "7" in capsys.readouterr().err
    assert main(["info", str(p), "--relabel", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vertices"] == 3
    assert main(["convert", str(p), str(tmp_path / "s.gravel"), "--relabel"]) == 0
    assert gravel.load(tmp_path / "s.gravel").labels.tolist() == [0, 1, 1_000_000_000]
    argv = ["bench", str(p), "--relabel", "--algo", "cc", "--device", "cpu", "--repeat", "1"]
    assert main(argv + ["--no-baselines"]) == 0


@pytest.mark.parametrize(
    "output,match",
    [
        ("x.unknown", "unknown output type"),
        ("missing/x.npy", "missing/x.npy: no such folder"),
        ("folder.csv", "folder.csv: is a directory"),
    ],
)
def test_issue_17_output_is_checked_before_the_work(output, match, tmp_path, monkeypatch, capsys):
    import importlib

    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder.csv").mkdir()
    module = importlib.import_module("gravel.algorithms.bfs")
    monkeypatch.setattr(module, "bfs", lambda *a, **k: pytest.fail("ran before checking -o"))
    assert main(["run", "bfs", "grid:3x3", "-o", output]) == 2
    err = capsys.readouterr().err
    assert match in err and err.count("\n") == 1 and "gravel-tmp" not in err


@pytest.mark.parametrize("command", ["generate", "convert"])
def test_issue_17_generate_and_convert_check_the_output_first(command, tmp_path, capsys):
    target = str(tmp_path / "missing" / "g.mtx")
    argv = ["generate", "grid:3x3", "-o", target] if command == "generate" else []
    argv = argv or ["convert", "grid:3x3", target]
    assert main(argv) == 2
    assert f"{target}: no such folder" in capsys.readouterr().err


def test_issue_17_outputs_respect_the_umask(tmp_path, capsys):
    import os

    old = os.umask(0o022)
    try:
        paths = [tmp_path / "d.npy", tmp_path / "g.mtx", tmp_path / "c.txt"]
        assert main(["run", "bfs", "grid:3x3", "--source", "0", "-o", str(paths[0])]) == 0
        assert main(["generate", "grid:3x3", "-o", str(paths[1])]) == 0
        assert main(["convert", str(paths[1]), str(paths[2])]) == 0
    finally:
        os.umask(old)
    assert [p.stat().st_mode & 0o777 for p in paths] == [0o644] * 3


def test_issue_17_ctrl_c_exits_130_with_one_line(tmp_path, monkeypatch, capsys):
    from gravel.io import matrix_market

    def interrupted(f, G):
        f.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(matrix_market, "write", interrupted)
    monkeypatch.setitem(gravel.io.FORMATS, "mtx", matrix_market)
    assert main(["generate", "grid:3x3", "-o", str(tmp_path / "g.mtx")]) == 130
    err = capsys.readouterr().err
    assert err == "gravel: interrupted\n" and not list(tmp_path.iterdir())


def test_issue_51_ctrl_c_inside_a_kernel_exits_130_with_one_line(monkeypatch, capsys):
    """A KeyboardInterrupt raised while a compiled kernel runs reaches Python as a SystemError
    caused by it (generation was cut off so: exit 1 and a 50-line traceback); other SystemErrors
    stay errors."""
    from gravel import generate

    def interrupted(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise SystemError("kronecker_edges returned a result with an exception set") from e

    monkeypatch.setattr(generate, "from_spec", interrupted)
    assert main(["run", "bfs", "kron:10"]) == 130
    assert capsys.readouterr().err.endswith("gravel: interrupted\n")

    def broken(*args, **kwargs):
        raise SystemError("a bug")

    monkeypatch.setattr(generate, "from_spec", broken)
    with pytest.raises(SystemError, match="a bug"):
        main(["run", "bfs", "kron:10"])


def test_issue_17_a_rebuilt_cache_warns_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(tmp_path / "cache"))
    p = tmp_path / "g.txt"
    p.write_text("0 1\n1 2\n")
    assert main(["info", str(p), "--json"]) == 0
    (cached,) = (tmp_path / "cache").glob("*.gravel")
    cached.write_bytes(cached.read_bytes()[:-3])
    assert main(["info", str(p), "--json"]) == 0
    err = capsys.readouterr().err
    assert (
        err.startswith("gravel: warning: rebuilding the binary cache of") and err.count("\n") == 1
    )


@pytest.mark.parametrize(
    "argv,match",
    [
        ([], "the following arguments are required: command"),
        (["run", "nosuchalgo"], "argument ALGO: invalid choice: 'nosuchalgo'"),
        (["run", "bfs", "--device", "gpu"], "argument --device: invalid choice: 'gpu'"),
        (["run", "bfs", "--source", "x"], "argument --source: invalid int value: 'x'"),
        (["info", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["convert", "in.txt"], "the following arguments are required: output"),
    ],
)
def test_issue_51_parser_mistakes_print_one_line(argv, match, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("gravel: error: ") and match in err
    assert err.count("\n") == 1 and "usage" not in err and "--help)" in err


def test_issue_51_help_still_prints_the_whole_usage(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith("usage: gravel run") and out.count("\n") > 20


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "bfs", "kron:5", "--device", "cpu"],
        ["run", "mis", "grid:3x3", "--device", "cpu"],
        ["generate", "kron:5", "-o", "g.gravel"],
    ],
)
def test_issue_51_a_seed_beyond_63_bits_is_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv + ["--seed", str(2**63)]) == 2
    err = capsys.readouterr().err
    assert "--seed must be None, an integer >= 0 and < 2**63" in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())
    assert main(argv + ["--seed", str(2**63 - 1)]) == 0  # 63 bits: taken


@pytest.mark.parametrize("command", ["convert", "generate"])
@pytest.mark.parametrize("name", ["out.xyz", "out", "out.gz", "out.npy"])
def test_issue_51_graph_outputs_of_unknown_suffix_are_refused(command, name, tmp_path, capsys):
    out = tmp_path / name
    argv = ["convert", "grid:3x3", str(out)] if command == "convert" else []
    assert main(argv or ["generate", "grid:3x3", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: unknown graph format (use .mtx" in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["g.txt", "g.EL", "g.edges", "g.csv.gz", "g.mtx.gz", "g.sg"])
def test_issue_51_graph_outputs_of_known_suffix_are_written(name, tmp_path, capsys):
    out = tmp_path / name
    assert main(["convert", "grid:3x3", str(out)]) == 0
    if not name.endswith(".sg"):
        assert gravel.load(out, cache=False) == gravel.generate.grid(3, 3)


@pytest.mark.parametrize("flags", [[], ["--json"]])
def test_issue_51_a_closed_pipe_ends_quietly(flags):
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)  # the reader is gone before gravel writes: `gravel info | head -0`
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gravel", "info", "grid:3x3"] + flags,
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=300,
        )
    finally:
        os.close(write)
    # stderr holds progress notices at most: no error, no BrokenPipeError from the last flush
    assert done.returncode == 0, done.stderr
    assert not any(w in done.stderr.lower() for w in (b"error", b"traceback", b"pipe")), done.stderr


@pytest.mark.parametrize("verify", [False, True])
def test_bench_verify_makes_the_checked_run_the_warm_up(monkeypatch, verify):
    """`gravel bench --verify` runs an algorithm once more than its timed runs, not twice: the
    checked run is the warm-up, except where the timed runs fix the count of iterations
    (PageRank's), which the checked run does not."""
    from gravel.bench import bench_graph

    calls = {}
    for name in ("bfs", "pagerank"):
        module = importlib.import_module(f"gravel.algorithms.{name}")
        real = module.IMPLEMENTATIONS["cpu"]

        def counted(*args, real=real, name=name):
            calls[name] = calls.get(name, 0) + 1
            return real(*args)

        monkeypatch.setitem(module.IMPLEMENTATIONS, "cpu", counted)
    G = gravel.generate.grid(12, 9)
    rows = bench_graph(
        G, "g", ["bfs", "pagerank"], "cpu", 3, lambda d: 1e10, baselines=False, verify=verify
    )
    assert all(r["time_s"] > 0 for r in rows)
    assert calls == {"bfs": 4, "pagerank": 4 + verify}


def test_bench_verify_keeps_a_wrong_answer_out_of_the_times(tmp_path, capsys, monkeypatch):
    """`gravel bench --verify`: an answer its verifier rejects is reported, not timed, and the
    command fails; the other algorithms are timed as usual."""
    bfs = importlib.import_module("gravel.algorithms.bfs")  # the module, not the function
    right = bfs.IMPLEMENTATIONS["cpu"]

    def off_by_one(G, source):
        result = right(G, source)
        result.depth[result.depth > 1] += 1
        return result

    monkeypatch.setitem(bfs.IMPLEMENTATIONS, "cpu", off_by_one)
    out = tmp_path / "b.json"
    argv = ["bench", "grid:20x20", "--algo", "bfs", "--algo", "cc", "--device", "cpu"]
    assert main(argv + ["--repeat", "1", "--verify", "--json", str(out)]) == 2
    captured = capsys.readouterr()
    assert "bfs on grid:20x20: depth differs at" in captured.err
    assert "bfs (cpu): FAILED its check: depth differs at" in captured.out
    rows = {r["algo"]: r for r in json.loads(out.read_text())["results"]}
    assert "time_s" not in rows["bfs"] and rows["bfs"]["problems"]
    assert rows["cc"]["verified"] is True and rows["cc"]["time_s"] > 0
    from gravel.plots import bench_rows  # matplotlib not needed

    assert [r["algo"] for r in bench_rows(str(out))] == ["cc"]
