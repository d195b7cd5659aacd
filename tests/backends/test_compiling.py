"""Kernels compiled at first use: their time stays out of an algorithm's, and the command line says
when it compiles for a while (issue 17)."""

import io
import time

import numba
import numpy as np

from gravel import compiling
from gravel.results import Timer


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


def test_issue_17_command_line_says_it_compiles(monkeypatch):
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 0.0)
    out = io.StringIO()
    with compiling.announce_compiling(out):
        fresh_kernel()(np.ones(10))
        fresh_kernel()(np.ones(10))
    assert out.getvalue() == "gravel: compiling kernels (first run)\n"  # once


def test_short_compilations_pass_unannounced(monkeypatch):
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 60.0)
    out = io.StringIO()
    with compiling.announce_compiling(out):
        fresh_kernel()(np.ones(10))
    assert out.getvalue() == ""


def test_short_compilations_that_add_up_are_announced(monkeypatch):
    # NVRTC compiles one module at a time: sixty of a tenth of a second are a six-second wait
    monkeypatch.setattr(compiling, "ANNOUNCE_AFTER_S", 0.05)
    out = io.StringIO()
    with compiling.announce_compiling(out):
        for _ in range(5):
            with compiling.cuda_compile("kernel.cu"):
                time.sleep(0.02)
    assert out.getvalue() == "gravel: compiling kernels (first run)\n"


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
