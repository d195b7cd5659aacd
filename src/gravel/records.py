"""Benchmark records: the JSON files that ``gravel bench`` and the scripts of benchmarks/ write,
each naming the machine, card, libraries and commit that ran, and the scripts' shared flags."""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

from .io import atomic_write


def script_parser(doc, *, repeat):
    """The argument parser of a benchmark script: its docstring's first paragraph as the
    description, and the flags every script shares (--repeat, --json).

    Parameters
    ----------
    doc : str
        The script's docstring.
    repeat : int
        The default of ``--repeat``.

    Returns
    -------
    argparse.ArgumentParser
    """
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=repeat, help="timed runs after a warm-up (median)")
    p.add_argument("--json", help="write the rows, with the machine and date, to this file")
    return p


def write_record(path, script, rows, **extra):
    """Write a benchmark script's `rows` to the JSON file `path`, with the machine (date, card, git
    commit), the command line and any `extra` entries: ``{"machine": machine(), "command":
    [script, *sys.argv[1:]], **extra, "rows": rows}``.

    Parameters
    ----------
    path : str or os.PathLike
    script : str
        The script's name, first in the command line.
    rows : list of dict
    **extra
        More top-level entries.

    Raises
    ------
    OSError
        The file cannot be written (the error names `path`); the file is then as it was.
    """
    record = {"machine": machine(), "command": [script, *sys.argv[1:]]} | extra | {"rows": rows}
    _dump(path, record)


#: the libraries whose versions a record names, where installed: gravel's own and its peers'
LIBRARIES = ("numpy", "scipy", "numba", "cupy", "networkx", "networkit", "igraph")


def machine():
    """The date, host, CPU, card, driver, threads, libraries and git commit of this run.

    Returns
    -------
    dict
        ``date``, ``host``, ``cpu``, ``cores``, ``gpu``, ``driver`` and ``cuda_runtime`` (where
        CUDA is available), ``threads`` (Numba's), ``libraries`` (name -> version of each of
        :data:`LIBRARIES` installed; CuPy's under whichever wheel holds it) and ``git``
        (``GRAVEL_COMMIT``, else the short HEAD, else None).
    """
    info = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "host": platform.node(),
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
    }
    from .backends import cuda

    if cuda.available():
        import cupy

        from .backends.cuda.runtime import props

        info["gpu"] = props().name
        info["driver"] = cupy.cuda.runtime.driverGetVersion()
        info["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    import numba

    info["threads"] = numba.get_num_threads()
    info["libraries"] = _versions()
    # GRAVEL_COMMIT: the commit of a tree copied without its history (an older .git beside it)
    info["git"] = os.environ.get("GRAVEL_COMMIT") or _git_head()
    return info


def _versions():
    """name -> version of each of LIBRARIES installed, read from the packages' metadata (nothing
    imported); CuPy's wheels are named for their CUDA (cupy-cuda12x, cupy-cuda13x)."""
    from importlib import metadata

    found = {}
    installed = {(d.metadata["Name"] or "").lower(): d.version for d in metadata.distributions()}
    for name in LIBRARIES:
        wheels = [k for k in installed if k == name or k.startswith(f"{name}-cuda")]
        if wheels:
            found[name] = installed[min(wheels)]
    return found


def _git_head():
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def write_json(path, rows, extra):
    """Write a ``gravel bench`` record, ``{"schema": 1, "machine": machine(), **extra,
    "results": rows}``, to the JSON file `path` (:func:`gravel.plots.bench_rows` reads it).

    Parameters
    ----------
    path : str or os.PathLike
    rows : list of dict
    extra : dict
        More top-level entries (the bandwidths, the graphs, the command line, ...).

    Raises
    ------
    OSError
        The file cannot be written (the error names `path`); the file is then as it was.
    """
    _dump(path, {"schema": 1, "machine": machine(), **extra, "results": rows})


def _dump(path, record):
    """Write `record` as JSON to `path` atomically: a run stopped while it writes leaves the file
    as it was (or absent), never empty or cut."""
    with atomic_write(path, "w") as f:
        json.dump(record, f, indent=1)
