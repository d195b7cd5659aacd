"""gravel.distributed from the command line and the benchmarks: ``gravel run --parts`` for BFS,
triangle counts, core numbers and betweenness against the single-process CPU path, and its errors;
and every algorithm that ``gravel bench --gpus`` and benchmarks/multigpu.py time runs on 3 parts and
matches the single process's answer."""

import numpy as np
import pytest

import gravel
import gravel.distributed as gd
from gravel import programs
from gravel.distributed import timing


def test_gravel_run_with_parts(tmp_path, capsys):
    pytest.importorskip("distributed")
    import json

    from gravel.cli import main

    out = tmp_path / "depth.npy"
    argv = ["run", "bfs", "grid:6x5", "--source", "7", "--parts", "2", "--json", "-o", str(out)]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["parts"] == 2 and "distributed" in summary["strategy"]
    assert np.array_equal(
        np.load(out), gravel.bfs(gravel.generate.grid(6, 5), 7, device="cpu").depth
    )


@pytest.mark.parametrize(
    ("algo", "reference", "field"),
    [
        ("tc", lambda G: gravel.triangles(G, device="cpu").triangles, "triangles"),
        ("kcore", lambda G: gravel.core_number(G, device="cpu").core, "core"),
        ("bc", lambda G: gravel.betweenness_centrality(G, device="cpu").centrality, "centrality"),
    ],
)
def test_gravel_run_counts_and_centrality_on_parts(algo, reference, field, tmp_path, capsys):
    pytest.importorskip("distributed")
    from gravel.cli import main

    out = tmp_path / f"{field}.npy"
    assert main(["run", algo, "kron:7", "--parts", "2", "--json", "-o", str(out)]) == 0
    assert "distributed" in capsys.readouterr().out
    np.testing.assert_allclose(np.load(out), reference(gravel.generate.from_spec("kron:7")))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "hits", "grid:3x3", "--parts", "2"], "--parts runs bfs, sssp, pagerank, cc, bc"),
        (["run", "bfs", "grid:3x3", "--parts", "0"], "--parts must be at least 1"),
        (["run", "bfs", "grid:3x3", "--parts", "2", "--device", "cuda"], "CPU workers"),
    ],
)
def test_gravel_run_parts_errors(argv, says, capsys):
    from gravel.cli import main

    assert main(argv) == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("algo", timing.ALGOS)
def test_every_timed_algorithm_runs_on_parts_and_matches(algo):
    """Each name `gravel bench --gpus` and benchmarks/multigpu.py time gives a row, and the run
    it times the single process's answer."""
    G = gravel.generate.kronecker(8, 8, seed=2)
    PG = gd.partition(G, 3)
    hub, delta = int(np.argmax(G.out_degree)), timing.delta_for(PG)
    row = timing.measure(PG, algo, name="kron:8", repeat=1, source=hub, delta=delta)
    assert row["parts"] == 3 and row["time_s"] > 0 and row["device"] == "cpu x3"
    got = timing.runner(PG, algo, hub, delta)()
    depth = gravel.bfs(G, hub, device="cpu").depth
    if algo in ("bfs", "bfs-program", "sssp"):  # unweighted: the distances are the depths
        named = {"bfs": "depth", "bfs-program": "state", "sssp": "distance"}[algo]
        dist, reached = np.asarray(getattr(got, named), float), depth >= 0
        np.testing.assert_array_equal(dist[reached], depth[reached])
        assert not np.any((dist[~reached] >= 0) & np.isfinite(dist[~reached]))
    elif algo == "cc":
        ref = gravel.connected_components(G, device="cpu").labels
        assert len(set(zip(got.labels.tolist(), ref.tolist()))) == len(set(ref.tolist()))
    elif algo == "tc":
        assert got.total == gravel.triangles(G, device="cpu").total
    elif algo == "kcore":
        np.testing.assert_array_equal(got.core, gravel.core_number(G, device="cpu").core)
    elif algo == "pagerank":
        ref = gravel.pagerank(G, max_iter=20, tol=0.0, weight=None, device="cpu").rank
        np.testing.assert_allclose(got.rank, ref, rtol=1e-9)
        assert row["algo"] == "pagerank/iteration" and row["iterations"] == 20
    elif algo == "pagerank-program":
        prog = programs.pagerank(tol=0.0)
        ref = programs.run(G, prog, max_iter=20, device="cpu", direction="pull").state
        np.testing.assert_allclose(got.state, ref, rtol=1e-12)
        assert row["algo"] == "pagerank-program/iteration" and row["iterations"] == 20
    else:
        pytest.fail(f"no check for {algo}")
