"""Issue 51: Ctrl-C (SIGINT) and SIGTERM at random points of every ``gravel`` command end it
within a second with one line (exit 130 or 143), no traceback, no temporary file and no partial
output; a command that ended before the signal exited 0 with its outputs whole.

Each command's work lasts several seconds on a small graph (generating, loading, computing,
writing); the signals land at seeded random delays after gravel is imported, three processes of a
command at a time (two SIGINTs, one SIGTERM): 18 interrupt points in all."""

import random
import signal
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import gravel

from .helpers import PROMPT_S, interrupt, one_line, start, temporaries

#: signals sent to each command, each at its own random delay (seconds after the start mark)
SIGNALS = (signal.SIGINT, signal.SIGINT, signal.SIGTERM)
LATEST_S = 2.5
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
    path = tmp_path_factory.mktemp("source") / "kron15.mtx"
    gravel.save(gravel.generate.kronecker(15, seed=5, device="cpu", progress=False), path)
    return path


def _whole(path):
    """Assert that an output that exists is complete (atomic writes rename only a whole file)."""
    if path.suffix == ".npy":
        assert np.load(path).shape[0] > 0
    elif path.suffix in (".mtx", ".txt"):
        assert gravel.load(path).nnz > 0
    elif path.suffix == ".json":
        assert path.read_text().rstrip().endswith("}")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_issue_51_signals_at_random_points_end_every_command_cleanly(command, source, tmp_path):
    args, outputs = COMMANDS[command]
    rng = random.Random(f"issue 51 {command}")
    delays = [rng.uniform(0.0, LATEST_S) for _ in SIGNALS]

    def one(k):
        out = tmp_path / f"out{k}"
        out.mkdir()
        cache = tmp_path / f"cache{k}"
        argv = [a.format(out=out, source=source) for a in args]
        proc = start(argv, env={"GRAVEL_CACHE_DIR": str(cache)}, cwd=out)
        return out, cache, interrupt(proc, delays[k], SIGNALS[k])

    with ThreadPoolExecutor(len(SIGNALS)) as pool:
        runs = list(pool.map(one, range(len(SIGNALS))))
    for k, (out, cache, (status, _, err, late, ended)) in enumerate(runs):
        where = f"{command}, signal {SIGNALS[k].name} at {delays[k]:.2f} s"
        if ended:  # finished before the signal: a whole run
            assert status == 0, (where, err)
        else:
            expected = (
                "gravel: terminated" if SIGNALS[k] == signal.SIGTERM else "gravel: interrupted"
            )
            assert status == 128 + SIGNALS[k], (where, status, err)
            assert late < PROMPT_S, f"{where}: ended {late:.2f} s after the signal"
            one_line(err, expected)
        assert not temporaries(out, cache), where
        for name in outputs:
            path = out / name
            if path.is_dir():
                assert not temporaries(path)
            elif path.exists():
                _whole(path)
