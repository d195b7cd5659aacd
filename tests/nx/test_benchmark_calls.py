"""benchmarks/nx_calls.py times every function the backend serves, and each of its calls gives
NetworkX's answer through the backend on a small graph of its kind."""

import importlib.util
from pathlib import Path

import networkx as nx
import pytest

from gravel.cli import open_graph
from gravel.nx._info import FUNCTIONS

_spec = importlib.util.spec_from_file_location(
    "nx_calls", Path(__file__).parents[2] / "benchmarks" / "nx_calls.py"
)
nx_calls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nx_calls)


@pytest.fixture(scope="module")
def inputs():
    nx.config.warnings_to_ignore.add("cache")
    yield nx_calls.Inputs(open_graph("kron:7", undirected=True)[0])
    nx.config.warnings_to_ignore.discard("cache")


def test_every_function_has_a_benchmark_call():
    assert set(FUNCTIONS) - set(nx_calls.CALLS) == set()


def agrees(inputs, name, tolerance):
    """The call's answer through the backend is NetworkX's, to `tolerance`."""
    call = nx_calls.CALLS[name]
    G = inputs.graph(call.kind)
    got = call.run(inputs, G, backend="gravel")
    if call.seeded:  # a random draw: NetworkX's draw differs, and tests/nx checks its validity
        return
    assert nx_calls.difference(call.run(inputs, G), got) < tolerance


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_benchmark_call_agrees_with_networkx(inputs, name):
    agrees(inputs, name, 1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_benchmark_call_agrees_with_networkx_on_the_gpu(inputs, name):
    """Every function on the GPU (float32 there: ranks and scores to 1e-5), on kron:7, whose
    isolated vertices and hubs reach paths the suites' small graphs may not."""
    with nx.config.backends.gravel(device="cuda"):
        agrees(inputs, name, 1e-5)
