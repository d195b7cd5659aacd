"""gravel.plots and the command line's plots: files written whole, the data drawn right (checked
through the data each plot function returns, not its pixels), and a one-line hint without
matplotlib."""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import gravel
from gravel import generate, plots
from gravel.algorithms.bfs import BFSResult
from gravel.cli import main
from gravel.errors import InvalidArgumentError, MissingDependencyError, UnknownNameError

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"


def is_png(path):
    data = path.read_bytes()
    return len(data) > 1000 and data.startswith(PNG)


def is_svg(path):
    return ET.parse(path).getroot().tag.endswith("svg")


@pytest.fixture
def directed():
    # out-degrees 3, 1, 1, 0, 0; in-degrees 0, 1, 2, 1, 1
    return gravel.Graph.from_edges([0, 0, 0, 1, 2], [1, 2, 3, 2, 4], n=5)


def test_degree_distribution_counts_in_and_out(directed, tmp_path):
    path = tmp_path / "d.png"
    counts = plots.degree_distribution(directed, path)
    assert is_png(path)
    assert set(counts) == {"out", "in"}
    assert counts["out"].tolist() == np.bincount(directed.out_degree).tolist() == [2, 2, 0, 1]
    assert counts["in"].tolist() == np.bincount(directed.in_degree).tolist() == [1, 3, 1]


def test_degree_distribution_undirected_is_one_series_svg(tmp_path):
    G = generate.grid(4, 5)
    path = tmp_path / "d.svg"
    counts = plots.degree_distribution(G, path)
    assert is_svg(path)
    assert list(counts) == ["degree"]
    assert counts["degree"].tolist() == np.bincount(G.out_degree).tolist()
    assert counts["degree"][2:5].tolist() == [4, 10, 6]  # corners, sides, inside


def level_record():
    """Levels 1 and 2 in one step of 3 ms (shared), level 3 alone in 1 ms, an empty level 4."""
    r = BFSResult("bfs", "cpu", depth=np.array([0, 1, 1, 2, 3, -1]), parent=None)
    r.stats["level_times"] = [(0, 0.0), (2, 0.003), (3, 0.004), (4, 0.0045)]
    return r


def test_level_data_from_a_record():
    d = plots.level_data(level_record())
    assert d["level"].tolist() == [0, 1, 2, 3, 4]
    assert d["size"].tolist() == [1, 2, 1, 1, 0]
    # a level's own time only: a step of several levels keeps its time whole, not split
    assert np.isnan(d["seconds"][:3]).all()
    assert np.allclose(d["seconds"][3:], [0.001, 0.0005])
    assert d["shared"].tolist() == [False, True, True, False, False]
    assert d["steps"] == [(1, 2, 0.003)]


@pytest.fixture
def figures(monkeypatch):
    """The figures the plots save (their axes and data are checked, not their pixels)."""
    from matplotlib.figure import Figure

    saved, real = [], Figure.savefig

    def keep(fig, *args, **kwargs):
        saved.append(fig)
        return real(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    return saved


def time_panel(fig):
    """The BFS plot's time panel: the levels and milliseconds of its line, the shaded spans (x
    from, x to); None where the figure has no time panel."""
    if len(fig.axes) == 1:
        return None
    (line,) = fig.axes[1].get_lines()
    spans = [p.get_x() for p in fig.axes[1].patches], [p.get_width() for p in fig.axes[1].patches]
    return line.get_xdata(), line.get_ydata(), [(x, x + w) for x, w in zip(*spans)]


def test_the_time_panel_shows_each_level_run_alone(figures, tmp_path):
    data = plots.traversal_levels(level_record(), tmp_path / "l.png")
    (fig,) = figures
    level, ms, spans = time_panel(fig)
    timed = np.isfinite(ms)
    assert level[timed].tolist() == [3, 4] and np.allclose(ms[timed], [1.0, 0.5])
    assert np.allclose(ms[timed], 1e3 * data["seconds"][3:])
    assert spans == [(0.5, 2.5)]  # levels 1-2, one step: shaded, not drawn as two equal times


def test_the_time_panel_is_left_out_without_a_level_run_alone(figures, tmp_path):
    r = gravel.bfs(generate.grid(6, 6), 0, device="cpu")  # every level in one serial step
    (_, (last, _)) = r.stats["level_times"]
    data = plots.traversal_levels(r, tmp_path / "l.png")
    (fig,) = figures
    assert time_panel(fig) is None and len(fig.axes) == 1
    assert np.isnan(data["seconds"]).all() and data["steps"][0][:2] == (1, last)
    assert "no time per level" in fig.axes[0].get_title()
    r.stats.pop("level_times")  # no record at all
    plots.traversal_levels(r, tmp_path / "l.png")
    assert len(figures[1].axes) == 1 and "none recorded" in figures[1].axes[0].get_title()


@pytest.mark.parametrize("serial", [True, False])
def test_traversal_levels_of_a_cpu_bfs(serial, tmp_path, monkeypatch):
    if not serial:  # the direction-optimizing loop, on a graph small enough for a test
        monkeypatch.setattr("gravel.backends.cpu.serial.SMALL_ARCS", 0)
    G = generate.kronecker(10, 16, seed=1)
    s = int(np.argmax(G.out_degree))
    r = gravel.bfs(G, s, device="cpu")
    assert r.strategy == ("top-down, serial" if serial else "direction-optimizing")
    path = tmp_path / "levels.png"
    d = plots.traversal_levels(r, path)
    assert is_png(path)
    depth = r.depth[r.depth >= 0]
    assert d["size"][: depth.max() + 1].tolist() == np.bincount(depth).tolist()
    assert d["size"].sum() == (r.depth >= 0).sum()
    marks = r.stats["level_times"]
    assert marks[0] == (0, 0.0) and marks[-1][0] == r.iterations
    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(marks, marks[1:]))
    steps = sum(seconds for _, _, seconds in d["steps"])
    assert np.isclose(np.nansum(d["seconds"]) + steps, marks[-1][1])  # every step's time, once
    own = {b: tb - ta for (a, ta), (b, tb) in zip(marks, marks[1:]) if b == a + 1}
    assert {int(lv): s for lv, s in zip(d["level"], d["seconds"]) if np.isfinite(s)} == own
    assert "level_times" not in r.summary()  # lists stay out of the summary and --json


