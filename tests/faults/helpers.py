"""Running the ``gravel`` command in a subprocess, as a shell does, and what a fault may leave."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

#: the console script's own two lines, with a mark once gravel is imported (what comes before is
#: Python's start and ``import gravel``, where the interpreter's own handling of signals holds)
BOOT = (
    "import sys\n"
    "from gravel.cli import main\n"
    "print('gravel-started', file=sys.stderr, flush=True)\n"
    "raise SystemExit(main())\n"
)
#: how soon an interrupted command must have ended (issue 51)
PROMPT_S = 1.0
#: how long after the signal a command that has not ended counts as hung
HUNG_S = 60.0
#: the suffix of atomic_write's temporaries
TEMPORARY = ".gravel-tmp"


#: root reads and writes every file: the confined runs drop the capabilities that let it, so that
#: file modes hold for them as for any user
CONFINE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def start(args, env=None, cwd=None, confined=False, **popen):
    """Start ``gravel ARGS`` and return the process once gravel has been imported; `confined`:
    as a user whom file modes bind (root without the capabilities that override them)."""
    prefix = CONFINE if confined and os.geteuid() == 0 else []
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-c", BOOT, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,  # unbuffered: the mark is read alone, what follows it is left to communicate
        # Python's fault handler on: a hung command's threads can be shown (`wait_or_dump`)
        env={**os.environ, "PYTHONFAULTHANDLER": "1", **(env or {})},
        cwd=cwd,
        **popen,
    )
    line = proc.stderr.readline()
    assert line.strip() == b"gravel-started", line + proc.stderr.read()
    return proc


def _text(out, err):
    return out.decode(errors="replace"), err.decode(errors="replace")


def gravel(args, env=None, cwd=None, timeout=120, confined=False, **popen):
    """Run ``gravel ARGS`` to its end: (exit status, stdout, stderr)."""
    proc = start(args, env, cwd, confined, **popen)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, *_text(out, err)


def interrupt(proc, delay, signum=signal.SIGINT):
    """Send `signum` to `proc` `delay` seconds from now: (exit status, stdout, stderr, seconds
    from the signal to the exit, whether the command had already ended)."""
    time.sleep(delay)
    if proc.poll() is not None:
        out, err = proc.communicate()
        return proc.returncode, *_text(out, err), 0.0, True
    sent = time.perf_counter()
    proc.send_signal(signum)
    wait_or_dump(proc, HUNG_S)
    late = time.perf_counter() - sent
    out, err = proc.communicate()
    return proc.returncode, *_text(out, err), late, False


def wait_or_dump(proc, timeout):
    """Wait up to `timeout` seconds for `proc` to end; if it has not, abort it (SIGABRT: Python's
    fault handler, on in the processes `start` starts, prints every thread's stack) and fail with
    the end of its stderr, which tells where it hung."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        _, err = proc.communicate(timeout=30)
        tail = err.decode(errors="replace")[-6000:]
        raise AssertionError(f"not ended {timeout:.0f} s after the signal; its stderr:\n{tail}")


def messages(err):
    """The lines of stderr that are not progress: progress bars (redrawn after a carriage return)
    and the ``gravel: <doing> ...`` lines of a long step are left out. A bar that an interrupt
    closed in a pipe (not a terminal, where it is cleared) ends without a newline: what follows it
    is read as a line of its own."""
    lines = [
        part.strip()
        for line in err.splitlines()
        for bar in line.split("\r")
        for part in re.split(r"(?<=\])(?=gravel: )", bar)
    ]
    return [
        line
        for line in lines
        if line
        and "%|" not in line
        and not line.endswith("...")
        and not line.startswith("gravel: compiling kernels")
    ]


def one_line(err, expected):
    """Assert that stderr says `expected` (the start of a line) once and nothing else, without a
    traceback."""
    said = messages(err)
    assert "Traceback" not in err, err
    assert len(said) == 1 and said[0].startswith(expected), (said, err)


def temporaries(*folders):
    """The temporaries of atomic writes left in `folders` and below."""
    found = []
    for folder in folders:
        if Path(folder).is_dir():
            found += [p for p in Path(folder).rglob("*") if p.name.endswith(TEMPORARY)]
    return found
