"""Kernels built ahead of time are found by the hash of their whole source, so an edit to a kernel,
a header or a functor never loads a stale cubin (issue 17)."""

import concurrent.futures

import pytest

from gravel import prebuild
from gravel.backends.cuda import prebuilt, runtime
from gravel.operators import codegen as ops


def fake_build(root, code, expr, cooperative, cc=(9, 0)):
    folder = prebuilt.arch_dir(cc, root)
    folder.mkdir(parents=True, exist_ok=True)
    k = prebuilt.key(code, expr, cooperative)
    (folder / f"{k}.cubin").write_bytes(b"cubin")
    prebuilt.write_names(folder, {k: "_Z6loweredv"})


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
    recorded = prebuild.instances()
    assert recorded, "instances.json is empty: run scripts/record-kernels.py on a GPU"
    for path, expr, prelude, cooperative in recorded:
        assert (runtime.KERNELS / path).is_file(), path
        assert expr.split("<")[0] in (runtime.KERNELS / path).read_text(), expr
        assert isinstance(prelude, str) and isinstance(cooperative, bool)


def test_recorded_instances_define_the_functor_macros_as_the_operators_do():
    """A recorded prelude defines each functor macro with the parameters the operators write now:
    an instance recorded before a macro changed would never be found (its hash is the old
    source's), and every first run would compile it."""
    heads = {m.split("(")[0]: m for m in vars(ops).values() if str(m).startswith("GRAVEL_")}
    for path, expr, prelude, _ in prebuild.instances():
        for line in prelude.splitlines():
            name = line.removeprefix("#define ").split("(")[0].split(" ")[0]
            if line.startswith("#define ") and "(" in heads.get(name, ""):
                assert line.startswith(f"#define {heads[name]} "), (path, expr, line[:80])


def test_recorded_instances_are_complete():
    """What a launch picks from the graph at hand (a pull's lanes per list, advance's load
    balancing) is recorded for every choice, so the list covers graphs unlike those it was recorded
    on (the six algorithms' pulls launched widths the recording graphs never gave them)."""
    recorded = set(prebuild.instances())
    missing = prebuild.complete(recorded) - recorded
    assert not missing, "run scripts/record-kernels.py --complete: " + str(
        sorted(i[:2] for i in missing)
    )


def test_pull_lanes_are_every_width_the_pull_picks():
    from gravel.operators.sweeps import lanes_per_item

    degrees = [0.0, 1e-3, *(k / 64 for k in range(1, 64 * 80)), 1e3, 1e9]
    assert sorted({lanes_per_item(d) for d in degrees}) == prebuild.pull_lanes()
    assert prebuild.pull_lanes() == [1, 2, 4, 8, 16, 32]


def test_complete_adds_the_other_widths_and_load_balancing():
    pull = ("neighbor_reduce/pull.cu", "gravel_neighbor_reduce_pull<long long, 32>", "#define F\n")
    push = ("advance/twc.cu", "gravel_advance_twc<1, int>", "#define G\n")
    done = prebuild.complete([(*pull, False), (*push, False)])
    pulls = {e for p, e, pre, _ in done if p == pull[0] and pre == pull[2]}
    assert pulls == {f"gravel_neighbor_reduce_pull<long long, {w}>" for w in prebuild.pull_lanes()}
    merge = (
        "advance/merge_path.cu",
        "gravel_advance_merge_path<1, int, 256, 4>",
        "#define G\n",
        False,
    )
    assert (
        merge in done
        and ("advance/merge_path.cu", "gravel_merge_path_partition", "", False) in done
    )
    assert prebuild.complete(done) == done
    for path, expr, _, _ in done:  # each names a kernel of its file
        assert expr.split("<")[0] in (runtime.KERNELS / path).read_text(), expr


def test_a_capture_of_cupys_kernels_counts_only_for_the_current_algorithms(tmp_path, monkeypatch):
    monkeypatch.setattr(prebuild, "_capture_stamp", lambda: "now")
    folder = prebuilt.arch_dir("90", tmp_path)
    (folder / "cupy").mkdir(parents=True)
    assert not prebuild.captured("90", tmp_path)  # captured before captures were stamped
    (folder / "cupy.stamp").write_text("before")
    assert not prebuild.captured("90", tmp_path)
    (folder / "cupy.stamp").write_text("now")
    assert prebuild.captured("90", tmp_path)


def test_seeding_copies_what_the_cache_lacks_unless_turned_off(tmp_path, monkeypatch):
    captured = prebuilt.arch_dir((9, 0), tmp_path / "root") / "cupy"
    captured.mkdir(parents=True)
    for name in ("a.cubin", "b.cubin"):
        (captured / name).write_bytes(name.encode())
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "a.cubin").write_bytes(b"kept")
    monkeypatch.setenv("CUPY_CACHE_DIR", str(cache))
    monkeypatch.setenv(prebuilt.SEED, "0")  # a capture's own run: nothing carried over
    prebuilt.seed_cupy_cache((9, 0), tmp_path / "root")
    assert sorted(p.name for p in cache.iterdir()) == ["a.cubin"]
    monkeypatch.delenv(prebuilt.SEED)
    prebuilt.seed_cupy_cache((9, 0), tmp_path / "root")
    assert sorted(p.name for p in cache.iterdir()) == ["a.cubin", "b.cubin"]
    assert (cache / "a.cubin").read_bytes() == b"kept" and (
        cache / "b.cubin"
    ).read_bytes() == b"b.cubin"


def test_processes_seeding_one_cache_at_once_each_succeed(tmp_path, monkeypatch):
    captured = prebuilt.arch_dir((9, 0), tmp_path / "root") / "cupy"
    captured.mkdir(parents=True)
    names = [f"{i:03}.cubin" for i in range(200)]
    for name in names:
        (captured / name).write_bytes(name.encode() * 1000)
    cache = tmp_path / "cache"
    monkeypatch.setenv("CUPY_CACHE_DIR", str(cache))
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        seeded = [
            pool.submit(prebuilt.seed_cupy_cache, (9, 0), tmp_path / "root") for _ in range(8)
        ]
        for future in seeded:
            future.result()  # a writer whose temporary another renamed raised FileNotFoundError
    assert sorted(p.name for p in cache.iterdir()) == names  # no temporary left behind
    assert all((cache / n).read_bytes() == n.encode() * 1000 for n in names)
