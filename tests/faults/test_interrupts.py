"""Issue 51: Ctrl-C (SIGINT) and SIGTERM at random points of every ``gravel`` command end it
within a second with one line (exit 130 or 143), no traceback, no temporary file and no partial
output; a command that ended before the signal exited 0 with its outputs whole.

Each command's work lasts several seconds on a small graph (generating, loading, computing,
writing); the signals land at seeded random delays after gravel is imported (two SIGINTs and one
SIGTERM a command, each in its own process): 18 interrupt points in all."""

import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import gravel

from .helpers import PROMPT_S, interrupt, one_line, start, temporaries, wait_or_dump

#: signals sent to each command, each at its own random delay (seconds after the start mark)
SIGNALS = (signal.SIGINT, signal.SIGINT, signal.SIGTERM)
LATEST_S = 2.0
#: the commands, each with work that outlasts LATEST_S on two busy cores, and its outputs
COMMANDS = {
    "run": (
        ["run", "louvain", "kron:15", "--device", "cpu", "-o", "{out}/labels.npy"],
        ["labels.npy"],
    ),
    "info": (["info", "kron:17", "--json"], []),
    "bench": (
        ["bench", "kron:13", "--algo", "lpa", "--repeat", "3", "--device", "cpu"]
        + ["--json", "{out}/bench.json"],
        ["bench.json"],
    ),
    "plot": (["plot", "kron:15", "--device", "cpu", "--out", "{out}/plots"], ["plots"]),
    "generate": (["generate", "kron:16", "-o", "{out}/g.mtx"], ["g.mtx"]),
    "convert": (["convert", "{source}", "{out}/g.txt"], ["g.txt"]),
}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A Matrix Market file that takes seconds to load and write again."""
    path = tmp_path_factory.mktemp("source") / "kron14.mtx"
    gravel.save(gravel.generate.kronecker(14, seed=5, device="cpu", progress=False), path)
    return path


def _whole(path):
    """Assert that an output that exists is complete (atomic writes rename only a whole file)."""
    if path.suffix == ".npy":
        assert np.load(path).shape[0] > 0
    elif path.suffix in (".mtx", ".txt"):
        assert gravel.load(path).nnz > 0
    elif path.suffix == ".json":
        assert path.read_text().rstrip().endswith("}")


@pytest.mark.parametrize("commands", [("run", "convert"), ("info", "generate"), ("bench", "plot")])
def test_issue_51_signals_at_random_points_end_every_command_cleanly(commands, source, tmp_path):
    """Two commands, three signals each, two processes at a time: the two cores are shared with
    the suite's other worker, and a second of latency is a second of wall time."""
    runs = [(c, k) for c in commands for k in range(len(SIGNALS))]
    delays = {c: _delays(c) for c in commands}

    def one(run):
        command, k = run
        out = tmp_path / f"{command}{k}"
        out.mkdir()
        cache = tmp_path / f"cache-{command}{k}"
        argv = [a.format(out=out, source=source) for a in COMMANDS[command][0]]
        proc = start(argv, env={"GRAVEL_CACHE_DIR": str(cache)}, cwd=out)
        return out, cache, interrupt(proc, delays[command][k], SIGNALS[k])

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, runs))
    for (command, k), (out, cache, (status, _, err, late, ended)) in zip(runs, results):
        sent = SIGNALS[k]
        where = f"{command}, {sent.name} at {delays[command][k]:.2f} s"
        if ended or status == 0:  # finished before the signal (or as it came): a whole run
            assert status == 0 and "Traceback" not in err, (where, err)
        else:
            said = "gravel: terminated" if sent == signal.SIGTERM else "gravel: interrupted"
            assert status == 128 + sent, (where, status, err)
            assert late < PROMPT_S, f"{where}: ended {late:.2f} s after the signal"
            one_line(err, said)
        assert not temporaries(out, cache), where
        for name in COMMANDS[command][1]:
            if (out / name).is_file():
                _whole(out / name)


def _delays(command):
    """The command's random points: seeded by its name, so that a failure replays."""
    rng = random.Random(f"issue 51 {command}")
    return [rng.uniform(0.0, LATEST_S) for _ in SIGNALS]


