"""benchmarks/louvain_levels.py: every call of the local moves recorded, the levels' vertices
never growing, their times within the run's, and the moves put back after the run."""

import importlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest

import gravel

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"
_spec = importlib.util.spec_from_file_location("louvain_levels", BENCHMARKS / "louvain_levels.py")
louvain_levels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(louvain_levels)
louvain = importlib.import_module("gravel.algorithms.louvain")


def test_levels_are_timed_and_the_moves_restored(tmp_path, monkeypatch):
    moves = louvain._move
    out = tmp_path / "r.json"
    monkeypatch.setattr(sys, "argv", ["louvain_levels.py", "kron:9", "--json", str(out)])
    louvain_levels.main()
    (row,) = json.loads(out.read_text())["rows"]
    S = gravel.generate.kronecker(9).simple_undirected()
    assert row["modularity"] == gravel.louvain_communities(S, seed=1, device="cpu").modularity
    levels = [m["vertices"] for m in row["moves"]]
    assert levels[0] == S.n and all(b <= a for a, b in zip(levels[:-1], levels[1:-1]))
    assert sum(m["seconds"] for m in row["moves"]) + row["rest_s"] == pytest.approx(row["total_s"])
    assert row["rest_s"] > 0
    assert louvain._move is moves
