"""Issue 51: permissions changed under the command. A source it may not read (its cached copy
too), an output folder it may not write (for each command that writes), and a cache folder that
others may write or that another user owns: each ends with its exit status and one line, and no
temporary left. Nine cases; the runs are confined (as root: without the capabilities that let
root read and write any file) and go side by side."""

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

import gravel
from gravel.cli import main

from .helpers import CONFINE, one_line, temporaries
from .helpers import gravel as run_gravel

pytestmark = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which(CONFINE[0]) is None,
    reason="as root, file modes bind only a run confined by setpriv",
)


@pytest.fixture
def place(tmp_path):
    source = tmp_path / "graph.txt"
    gravel.save(gravel.generate.kronecker(7, 4, seed=2, device="cpu", progress=False), source)
    locked = tmp_path / "read-only"
    locked.mkdir()
    return tmp_path, source, locked


#: commands that write into a folder, with where
WRITERS = {
    "convert": ["convert", "{source}", "{locked}/g.mtx"],
    "run -o": ["run", "bfs", "{source}", "--device", "cpu", "-o", "{locked}/levels.npy"],
    "generate -o": ["generate", "grid:4x4", "-o", "{locked}/grid.mtx"],
    "bench --json": ["bench", "{source}", "--algo", "bfs", "--repeat", "1", "--device", "cpu"]
    + ["--json", "{locked}/bench.json"],
    "plot --out": ["plot", "{source}", "--device", "cpu", "--out", "{locked}"],
}


def test_issue_51_what_the_command_may_not_read_or_write_is_one_error(place):
    tmp, source, locked = place
    cache = tmp / "cache"
    env = {"GRAVEL_CACHE_DIR": str(cache)}
    cached, readable = tmp / "cached.txt", tmp / "readable.txt"
    shutil.copy(source, cached)
    shutil.copy(source, readable)
    assert run_gravel(["info", cached], env=env)[0] == 0  # its copy is in the cache now
    for path in (source, cached):
        path.chmod(0)
    locked.chmod(0o555)
    cases = {
        "unreadable source": ["info", source],
        "unreadable source with a cached copy": ["info", cached],
    }
    cases |= {
        name: [a.format(source=readable, locked=locked) for a in args]
        for name, args in WRITERS.items()
    }
    try:
        with ThreadPoolExecutor(len(cases)) as pool:
            runs = pool.map(lambda a: run_gravel(a, env=env, confined=True), cases.values())
            done = dict(zip(cases, runs))
    finally:
        locked.chmod(0o755)
        for path in (source, cached):
            path.chmod(0o644)
    for name, (status, _, err) in done.items():
        assert status == 2, (name, err)
        one_line(err, "gravel: error: ")
        named = {"unreadable source": source, "unreadable source with a cached copy": cached}
        assert str(named.get(name, locked)) in err, (name, err)  # the error names the path
    assert list(locked.iterdir()) == []
    assert not temporaries(tmp)


@pytest.mark.parametrize("folder", ["writable by others", "owned by another user"])
def test_issue_51_an_untrusted_cache_folder_is_not_used_with_one_warning(
    place, folder, monkeypatch, capsys
):
    tmp, source, _ = place
    cache = tmp / "cache"
    cache.mkdir(mode=0o700)
    if folder == "writable by others":
        cache.chmod(0o777)
    elif os.geteuid() == 0:
        os.chown(cache, 54321, 54321)
    else:
        pytest.skip("giving a folder to another user needs root")
    monkeypatch.setenv("GRAVEL_CACHE_DIR", str(cache))
    status = main(["info", str(source), "--json"])
    out, err = capsys.readouterr()
    assert status == 0 and json.loads(out)["vertices"] == 2**7
    one_line(err, f"gravel: warning: not using the binary cache {cache}")
    assert list(cache.iterdir()) == []