def info_doing(work, swallowed=None):
    """`gravel info` in a fresh process with its work replaced by the statements `work`, after
    a `swallowed` signal (None: none) was sent from a weakref callback, where Python only prints
    the exception it raises ("Exception ignored in ..."; an import's module lock has one)."""
    lines = [
        "import os, signal, time, weakref",
        "import gravel.cli.command as command",
        "class Lock: pass",
        "def callback(ref):",
        f"    os.kill(os.getpid(), {int(swallowed or 0)})  # handled here, inside the callback",
        "def info(args):",
        "    lock = Lock(); ref = weakref.ref(lock, callback); del lock" if swallowed else "",
        *(f"    {w}" for w in work),
        "command.cmd_info = info",
        "raise SystemExit(command.main())",
    ]
    return subprocess.run(
        [sys.executable, "-c", "\n".join(lines), "info"], capture_output=True, text=True, timeout=60
    )


def stopped(done, signum):
    """Assert that the finished command `done` ended as stopped by `signum`: its status and one
    line."""
    assert done.returncode == 128 + signum, done.stderr
    one_line(
        done.stderr, "gravel: terminated" if signum == signal.SIGTERM else "gravel: interrupted"
    )


def test_issue_51_an_interrupt_python_swallowed_comes_again():
    """A swallowed SIGINT: the command ran on to exit 0; it now comes again at once, and the
    command ends as interrupted."""
    done = info_doing(["time.sleep(5); print('finished')"], signal.SIGINT)
    assert done.returncode == 130 and "finished" not in done.stdout
    one_line(done.stderr, "gravel: interrupted")


def test_issue_51_a_stop_swallowed_inside_an_algorithms_block_comes_again_at_once():
    """The same inside shares.interruptible() (around every algorithm): the command's hook still
    sends the stop again, so the work ends within a second, not when it has finished."""
    work = [
        "from gravel.backends.cpu import shares",
        "def inside(ref):",
        "    os.kill(os.getpid(), signal.SIGINT)  # handled here, inside the callback",
        "with shares.interruptible():",
        "    held = Lock(); ref = weakref.ref(held, inside); del held",
        "    time.sleep(5); print('finished')",
    ]
    started = time.perf_counter()
    done = info_doing(work)
    assert "finished" not in done.stdout and time.perf_counter() - started < 4.0
    stopped(done, signal.SIGINT)


def test_issue_51_work_that_fails_after_a_swallowed_stop_ends_as_stopped():
    """A swallowed SIGTERM, then the work failing before the signal comes again (as a Numba
    compilation cut short did: "no compiled object yet"): the command ends as terminated, one
    line and 143, not with the failure's traceback and then killed by the signal sent again
    (-15)."""
    stopped(
        info_doing(["raise RuntimeError('no compiled object yet')"], signal.SIGTERM), signal.SIGTERM
    )


def test_issue_51_a_stop_the_work_turned_into_another_error_ends_as_stopped():
    """A stop that the work caught and turned into another error (as a SIGINT that cut an import
    short did: the next import of the half-built module failed with "cannot import name"): the
    command ends as interrupted, one line and 130, not with that error's traceback."""
    work = [
        "try:",
        "    os.kill(os.getpid(), signal.SIGINT); time.sleep(5)",
        "except KeyboardInterrupt:",
        "    raise ImportError(\"cannot import name '_slot' from 'gravel.backends.cpu.lpa'\")",
    ]
    stopped(info_doing(work), signal.SIGINT)


def test_issue_51_what_a_stop_left_half_built_fails_quietly():
    """A stop while the work holds an object that cannot finalise half-built (as llvmlite's
    cut in a compilation: "Exception ignored in ObjectRef.__del__"): one line and 143, without
    the finaliser's traceback."""
    work = [
        "class Half:",
        "    def __del__(self):",
        "        self.handle  # set after the stop: never",
        "half = Half()",
        "os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)",
    ]
    stopped(info_doing(work), signal.SIGTERM)


