"""Every public algorithm has a description in the catalog and runs from Python, ``gravel run`` and
``gravel bench``, each output accepted by the algorithm's verifier. One test per algorithm and entry
point, so that one failure hides no other."""

import inspect
import json
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import gravel
from gravel.algorithms.catalog import CATALOG
from gravel.arrays import host
from gravel.cli import main

NAMES = list(CATALOG)
#: (name, device) for each device an algorithm has a path on, the GPU's marked
RUNS = [
    pytest.param(name, device, marks=[pytest.mark.gpu] if device == "cuda" else [])
    for name in NAMES
    for device in CATALOG[name].devices
]


def public_algorithms():
    """The functions of gravel.algorithms that gravel or gravel.algorithms export."""
    exported = [getattr(gravel, n) for n in gravel.__all__]
    exported += [getattr(gravel.algorithms, n) for n in gravel.algorithms.__all__]
    found = {
        f.__name__: f
        for f in exported
        if inspect.isfunction(f) and f.__module__.startswith("gravel.algorithms.")
    }
    return [found[n] for n in sorted(found)]


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    """A small weighted graph with isolated vertices, as a file every entry point reads."""
    G = gravel.transform.add_random_weights(gravel.generate.kronecker(7), 1, 64, seed=1)
    path = tmp_path_factory.mktemp("public_api") / "kron7.gravel"
    gravel.save(G, path)
    return path


def busiest(G):
    return int(np.argmax(G.out_degree))


def check_verified(algo, G, result, source):
    """The algorithm's module has a verifier, and it accepts `result`."""
    assert algo.verifier is not None, f"gravel.algorithms.{algo.module} has no verify_{algo.module}"
    assert algo.verify(G, result, source) == []


def test_the_catalog_imports_no_cupy():
    code = "import sys, gravel.algorithms.catalog; assert 'cupy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


#: scores of vertex pairs, not of vertices: no description (``gravel run`` writes vertex columns)
PAIRWISE = {"link_prediction"}


@pytest.mark.parametrize(
    "fn", [f for f in public_algorithms() if f.__name__ not in PAIRWISE], ids=lambda f: f.__name__
)
def test_public_algorithm_is_described(fn):
    assert fn in [a.function for a in CATALOG.values()], f"{fn.__name__} has no description"


@pytest.mark.parametrize("name", NAMES)
def test_description_matches_its_function(name, graph_file):
    algo = CATALOG[name]
    assert algo.function_name in gravel.__all__
    assert getattr(gravel, algo.function_name) is algo.function
    params = list(inspect.signature(algo.function).parameters)
    assert (params[1] == "source") == algo.takes_source
    G = gravel.load(graph_file)
    for keyword in (*algo.options, *algo.timed(G), "device"):
        assert keyword in params, f"{algo.function_name} takes no {keyword!r}"


@pytest.mark.parametrize("name,device", RUNS)
def test_runs_from_python(name, device, graph_file):
    algo, G = CATALOG[name], gravel.load(graph_file)
    source = busiest(G) if algo.takes_source else None
    result = algo.call(G, source, device=device)
    assert result.device == device
    for array in algo.arrays:
        assert host(getattr(result, array)).shape == (G.n,), array
    check_verified(algo, G, result, source)


def read_csv(path):
    """The columns of ``gravel run -o x.csv`` by header, integer columns as integers."""
    table = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="ascii")
    return {n: np.atleast_1d(table[n]) for n in table.dtype.names}


@pytest.mark.parametrize("name,device", RUNS)
def test_runs_from_the_cli(name, device, graph_file, tmp_path, capsys):
    algo, G = CATALOG[name], gravel.load(graph_file)
    source = busiest(G) if algo.takes_source else None
    out = tmp_path / "result.csv"
    argv = ["run", name, str(graph_file), "--device", device, "--json", "-o", str(out)]
    assert main(argv + (["--source", str(source)] if algo.takes_source else [])) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["vertices"] == G.n and summary["device"] == device
    assert summary["algorithm"] in (name, algo.function_name)
    columns = read_csv(out)
    assert list(columns) == ["vertex", *algo.arrays]
    check_verified(algo, G, SimpleNamespace(**columns), source)


@pytest.mark.parametrize("name,device", RUNS)
def test_runs_from_the_bench(name, device, graph_file, tmp_path):
    algo, G = CATALOG[name], gravel.load(graph_file)
    out = tmp_path / "bench.json"
    argv = ["bench", str(graph_file), "--algo", name, "--device", device, "--repeat", "1"]
    assert main(argv + ["--verify", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["results"]
    assert row["algo"] == name and row["device"] == device and row["n"] == G.n
    assert row["verified"] is True  # its answer, run as timed, passed its verifier
    assert 0 < row["min_s"] <= row["time_s"] <= row["max_s"]
    assert row["gteps"] > 0 and row["floor_ratio"] > 0
    for base in algo.baselines:
        if base.device == "cpu" or device == "cuda":
            assert row[f"{base.name}_s"] > 0, base.name
    if device == "cuda":
        assert row["cpu_s"] > 0 and "launches" in row


@pytest.mark.parametrize("name", gravel.algorithms.__all__)
def test_a_graph_of_another_library_is_named(name):
    import networkx as nx

    with pytest.raises(
        TypeError, match=f"{name} takes a gravel.Graph, not a networkx.*from_networkx"
    ):
        getattr(gravel, name)(nx.path_graph(3))
    with pytest.raises(TypeError, match=f"{name} takes a gravel.Graph, not a builtins.list"):
        getattr(gravel, name)([[0, 1]])
