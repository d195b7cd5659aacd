"""benchmarks/sssp_delta.py on the CPU: it times the widths asked for, each a multiple of the CPU's
default, and puts back the GPU's shares and the CPU's SERIAL_ARCS it sets for a case."""

import json
import sys

import pytest

from gravel.algorithms.sssp import cpu as sssp_cpu
from gravel.algorithms.sssp import cuda as sssp_cuda

from .helpers import script

sssp_delta = script("sssp_delta")


def test_cpu_widths_and_shares_run_and_restore(tmp_path, monkeypatch):
    out = tmp_path / "delta.json"
    before = (sssp_cuda.PULL_SHARE, sssp_cuda.PUSH_SHARE, sssp_cuda.PULL_ARCS)
    argv = ["sssp_delta.py", "grid:12x12", "--device", "cpu", "--factors", "1", "8", "--shares"]
    argv += ["off", "--serial-arcs", "0", "--repeat", "1", "--json", str(out)]
    serial = sssp_cpu.SERIAL_ARCS
    monkeypatch.setattr(sys, "argv", argv)
    sssp_delta.main()
    assert (sssp_cuda.PULL_SHARE, sssp_cuda.PUSH_SHARE, sssp_cuda.PULL_ARCS) == before
    assert sssp_cpu.SERIAL_ARCS == serial
    rows = json.loads(out.read_text())["rows"]
    cases = ["default", "1 x the CPU's", "8 x the CPU's", "off", "SERIAL_ARCS 0"]
    assert [r["case"] for r in rows] == cases
    assert rows[2]["delta"] == pytest.approx(8 * rows[1]["delta"])
    assert all(r["ms"] > 0 and r["steps"] > 0 for r in rows)