def test_a_stop_off_the_main_thread_leaves_the_unraisable_hook(monkeypatch):
    """main() run from a thread and stopped: status 130, and Python's hook for unraisable
    exceptions is the one it had (the stop's quiet one ends with the command)."""
    import threading

    import gravel.cli.command as command

    def stop(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "cmd_info", stop)
    before, got = sys.unraisablehook, []
    worker = threading.Thread(target=lambda: got.append(command.main(["info"])))
    worker.start()
    worker.join()
    assert got == [128 + signal.SIGINT] and sys.unraisablehook is before


def test_a_failure_without_a_stop_still_shows_its_traceback():
    done = info_doing(["raise RuntimeError('a fault of the code')"])
    assert done.returncode == 1 and "RuntimeError: a fault of the code" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["bench", "grid:30x30", "--algo", "bfs", "--algo", "cc", "--repeat", "1"]
        + ["--device", "cpu"],
        ["info", "grid:30x30"],
    ],
    ids=["bench", "info"],
)
def test_issue_51_a_reader_that_stops_early_ends_the_command_quietly(args):
    """``gravel bench ... | head -1``: the pipe closes after one line; the command exits 0 and says
    nothing more (no Broken-pipe error, no traceback)."""
    proc = start(args)
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes
    err = proc.stderr.read().decode()
    assert first and proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Broken pipe" not in err and "error" not in err, err


@pytest.mark.parametrize("write", ["write_json", "write_record"])
def test_issue_51_a_stop_while_a_record_is_written_leaves_the_old_file(
    write, tmp_path, monkeypatch
):
    """`gravel bench --json` and the benchmark scripts write their records atomically: a stop
    halfway through the JSON leaves the file as it was, and no temporary."""
    from gravel import records

    def cut(record, f, **kw):
        f.write('{"schema": ')
        raise KeyboardInterrupt

    path = tmp_path / "bench.json"
    path.write_text('{"old": 1}\n')
    monkeypatch.setattr(records.json, "dump", cut)
    args = ([], {}) if write == "write_json" else ("script", [])
    with pytest.raises(KeyboardInterrupt):
        getattr(records, write)(path, *args)
    assert path.read_text() == '{"old": 1}\n'
    assert not temporaries(tmp_path)


def test_issue_51_a_kernel_module_cut_short_on_first_use_runs_again():
    """Ctrl-C while a CPU kernel module's definitions first run (on its first use, lazily) leaves
    it to run again at the next use, as a failed import does, not half-built for the rest of the
    process ("cannot import name '_slot' from 'gravel.backends.cpu.lpa'")."""
    code = "\n".join(
        [
            "import gravel.backends.cpu as cpu",
            "calls = []",
            "import numba",
            "njit = numba.njit",
            "def cut(*args, **kwargs):",  # the stop lands on lpa's third definition
            "    calls.append(1)",
            "    if len(calls) == 3:",
            "        raise KeyboardInterrupt",
            "    return njit(*args, **kwargs)",
            "numba.njit = cut",
            "try:",
            "    cpu.lpa.gather",
            "except KeyboardInterrupt:",
            "    print('stopped', '_slot' in vars(cpu.lpa))",  # what ran before is undone
            "numba.njit = njit",
            "from gravel.backends.cpu.lpa import _slot, gather",
            "from gravel.backends.cpu import louvain",
            "print(callable(gather), callable(louvain.local_moves), len(calls) > 1)",
        ]
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["stopped", "False", "True", "True", "True"], done.stderr


def test_a_command_hung_after_the_signal_fails_with_where_it_hung():
    """The helpers' own check: a process that ignores the signal fails the wait at its timeout,
    with the stack that Python's fault handler printed, so that a hang shows where it is."""
    code = "\n".join(
        [
            "import signal, time",
            "signal.signal(signal.SIGINT, signal.SIG_IGN)",
            "print(flush=True)",
            "time.sleep(60)",
        ]
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )
    proc.stdout.readline()  # the handler is in place
    proc.send_signal(signal.SIGINT)
    with pytest.raises(AssertionError, match=r"(?s)not ended 1 s after the signal.*line 4"):
        wait_or_dump(proc, 1.0)
    assert proc.returncode == -signal.SIGABRT
