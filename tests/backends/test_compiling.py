"""Kernels compiled at first use: their time stays out of an algorithm's and is reported apart
(``compile_s``), and gravel says when it compiles for a while, in the library as on the command line
(issues 17 and 50)."""

import io
import subprocess
import sys
import time
from contextlib import ExitStack, contextmanager

import numba
import numpy as np
from numba.core import event

import gravel
from gravel import compiling
from gravel.dispatch import takes_graph
from gravel.results import Result, Timer


def fresh_kernel():
    """A Numba function compiled on its first call (a new one each time: nothing cached)."""

    @numba.njit
    def kernel(a):
        s = 0.0
        for x in a:
            s += np.sin(x) * np.cos(x) + np.sqrt(abs(x))
        return s

    return kernel


def test_issue_17_timer_leaves_compilation_out():
    kernel = fresh_kernel()
    start = time.perf_counter()
    with Timer() as t:
        kernel(np.ones(10))
    wall = time.perf_counter() - start
    assert t.compile_seconds > 0.01 and t.compile_seconds <= wall
    assert t.seconds < wall - t.compile_seconds + 0.01  # what ran, not what compiled
    with Timer() as again:
        kernel(np.ones(10))
    assert again.compile_seconds == 0.0


@contextmanager
def announcing(out):
    """An announcer on `out` for the block, as :func:`gravel.compiling.watch` installs one."""
    listener = compiling.announcer(out)
    with ExitStack() as stack:
        for kind in compiling.KINDS:
            stack.enter_context(event.install_listener(kind, listener))
        yield


def test_issue_17_long_compilations_are_announced_once_a_run(monkeypatch):
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 0.0)
    out = io.StringIO()
    with announcing(out):
        fresh_kernel()(np.ones(10))
        fresh_kernel()(np.ones(10))
    assert out.getvalue() == compiling.NOTICE + "\n"  # once


def test_short_compilations_pass_unannounced(monkeypatch):
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 60.0)
    out = io.StringIO()
    with announcing(out):
        fresh_kernel()(np.ones(10))
    assert out.getvalue() == ""


def test_short_compilations_that_add_up_are_announced(monkeypatch):
    # NVRTC compiles one module at a time: sixty of a tenth of a second are a six-second wait
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 0.05)
    out = io.StringIO()
    with announcing(out):
        for _ in range(5):
            with compiling.cuda_compile("kernel.cu"):
                time.sleep(0.02)
    assert out.getvalue() == compiling.NOTICE + "\n"


def test_a_quiet_spell_starts_a_new_run(monkeypatch):
    # a later first use (another algorithm, a new graph size) is announced again
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 0.0)
    monkeypatch.setattr(compiling, "QUIET_AFTER_S", 0.01)
    out = io.StringIO()
    with announcing(out):
        fresh_kernel()(np.ones(10))
        time.sleep(0.05)
        fresh_kernel()(np.ones(10))
    assert out.getvalue() == 2 * (compiling.NOTICE + "\n")


def test_the_setting_silences_the_notice(monkeypatch):
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 0.0)
    out = io.StringIO()
    with gravel.config.using(compile_notice=False), announcing(out):
        fresh_kernel()(np.ones(10))
    assert out.getvalue() == ""


def test_the_library_announces_without_the_command_line():
    code = (
        "import sys, numba, numpy as np, gravel\n"
        "from gravel import compiling\n"
        "compiling.ANNOUNCE_AFTER_S = 0.0\n"
        "gravel.bfs(gravel.generate.grid(2, 2), 0, device='cpu')\n"
        "assert compiling._WATCHER, 'running a CPU kernel installed no watcher'\n"
        "numba.njit(lambda a: a.sum() * 2.5)(np.ones(3))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert compiling.NOTICE in done.stderr


def test_results_report_the_seconds_compiled_apart_from_the_time():
    kernel = fresh_kernel()

    @takes_graph
    def algorithm(G):
        with Timer() as t:
            kernel(np.ones(10))
        return Result("algorithm", "cpu", t.seconds)

    r = algorithm(gravel.generate.grid(2, 2))
    assert r.compile_s > 0.01 and r.time_s < r.compile_s
    assert r.summary()["compile_s"] == r.compile_s
    assert algorithm(gravel.generate.grid(2, 2)).compile_s == 0.0  # compiled once


def test_timer_leaves_cuda_compilation_out():
    with Timer() as t:
        with compiling.cuda_compile("kernel.cu"):
            time.sleep(0.05)
    assert t.compile_seconds >= 0.05
    assert t.seconds < 0.04


def test_timer_leaves_loading_cached_kernels_out():
    # a kernel's compiled code loads from Numba's cache under its compiler lock, and no compile
    # event fires: that load is the first call's too, not the algorithm's
    from numba.core import event

    with Timer() as t:
        with event.trigger_event("numba:compiler_lock"):
            time.sleep(0.05)
    assert t.compile_seconds >= 0.05 and t.seconds < 0.04


HOLD = """
import sys, time
from gravel.compiling import file_lock
with file_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def test_processes_compiling_the_same_kernel_take_turns(tmp_path):
    lock = compiling.compile_lock("0123abcd")
    assert lock.parent.stat().st_mode & 0o077 == 0  # the user's own folder
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), "1.0"], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline() == "held\n"
    t = time.perf_counter()
    with compiling.file_lock(lock):
        waited = time.perf_counter() - t
    assert waited > 0.5  # until the holder let go
    other = compiling.compile_lock("4567ef01")
    t = time.perf_counter()
    with compiling.file_lock(other):  # another kernel's lock: free
        assert time.perf_counter() - t < 0.5
    holder.wait()


def test_a_lock_that_cannot_be_opened_locks_nothing(tmp_path):
    with compiling.file_lock(tmp_path / "missing-folder" / "k.lock"), compiling.file_lock(None):
        pass


def test_a_lock_folder_others_can_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(compiling.tempfile, "gettempdir", lambda: str(tmp_path))
    assert compiling.compile_lock("k").parent.parent == tmp_path
    folder = compiling.compile_lock("k").parent
    folder.chmod(0o777)
    assert compiling.compile_lock("k") is None
    folder.rmdir()
    folder.symlink_to(tmp_path)  # a link planted in its place
    assert compiling.compile_lock("k") is None
