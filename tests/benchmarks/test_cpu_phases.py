"""benchmarks/cpu_phases.py: every primitive's kernels timed and counted on a graph big enough
for the parallel path, their time within the run's, and the drivers' kernels back after the run."""

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
        assert all(r["calls"] >= 1 for r in timed.values())
        for t in ("ms_1", "ms_n"):  # the kernels' time is part of the run's
            inside = sum(r[t] for r in timed.values())
            assert 0 < inside <= mine["total"][t]
            assert abs(inside + mine["rest"][t] - mine["total"][t]) < 1e-6
    assert all(drivers[name]._k is kernels[name] for name in drivers)
    assert numba.get_num_threads() == threads
