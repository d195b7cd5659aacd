import functools
import json
import os
from pathlib import Path

import numpy as np
import pytest

# assertions in the shared helpers report their operands, as those in the tests do
pytest.register_assert_rewrite(
    "tests.algorithms.helpers", "tests.distributed.helpers", "tests.programs.helpers"
)

DATASETS = Path(
    os.environ.get("GRAVEL_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)


def pytest_collection_modifyitems(config, items):
    from gravel.backends import cuda

    if cuda.available():
        return
    skip = pytest.mark.skip(reason=f"needs a GPU: {cuda.why_unavailable()}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory, monkeypatch):
    # never write to the user's cache from tests
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "gravel-cache"))


def reference():
    if not (DATASETS / "reference.json").is_file():
        return []
    return json.loads((DATASETS / "reference.json").read_text())["graphs"]


def dataset_ids(entries):
    return [e["file"] for e in entries]


def load_dataset(entry):
    """Load a shared dataset the way its reference figures were computed; return (G, id of label
    fn)."""
    import gravel

    path = DATASETS / entry["file"]
    if not path.is_file():
        pytest.skip(f"{path} is absent (the shared datasets sit beside the checkout in CI)")
    if entry["format"] == "snap":
        G = gravel.load(path, undirected=not entry["directed"], relabel=True)
        return G, lambda label: int(np.searchsorted(G.labels, label))
    G = gravel.load(path)
    if entry["format"] == "mtx":
        # reference.json's BFS/SSSP figures for the .mtx files were computed from 0-based row
        # `label` (row label + 1 in the file), despite its note; checked against SciPy, both rows
        return G, lambda label: label
    return G, lambda label: label - 1


def require_datasets():
    if not (DATASETS / "reference.json").is_file():
        pytest.skip(f"{DATASETS} is absent (the shared datasets sit beside the checkout in CI)")


def fresh(G):
    """A copy of G with no device copy yet (hypothesis may hand the same graph twice)."""
    import gravel

    return gravel.Graph.from_csr(
        G.offsets, G.indices, G.weights, directed=G.directed, sorted_rows=True
    )


def small_pieces(dg, width, *, segment=64, piece=256):
    """The staged layout of the DeviceGraph `dg` at `width` for 4-byte values, its merge cut into
    pieces of `piece` pairs (a tile of many pieces folds through sums kept with the graph), put
    where neighbor_reduce's staged sweeps find it: staged_layout's own lookup must return it."""
    from gravel.layouts import staged

    tile = staged.STAGED_TILE_BYTES // 4
    in_off, in_idx, _ = dg.csc()
    build = staged.staged_pull(in_off, in_idx, dg.n, width, tile=tile, segment=segment, piece=piece)
    placed = dg.cached(("staged_pull", width, tile), lambda: build)
    assert staged.staged_layout(dg, width, tile) is placed, "the staged sweeps would not find it"
    return placed


#: the graphs that GPU tests in several files (algorithms, reorder) compare with the CPU path on
GPU_GRAPHS = ["kron", "grid", "urand-directed"]


@functools.cache
def gpu_graph(name):
    """One of GPU_GRAPHS, built on its first use (so never where the GPU tests are skipped)."""
    from gravel import generate, transform

    if name == "kron":
        return transform.add_random_weights(generate.kronecker(13, 16, seed=3), 1, 255, seed=2)
    if name == "grid":
        return generate.grid(60, 70)
    assert name == "urand-directed", name
    return generate.uniform_random(12, 8, seed=4, directed=True)
