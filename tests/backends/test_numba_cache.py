"""gravel's kernels are cached by their source's content (gravel.backends.cpu.cache): a cache
written beside a file holds for a copy of it with another modification time, and a changed file
compiles anew. Each run is a fresh process, as a user's first call after an install is."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from gravel.backends.cpu import cache

SRC = Path(__file__).resolve().parents[2] / "src"

KERNEL = textwrap.dedent(
    """
    import numba

    @numba.njit(cache=True)
    def total(a):
        s = 0
        for x in a:
            s += x * {factor}
        return s
    """
)

# imports the kernel module from argv[1] with gravel's locators (argv[1] counted as gravel's),
# calls it once and prints its result and the cache's hits and misses
RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import numpy as np

    from gravel.backends.cpu import cache

    cache.ROOTS.append(Path(sys.argv[1]).resolve())
    assert cache.install()
    sys.path.insert(0, sys.argv[1])
    import kernel

    value = kernel.total(np.arange(10, dtype=np.int64))
    stats = kernel.total.stats
    print(value, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
    """
)


def _run(folder):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(folder)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    value, hits, misses = map(int, out.stdout.split())
    return value, hits, misses


def _write(folder, factor):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.py").write_text(KERNEL.format(factor=factor))


def test_cache_survives_a_copy_with_a_new_mtime(tmp_path):
    first = tmp_path / "built"
    _write(first, 3)
    assert _run(first) == (3 * 45, 0, 1)  # compiled and cached
    assert any(first.glob("__pycache__/kernel.total-*.nbi"))
    moved = tmp_path / "installed"
    shutil.copytree(first, moved, copy_function=shutil.copyfile)  # times not kept, as pip does
    os.utime(moved / "kernel.py", (1e9, 1e9))
    assert os.stat(moved / "kernel.py").st_mtime != os.stat(first / "kernel.py").st_mtime
    assert _run(moved) == (3 * 45, 1, 0)  # loaded from the copied cache, not compiled


def test_changed_source_misses(tmp_path):
    folder = tmp_path / "pkg"
    _write(folder, 3)
    assert _run(folder)[1:] == (0, 1)
    assert _run(folder)[1:] == (1, 0)
    _write(folder, 5)
    assert _run(folder) == (5 * 45, 0, 1)


def test_content_stamp_follows_bytes_not_times(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("x = 1\n")
    os.utime(b, (1e9, 1e9))
    assert cache.content_stamp(a) == cache.content_stamp(b)
    b.write_text("x = 2\n")
    assert cache.content_stamp(a) != cache.content_stamp(b)


def _locator(py_file):
    """The locator Numba's cache picks for a function defined in `py_file`."""
    from numba.core.caching import FunctionCache

    namespace = {}
    exec(compile("def f():\n    pass\n", str(py_file), "exec"), namespace)
    return FunctionCache(namespace["f"])._impl.locator


def test_only_gravels_files_are_stamped(tmp_path):
    assert cache.install()
    kernel = Path(cache.__file__).with_name("fill.py")
    assert type(_locator(kernel)).__name__ == "ContentStampedInTreeCacheLocator"
    outside = tmp_path / "other.py"
    outside.write_text("")
    assert not type(_locator(outside)).__name__.startswith("ContentStamped")


def test_unknown_numba_internals_leave_numba_alone():
    # Numba without the internals gravel knows: no locator, kernels still compile and run
    code = textwrap.dedent(
        """
        import numpy as np
        from numba.core import caching

        del caching._SourceFileBackedLocatorMixin
        from gravel.backends.cpu import cache, fill

        print(cache.install(), fill.full(3, 7, np.int64).tolist())
        """
    )
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(None, 1) == ["False", "[7, 7, 7]\n"]


def test_large_paths_send_small_graphs_down_the_parallel_path():
    # the CPU prebuild compiles the large graphs' kernels on small graphs by lowering these
    import importlib

    from gravel.backends.cpu.serial import is_small
    from gravel.prebuild_cpu import THRESHOLDS, large_paths

    def values():
        return [getattr(importlib.import_module(m), name) for m, name, _ in THRESHOLDS]

    before = values()
    assert is_small(1)
    with large_paths():
        assert not is_small(1)
        assert values() == [value for _, _, value in THRESHOLDS]
    assert is_small(1)
    assert values() == before


def test_unwritable_install_seeds_the_users_cache(tmp_path):
    # an install whose __pycache__ cannot be written: Numba caches in the user's folder, which
    # gravel first fills with the kernels compiled into the install
    folder = tmp_path / "site"
    _write(folder, 7)
    assert _run(folder)[1:] == (0, 1)
    code = RUN.replace(
        "assert cache.install()",
        "assert cache.install()\n"
        "from numba.core import caching\n"
        "caching.CacheImpl._locator_classes[:] = [\n"
        "    c for c in caching.CacheImpl._locator_classes if 'InTree' not in c.__name__]",
    )
    env = dict(os.environ, PYTHONPATH=str(SRC), XDG_CACHE_HOME=str(tmp_path / "user"))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", code, str(folder)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(7 * 45), "1", "0"]
    assert any((tmp_path / "user" / "numba").rglob("kernel.total-*.nbi"))
