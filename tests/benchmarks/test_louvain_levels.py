"""benchmarks/louvain_levels.py: every call of the local moves recorded, the levels' vertices
never growing, their times within the run's, and the moves put back after the run."""

import importlib
import json
import sys

import pytest

import gravel

from .helpers import script

louvain_levels = script("louvain_levels")
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
