"""Placement and budget at the entry points: ``Graph.to`` (with a stand-in for the CUDA backend, so
that CPU CI checks what it hands over) and the ``--placement``/``--device-memory`` flags."""

import json

import pytest

import gravel
from gravel import config
from gravel.backends import cuda
from gravel.cli import main
from gravel.placement import BUDGET_ENV

no_gpu = pytest.mark.skipif(cuda.available(), reason="checks the note printed without a GPU")


@pytest.fixture(autouse=True)
def _no_budget(monkeypatch):
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    monkeypatch.setattr(config, "device_memory", None)


@pytest.fixture
def device(monkeypatch):
    """A stand-in CUDA backend: `free` bytes free; `built` lists the keywords of each DeviceGraph
    made."""
    from gravel.backends.cuda import graph, runtime

    fake = type("FakeBackend", (), {"free": 10**9, "built": []})()

    class DeviceGraph:
        def __init__(self, G, **kwargs):
            fake.built.append(kwargs)

    monkeypatch.setattr(cuda, "available", lambda: True)
    monkeypatch.setattr(runtime, "free_bytes", lambda: fake.free)
    monkeypatch.setattr(graph, "DeviceGraph", DeviceGraph)
    return fake


@pytest.fixture
def G():
    """100 vertices, 360 arcs: 5,448 bytes of CSR and vertex state."""
    return gravel.generate.grid(10, 10)


# -- Graph.to ----------------------------------------------------------------------------------
def test_a_graph_that_fits_is_built_as_before(device, G):
    dg = G.to("cuda")
    assert device.built == [{}] and G.to("cuda") is dg and len(device.built) == 1


@pytest.mark.parametrize("how", ["argument", "config"])
def test_a_budget_hands_the_plan_over(device, G, how):
    if how == "argument":
        G.to("cuda", budget="1GB")
    else:
        with config.using(device_memory="1GB"):
            G.to("cuda")
    (kwargs,) = device.built
    assert kwargs["plan"].placement == "device" and kwargs["plan"].limit == 10**9


def test_a_graph_beyond_the_free_memory_goes_tiered(device, G):
    device.free = 5000
    G.to("cuda")
    (kwargs,) = device.built
    assert kwargs["plan"].placement == "tiered" and kwargs["plan"].limit == 5000


@pytest.mark.parametrize("placement", ["host", "managed", "tiered"])
def test_the_placement_asked_for_is_planned(device, G, placement):
    with config.using(placement=placement):
        G.to("cuda")
    assert device.built[0]["plan"].placement == placement


def test_nothing_is_built_for_a_graph_too_large(device, G):
    device.free = 100
    with pytest.raises(gravel.GraphTooLargeError, match="fits nowhere"):
        G.to("cuda")
    with pytest.raises(gravel.GraphTooLargeError, match="'device'"):
        G.to("cuda", placement="device")
    assert device.built == [] and G.device_graph is None


def test_cpu_checks_the_placement_and_ignores_the_rest(G):
    assert G.to("cpu", placement="tiered", budget="not a size") is G
    with pytest.raises(gravel.UnknownNameError, match="unknown placement 'gpu'"):
        G.to("cpu", placement="gpu")
    with config.using(placement="zero-copy"), pytest.raises(gravel.UnknownNameError):
        G.to("cpu")


# -- the command line --------------------------------------------------------------------------
@no_gpu
def test_info_says_how_many_bytes_go_where(capsys):
    assert main(["info", "grid:10x10", "--placement", "auto"]) == 0  # asked: no GPU here
    out = capsys.readouterr().out
    assert "placement device (asked: auto), no device limit known" in out
    assert "offsets" in out and "indices" in out and "vertex state: 3.12 KiB" in out
    assert "no GPU here: the budget defaults to the card's free memory" in out


@no_gpu
def test_info_under_a_budget(capsys):
    assert main(["info", "grid:10x10", "--device-memory", "5KiB"]) == 0
    out = capsys.readouterr().out
    assert "placement tiered (asked: auto), device limit 5.00 KiB" in out
    assert "hot_offsets" in out and "a sweep reads" in out
    assert "this plan is for the budget alone" in out


def test_info_json_has_the_plan(capsys, monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "4KB")
    assert main(["info", "grid:10x10", "--placement", "host", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vertices"] == 100 and info["plan"]["placement"] == "host"
    assert info["plan"]["device"]["offsets"] == 808 and info["plan"]["host"]["indices"] == 1440
    assert info["plan"]["limit"] <= 4000


@pytest.mark.parametrize("command", [["info"], ["run", "bfs"], ["bench", "--algo", "bfs"]])
def test_a_budget_that_does_not_parse_exits_2(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(command + ["grid:3x3", "--device-memory", "8XB"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gravel: error: --device-memory: '8XB' is not a size")
    assert err.count("\n") == 1


def test_a_bad_environment_budget_exits_2(capsys, monkeypatch):
    monkeypatch.setenv(BUDGET_ENV, "eight gigs")
    assert main(["run", "bfs", "grid:3x3", "--device", "cpu"]) == 2
    assert f"{BUDGET_ENV}: 'eight gigs' is not a size" in capsys.readouterr().err


def test_an_unknown_placement_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "bfs", "--placement", "gpu"])
    assert e.value.code == 2


def test_info_with_a_device_placement_too_large_exits_2(capsys):
    assert main(["info", "grid:10x10", "--placement", "device", "--device-memory", "1KB"]) == 2
    assert "placement 'device': its CSR needs 2.20 KiB" in capsys.readouterr().err


def test_run_sets_the_placement_for_its_graphs_only(capsys):
    argv = ["run", "bfs", "grid:3x3", "--device", "cpu", "--placement", "tiered"]
    assert main(argv + ["--device-memory", "1KB", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vertices"] == 9
    assert (config.placement, config.device_memory) == ("auto", None)


def test_bench_records_the_placement(tmp_path, capsys):
    out = tmp_path / "b.json"
    argv = ["bench", "grid:5x5", "--algo", "bfs", "--device", "cpu", "--repeat", "1"]
    argv += ["--no-baselines", "--placement", "host", "--device-memory", "2MiB", "--json", str(out)]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert data["placement"] == "host" and data["device_memory"] == 2**21
