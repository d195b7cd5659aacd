"""benchmarks/nx_collector.py: both modes timed on every call asked, and gravel's pause back in
place after the run."""

import json
import sys

import gravel.nx._algorithm as registry
from gravel.interop import collector_paused

from .helpers import script

nx_collector = script("nx_collector")


def test_both_modes_are_timed_and_the_pause_restored(tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    calls = ["single_source_shortest_path", "bfs_tree"]
    argv = ["nx_collector.py", "kron:8", "--calls", *calls, "--repeat", "2", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    nx_collector.main()
    rows = json.loads(out.read_text())["rows"]
    assert [(r["function"], r["mode"]) for r in rows] == [
        (c, m) for c in calls for m in ("paused", "unpaused")
    ]
    assert all(len(r["times_s"]) == 2 and 0 < r["median_s"] <= r["max_s"] for r in rows)
    assert registry.collector_paused is collector_paused
