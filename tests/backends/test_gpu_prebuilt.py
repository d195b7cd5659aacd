"""The built-in algorithms' kernels, built ahead of time: the recorded list covers what they launch,
on graphs unlike those it was recorded on too (widths picked by the mean degree), and a first run in
a fresh process with an empty CuPy cache compiles nothing (issue 17)."""

import json
import os
import re
import subprocess
import sys

import pytest

from gravel import generate, prebuild, transform
from gravel.algorithms.catalog import CUDA_CATALOG
from gravel.backends.cuda import runtime
from gravel.errors import PowerIterationFailedConvergence

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

FIRST_RUN = """
import json, sys
from gravel.algorithms.catalog import CATALOG
from gravel.backends.cuda import runtime
from gravel.cli import open_graph
G, _ = open_graph(None)
CATALOG[sys.argv[1]].call(G, 0, device="cuda")
print(json.dumps({"compiles": runtime.compiles}))
"""


@pytest.fixture(scope="module")
def built():
    """The package's prebuilt kernels for this card, built as installing gravel builds them."""
    cc = cupy.cuda.Device().compute_capability
    # captures again where the capture is older than the algorithms (it lacks what they compile)
    return prebuild.build(cc, capture=True)


@pytest.mark.parametrize(
    "G",
    [
        transform.add_random_weights(generate.kronecker(11, 8, seed=5)),
        generate.uniform_random(11, 8, seed=6, directed=True),
        generate.uniform_random(11, 1, seed=7),  # mean degree 2: narrow pulls, TWC advances
    ],
    ids=["kron-weighted", "urand-directed", "urand-sparse"],
)
def test_recorded_instances_cover_the_algorithms(G):
    recorded = set(prebuild.instances())
    with runtime.recording() as seen:
        for algo in CUDA_CATALOG.values():
            if algo.undirected_only and G.directed:
                continue
            try:
                algo.call(G, 0, device="cuda")
            except PowerIterationFailedConvergence:
                pass  # HITS on a graph of many small components: its kernels ran all the same
    assert seen and seen <= recorded, sorted(i[:2] for i in seen - recorded)


@pytest.mark.parametrize("algo", sorted(CUDA_CATALOG))
def test_first_run_on_a_fresh_machine_compiles_nothing(algo, built, tmp_path):
    # CuPy keeps each kernel's source beside it, so that a failure names what it compiled
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path), CUPY_CACHE_SAVE_CUDA_SOURCE="1")
    out = subprocess.run(
        [sys.executable, "-c", FIRST_RUN, algo], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout.splitlines()[-1]) == {"compiles": 0}, out.stderr
    # CuPy's cache holds what gravel seeded it with, and nothing CuPy compiled
    present = {f.name for f in tmp_path.glob("*.cubin")}
    seeded = {f.name for f in (built / "cupy").glob("*.cubin")}
    assert seeded <= present
    compiled = present - seeded
    assert not compiled, {name: kernels(tmp_path / f"{name}.cu") for name in sorted(compiled)}


def kernels(source):
    """The kernel names in a CUDA source that CuPy saved beside its cubin."""
    return re.findall(r"__global__\s+void\s+(\w+)", source.read_text()) if source.exists() else []