def test_pagerank_convergence(tmp_path):
    G = generate.kronecker(9, 8, seed=2)
    r = gravel.pagerank(G, device="cpu")
    changes = r.stats["changes"]
    assert len(changes) == r.iterations and changes[-1] == r.stats["error"] < 1e-6
    assert changes[0] > changes[-1]
    path = tmp_path / "pr.svg"
    d = plots.pagerank_convergence(r, path)
    assert is_svg(path)
    assert d["iteration"].tolist() == list(range(1, r.iterations + 1))
    assert d["change"].tolist() == changes
    assert "changes" not in r.summary()


def test_pagerank_fixed_iterations_record_each():
    r = gravel.pagerank(generate.grid(5, 5), max_iter=7, tol=0.0, device="cpu")
    assert len(r.stats["changes"]) == 7


def test_convergence_needs_a_record():
    r = gravel.connected_components(generate.grid(2, 2), device="cpu")
    with pytest.raises(InvalidArgumentError, match="no change per iteration"):
        plots.convergence_data(r)
    with pytest.raises(InvalidArgumentError, match="no BFS levels"):
        plots.level_data(r)


RECORD = {
    "schema": 1,
    "results": [
        {"graph": "g", "algo": "bfs", "device": "cpu", "time_s": 0.002, "min_s": 0.001,
         "max_s": 0.003, "scipy_s": 0.01, "speedup_vs_scipy": 5.0},
        {"graph": "g", "algo": "pagerank", "device": "cuda", "time_s": 0.004, "min_s": 0.004,
         "max_s": 0.005, "cusparse_s": 0.008, "cpu_s": 0.04},
    ],
}  # fmt: skip


def test_bench_bars_from_a_record_and_its_file(tmp_path):
    path = tmp_path / "bars.png"
    d = plots.bench_bars(RECORD, path)
    assert is_png(path)
    assert list(d["series"]) == ["gravel", "SciPy", "cuSPARSE", "gravel CPU path"]
    s = d["series"]
    assert s["gravel"].tolist() == [0.002, 0.004]
    assert s["SciPy"][0] == 0.01 and np.isnan(s["SciPy"][1])
    assert np.isnan(s["cuSPARSE"][0]) and s["gravel CPU path"][1] == 0.04
    assert d["spread"].tolist() == [[0.001, 0.003], [0.004, 0.005]]
    assert d["labels"][1] == "g\npagerank (cuda)"
    record = tmp_path / "bench.json"
    record.write_text(json.dumps(RECORD))
    again = plots.bench_bars(record, tmp_path / "bars.pdf")
    assert (tmp_path / "bars.pdf").read_bytes().startswith(b"%PDF")
    assert again["labels"] == d["labels"]
    with pytest.raises(InvalidArgumentError):
        plots.bench_bars({"results": [{"graph": "g"}]}, tmp_path / "x.png")


def test_unknown_type_is_refused_before_drawing(directed, tmp_path):
    with pytest.raises(UnknownNameError, match="unknown plot type"):
        plots.check_path(tmp_path / "d.jpg")
    with pytest.raises(UnknownNameError):
        plots.degree_distribution(directed, tmp_path / "d.txt")
    assert not list(tmp_path.iterdir())


@pytest.fixture
def no_matplotlib(monkeypatch):
    for name in ("matplotlib", "matplotlib.figure"):
        monkeypatch.setitem(sys.modules, name, None)  # `import` then raises ImportError


