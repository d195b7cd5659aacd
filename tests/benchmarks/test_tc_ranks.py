"""benchmarks/tc_ranks.py: both ranks timed on every graph, their totals equal, the rule's pick
recorded, and the rule back in place after the run."""

import importlib
import json
import sys

from .helpers import script

tc_ranks = script("tc_ranks")
triangles = importlib.import_module("gravel.algorithms.triangles")


def test_both_ranks_are_timed_and_the_rule_restored(tmp_path, monkeypatch):
    rule = triangles.ranks_by_degree
    out = tmp_path / "r.json"
    argv = ["tc_ranks.py", "kron:9:32", "grid:20x20:diag", "--repeat", "2", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    tc_ranks.main()
    rows = json.loads(out.read_text())["rows"]
    assert [r["graph"] for r in rows] == ["kron:9:32", "grid:20x20:diag"]
    assert [r["picked"] for r in rows] == ["degree", "id"]
    assert rows[1]["triangles"] == 2 * 19 * 19 * 2  # each unit square with both diagonals: 4
    assert all(len(r["degree_times_s"]) == len(r["id_times_s"]) == 2 for r in rows)
    assert triangles.ranks_by_degree is rule
