"""Issue 51: a full disk under the outputs. A 64 KiB tmpfs where this machine lets the test mount
one (root), else a file-size limit (RLIMIT_FSIZE: the write fails with EFBIG as it would with
ENOSPC). Every command that writes a file fails with exit 2 and one line naming the file, leaves
no temporary and frees what it took; a cache that cannot be written costs one warning, not the
run. The host's memory running out is one line too."""

import json
import os
import resource
import shutil
import subprocess

import pytest

import gravel

from .helpers import gravel as run_gravel
from .helpers import one_line, temporaries

SIZE = 64 << 10


@pytest.fixture
def full(tmp_path):
    """A folder that takes SIZE bytes at most, and how a run must be started to meet it."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    mounted = (
        os.geteuid() == 0
        and shutil.which("mount") is not None
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(folder)],
            capture_output=True,
        ).returncode
        == 0
    )
    if mounted:
        yield folder, {}
        subprocess.run(["umount", str(folder)], check=True)
        return

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (SIZE, SIZE))

    yield folder, {"preexec_fn": limit}


#: commands whose output is far above SIZE
WRITERS = {
    "generate": ["generate", "kron:10", "-o", "{out}/g.mtx"],
    "convert": ["convert", "{source}", "{out}/g.txt"],
    "run -o": ["run", "pagerank", "kron:12", "--device", "cpu", "-o", "{out}/rank.csv"],
}


def _used(folder):
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_issue_51_a_full_disk_for_an_output_is_one_error_and_leaves_nothing(
    command, full, tmp_path
):
    folder, how = full
    source = tmp_path / "kron10.mtx"
    gravel.save(gravel.generate.kronecker(10, seed=4, device="cpu", progress=False), source)
    args = [a.format(out=folder, source=source) for a in WRITERS[command]]
    status, _, err = run_gravel(args, env={"GRAVEL_CACHE_DIR": str(tmp_path / "cache")}, **how)
    assert status == 2, err
    one_line(err, "gravel: error: ")
    assert str(folder / os.path.basename(args[-1])) in err  # names the file, not a temporary
    assert "No space left" in err or "File too large" in err
    assert list(folder.iterdir()) == [] and _used(folder) == 0
    assert not temporaries(folder, tmp_path)


def test_issue_51_a_cache_on_a_full_disk_costs_one_warning(full, tmp_path):
    folder, how = full
    source = tmp_path / "kron10.txt"
    G = gravel.generate.kronecker(10, seed=4, device="cpu", progress=False)
    gravel.save(G, source)
    env = {"GRAVEL_CACHE_DIR": str(folder / "cache")}
    status, out, err = run_gravel(["info", source, "--json"], env=env, **how)
    assert status == 0 and json.loads(out)["vertices"] == G.n
    one_line(err, "gravel: warning: could not write the binary cache")
    assert not temporaries(folder)
    assert [p.name for p in (folder / "cache").iterdir()] == ["key"]


def test_issue_51_host_memory_running_out_is_one_line(tmp_path):
    """The host's memory running out mid-run (an address-space limit far below what kron:16's
    build takes) is one line and exit 2, as the device's is (test_gpu_memory)."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    status, _, err = run_gravel(
        ["run", "pagerank", "kron:30", "--device", "cpu", "-o", tmp_path / "rank.npy"],
        preexec_fn=limit,
    )
    assert status == 2, err
    one_line(err, "gravel: error: out of memory: ")
    assert list(tmp_path.iterdir()) == []