def test_missing_matplotlib_hint(directed, tmp_path, no_matplotlib):
    with pytest.raises(MissingDependencyError) as e:
        plots.degree_distribution(directed, tmp_path / "d.png")
    assert str(e.value) == plots.HINT and "pip install 'gravel[plot]'" in plots.HINT
    assert isinstance(e.value, ImportError)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv",
    [
        ["plot", "grid:3x3"],
        ["run", "bfs", "grid:3x3", "--plot", "{tmp}/x.png"],
        ["bench", "grid:3x3", "--algo", "bfs", "--plot", "{tmp}/x.png"],
    ],
)
def test_cli_missing_matplotlib_one_line_exit_2(argv, tmp_path, capsys, no_matplotlib):
    argv = [a.format(tmp=tmp_path) for a in argv] + (["--out", str(tmp_path)] * (argv[0] == "plot"))
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert "pip install 'gravel[plot]'" in err and err.count("\n") == 1
    assert "Traceback" not in err and not captured.out  # refused before any work
    assert not list(tmp_path.iterdir())


def test_cli_plot_writes_three_plots(tmp_path, capsys):
    assert main(["plot", "grid:6x7", "--out", str(tmp_path / "new"), "--device", "cpu"]) == 0
    names = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert names == ["grid_6x7-bfs-levels.png", "grid_6x7-degrees.png", "grid_6x7-pagerank.png"]
    assert all(is_png(tmp_path / "new" / n) for n in names)
    assert capsys.readouterr().out.count("->") == 3


def test_cli_plot_svg_of_a_file_and_an_edgeless_graph(tmp_path, capsys):
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n1 2\n2 0\n")
    assert main(["plot", str(edges), "--out", str(tmp_path), "--format", "svg"]) == 0
    assert all(is_svg(tmp_path / f"g-{k}.svg") for k in ("degrees", "bfs-levels", "pagerank"))
    lonely = tmp_path / "lonely.gravel"
    gravel.save(gravel.Graph.from_edges([], [], n=3), lonely)
    out = tmp_path / "lonely"
    assert main(["plot", str(lonely), "--out", str(out)]) == 0
    assert [p.name for p in out.iterdir()] == ["lonely-degrees.png"]  # no edges: no BFS, PageRank


@pytest.mark.parametrize(
    "algo,checked",
    [("bfs", "level_times"), ("pagerank", "changes"), ("cc", None)],
)
def test_cli_run_plot(algo, checked, tmp_path, capsys):
    path = tmp_path / f"{algo}.png"
    assert main(["run", algo, "grid:5x5", "--device", "cpu", "--json", "--plot", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["plot"] == str(path) and is_png(path)
    assert checked is None or checked not in out


def test_cli_run_plot_errors_exit_2_before_work(tmp_path, capsys):
    assert main(["run", "bfs", "grid:3x3", "--plot", str(tmp_path / "x.gif")]) == 2
    err = capsys.readouterr().err
    assert "unknown plot type" in err and err.count("\n") == 1
    assert main(["run", "bfs", "grid:3x3", "--plot", str(tmp_path / "no" / "x.png")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_cli_bench_plot(tmp_path, capsys, monkeypatch):
    from gravel import bench

    monkeypatch.setattr(bench, "copy_bandwidth", lambda device="cpu": 1e10)
    path, record = tmp_path / "bars.svg", tmp_path / "b.json"
    argv = ["bench", "grid:8x8", "--algo", "bfs", "--algo", "cc", "--device", "cpu"]
    assert main(argv + ["--repeat", "1", "--plot", str(path), "--json", str(record)]) == 0
    assert is_svg(path) and f"bars -> {path}" in capsys.readouterr().out
    d = plots.bench_data(record)
    assert d["labels"] == ["grid:8x8\nbfs (cpu)", "grid:8x8\ncc (cpu)"]
    assert np.isfinite(d["series"]["SciPy"]).all()


def test_importing_gravel_does_not_import_matplotlib():
    code = (
        "import sys, gravel, gravel.plots, gravel.cli; "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.gpu
def test_gpu_records():
    pytest.importorskip("cupy")
    G = generate.kronecker(12, 16, seed=3)
    r = gravel.bfs(G, int(np.argmax(G.out_degree)), device="cuda")
    marks = r.stats["level_times"]
    assert marks[0] == (0, 0.0) and marks[-1][0] == r.iterations
    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(marks, marks[1:]))
    d = plots.level_data(r)
    assert d["size"].sum() == int((r.depth >= 0).sum())
    r = gravel.bfs(generate.grid(200, 200), 0, device="cuda")  # thin levels: multi-step launches
    marks = r.stats["level_times"]
    assert marks[-1][0] == r.iterations and len(marks) <= r.iterations + 1
    assert all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(marks, marks[1:]))
    p = gravel.pagerank(G, device="cuda")
    assert len(p.stats["changes"]) == p.iterations and p.stats["changes"][-1] == p.stats["error"]
    fixed = gravel.pagerank(G, max_iter=9, tol=0.0, device="cuda")
    assert len(fixed.stats["changes"]) == 9
