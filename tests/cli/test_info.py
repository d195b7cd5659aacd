"""`gravel info`: what the graph takes on the CPU always; where its arrays would go on the GPU
where a GPU is present or when --placement or --device-memory asks for it."""

import json

import pytest

from gravel.backends import cuda
from gravel.cli import main


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(cuda, "available", lambda: False)
    monkeypatch.delenv("GRAVEL_DEVICE_MEMORY", raising=False)


def test_info_without_a_gpu_shows_the_cpu_and_no_plan(no_gpu, capsys):
    assert main(["info", "grid:10x10"]) == 0
    out = capsys.readouterr().out
    assert "on the CPU: " in out and "the CSR takes 2.20 KiB of host memory" in out
    assert "placement" not in out.replace("--placement", "") and "vertex state" not in out
    assert "no GPU here: gravel runs on the CPU (--placement or --device-memory" in out
    assert main(["info", "grid:10x10", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert "plan" not in info and info["cpu"]["csr_bytes"] == 808 + 1440
    assert info["cpu"]["in_arcs_bytes"] == 0 and info["cpu"]["threads"] >= 1


@pytest.mark.parametrize("flags", [["--placement", "auto"], ["--device-memory", "1GB"]])
def test_info_without_a_gpu_shows_the_plan_when_asked(no_gpu, flags, capsys):
    assert main(["info", "grid:10x10"] + flags) == 0
    out = capsys.readouterr().out
    assert "on the CPU: " in out and "placement device (asked: auto)" in out
    assert main(["info", "grid:10x10", "--json"] + flags) == 0
    assert json.loads(capsys.readouterr().out)["plan"]["placement"] == "device"


def test_info_with_a_gpu_shows_the_plan(monkeypatch, capsys):
    from gravel.backends.cuda import runtime

    monkeypatch.setattr(cuda, "available", lambda: True)
    monkeypatch.setattr(runtime, "free_bytes", lambda: 10**9)
    assert main(["info", "grid:10x10"]) == 0
    out = capsys.readouterr().out
    assert "placement device (asked: auto), device limit" in out and "no GPU here" not in out
