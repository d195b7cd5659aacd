"""Kernels built ahead of time are found by the hash of their whole source, so an edit to a kernel,
a header or a functor never loads a stale cubin (issue 17)."""

import json

import pytest

from gravel.backends.cuda import prebuilt, runtime


def fake_build(root, code, expr, cooperative, cc=(9, 0)):
    folder = prebuilt.arch_dir(cc, root)
    folder.mkdir(parents=True, exist_ok=True)
    k = prebuilt.key(code, expr, cooperative)
    (folder / f"{k}.cubin").write_bytes(b"cubin")
    (folder / "names.json").write_text(json.dumps({k: "_Z6loweredv"}))
    prebuilt._names.cache_clear()


def test_a_built_instance_is_found_for_its_card_only(tmp_path):
    code = runtime.source("compute/compute.cu", "#define X 1\n")
    fake_build(tmp_path, code, "gravel_compute", False)
    cubin, lowered = prebuilt.find(code, "gravel_compute", False, (9, 0), tmp_path)
    assert cubin.read_bytes() == b"cubin" and lowered == "_Z6loweredv"
    assert prebuilt.find(code, "gravel_compute", False, (8, 0), tmp_path) is None


@pytest.mark.parametrize(
    "change",
    [
        lambda code, expr, coop: (code + "\n// edited", expr, coop),
        lambda code, expr, coop: (code, expr + "<1>", coop),
        lambda code, expr, coop: (code, expr, not coop),
    ],
)
def test_any_change_to_an_instance_misses(tmp_path, change):
    code = runtime.source("compute/compute.cu", "#define X 1\n")
    fake_build(tmp_path, code, "gravel_compute", False)
    assert prebuilt.find(*change(code, "gravel_compute", False), (9, 0), tmp_path) is None


def test_a_missing_cubin_or_index_misses(tmp_path):
    code = runtime.source("compute/compute.cu")
    fake_build(tmp_path, code, "gravel_compute", False)
    next(prebuilt.arch_dir((9, 0), tmp_path).glob("*.cubin")).unlink()
    assert prebuilt.find(code, "gravel_compute", False, (9, 0), tmp_path) is None
    assert prebuilt.find(code, "gravel_compute", False, (9, 0), tmp_path / "none") is None


def test_recorded_instances_name_kernel_files():
    recorded = prebuilt.instances()
    assert recorded, "instances.json is empty: run scripts/record-kernels.py on a GPU"
    for path, expr, prelude, cooperative in recorded:
        assert (runtime.KERNELS / path).is_file(), path
        assert expr.split("<")[0] in (runtime.KERNELS / path).read_text(), expr
        assert isinstance(prelude, str) and isinstance(cooperative, bool)
