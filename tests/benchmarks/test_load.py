"""benchmarks/load.py's disk side: the file system it names is df's, and a file read after its
pages are evicted is still the file."""

import subprocess

from .helpers import script

load = script("load")


def test_file_system_is_dfs(tmp_path):
    out = subprocess.run(
        ["df", "--output=fstype", str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert load.file_system(tmp_path) == out.stdout.split()[-1]
    assert load.file_system("/proc/self") == "proc"


def test_disk_rows_read_each_text_cold_and_warm(tmp_path):
    data = b"1 2\n" * 100_000
    for suffix in (".mtx", ".txt", ".gr"):
        (tmp_path / f"kron_9{suffix}").write_bytes(data)
    rows = load.disk_rows("kron:9", tmp_path)
    assert [(r["format"], r["cache"]) for r in rows] == [
        (s, c) for s in (".mtx", ".txt", ".gr") for c in ("cold", "warm")
    ]
    assert all(r["MB_per_s"] == len(data) / 1e6 / r["seconds"] > 0 for r in rows)
    assert (tmp_path / "kron_9.txt").read_bytes() == data  # eviction leaves the bytes
