"""benchmarks/cpu_phases.py: every primitive's kernels timed and counted on a graph big enough
for the parallel path, and the drivers' kernels back after the run."""

import importlib
import json
import sys

import numba

from .helpers import script

cpu_phases = script("cpu_phases")


def test_each_driver_is_timed_kernel_by_kernel_and_restored(tmp_path, monkeypatch):
    drivers = {name: importlib.import_module(m) for name, m in cpu_phases.DRIVERS.items()}
    kernels = {name: d._k for name, d in drivers.items()}
    threads = numba.get_num_threads()
    out = tmp_path / "p.json"
    argv = ["cpu_phases.py", "kron:16", "--threads", "2", "--repeat", "1", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    cpu_phases.main()
    rows = json.loads(out.read_text())["rows"]
    for name in cpu_phases.DRIVERS:
        mine = {r["kernel"]: r for r in rows if r["primitive"] == name}
        timed = {k: r for k, r in mine.items() if k not in ("total", "rest")}
        assert timed, f"{name}: no kernel timed"
        assert all(r["calls"] >= 1 and r["ms_1"] > 0 and r["ms_n"] > 0 for r in timed.values())
        assert mine["total"]["ms_1"] > 0 and mine["total"]["ms_n"] > 0
    # SSSP on a graph of 2 M arcs takes the parallel phases, each kernel counted
    sssp = {r["kernel"] for r in rows if r["primitive"] == "sssp"}
    assert {"relax", "file_lowered", "next_frontier", "arc_ends"} <= sssp
    assert all(drivers[name]._k is kernels[name] for name in drivers)
    assert numba.get_num_threads() == threads
