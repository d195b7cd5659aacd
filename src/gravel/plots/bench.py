"""Plots of a benchmark record (``gravel bench --json``): gravel's times beside its baselines."""

import json
import math
from pathlib import Path

import numpy as np

from ..errors import InvalidArgumentError
from .figures import _save, require_matplotlib

#: the names a bench record's baseline columns (``<name>_s``) are shown under
BASELINE_NAMES = {"scipy": "SciPy", "cusparse": "cuSPARSE", "cpu": "gravel CPU path"}
#: the time columns of a bench row that are gravel's own run, not a baseline
_OWN_TIMES = ("time_s", "min_s", "max_s")


# -- gravel bench ----------------------------------------------------------------------------------
def bench_rows(record):
    """The rows of a ``gravel bench`` record.

    Parameters
    ----------
    record : dict, list of dict, str or pathlib.Path
        The record's dict (its ``results``, or ``rows`` as the benchmark scripts write), a list
        of rows, or the path of its JSON file.

    Returns
    -------
    list of dict
        The rows with a ``time_s``: those of answers that failed their check (``gravel bench
        --verify``), which hold ``problems`` and no times, are left out.

    Raises
    ------
    InvalidArgumentError
        The record holds no list of rows with ``time_s`` in each but the failed ones.

    Examples
    --------
    >>> from gravel.plots import bench_rows
    >>> bench_rows({"schema": 1, "results": [{"algo": "bfs", "time_s": 0.002}]})
    [{'algo': 'bfs', 'time_s': 0.002}]
    """
    if isinstance(record, (str, Path)):
        with open(record) as f:
            record = json.load(f)
    if isinstance(record, dict):
        record = record.get("results", record.get("rows"))
    if not isinstance(record, list) or not all(
        isinstance(r, dict) and ("time_s" in r or "problems" in r) for r in record
    ):
        raise InvalidArgumentError("a bench record holds a list of rows with 'time_s' in each")
    return [r for r in record if "problems" not in r]


def bench_data(record):
    """What :func:`bench_bars` draws.

    Parameters
    ----------
    record : dict, list of dict, str or pathlib.Path
        A ``gravel bench`` record, as :func:`bench_rows` takes it.

    Returns
    -------
    dict
        ``labels`` (one per row: graph, algorithm, device), ``series`` ({name: seconds per row,
        NaN where a row lacks it}, gravel's own time first, then each baseline in the order the
        rows give them: every ``<name>_s`` column but ``min_s`` and ``max_s``, named by
        ``BASELINE_NAMES``) and ``spread`` (gravel's min and max seconds, one row each).

    Raises
    ------
    InvalidArgumentError
        As :func:`bench_rows` raises it.

    Examples
    --------
    >>> from gravel.plots import bench_data
    >>> row = {"graph": "kron:20", "algo": "bfs", "device": "cpu", "time_s": 0.02, "scipy_s": 0.1}
    >>> data = bench_data([row])
    >>> data["labels"][0].splitlines(), {name: s.tolist() for name, s in data["series"].items()}
    (['kron:20', 'bfs (cpu)'], {'gravel': [0.02], 'SciPy': [0.1]})
    """
    rows = bench_rows(record)
    names = ["time_s"]
    for r in rows:
        names += [k for k in r if k.endswith("_s") and k not in _OWN_TIMES and k not in names]

    def shown(key):
        if key == "time_s":
            return "gravel"
        base = key[: -len("_s")]
        return BASELINE_NAMES.get(base, base)

    series = {
        shown(k): np.array([float(r.get(k, math.nan)) for r in rows], np.float64) for k in names
    }
    spread = np.array([[r.get("min_s", math.nan), r.get("max_s", math.nan)] for r in rows])
    labels = [f"{r.get('graph', '')}\n{r.get('algo', '')} ({r.get('device', '')})" for r in rows]
    return {"labels": labels, "series": series, "spread": spread.reshape(len(rows), 2)}


def bench_bars(record, path, *, title=None):
    """Plot a ``gravel bench`` record as bars of time (milliseconds, log scale): per row, gravel's
    median (whiskers from its fastest to its slowest run) beside each baseline timed in the same
    run.

    Parameters
    ----------
    record : dict, list of dict, str or pathlib.Path
        A ``gravel bench`` record, as :func:`bench_rows` takes it.
    path : str or os.PathLike
        The file written (PNG, SVG or PDF by its suffix), through a temporary file.
    title : str, optional
        Default: "gravel bench: time against the baselines".

    Returns
    -------
    dict
        :func:`bench_data`, the data drawn.

    Raises
    ------
    InvalidArgumentError
        As :func:`bench_rows` raises it.
    MissingDependencyError
        matplotlib is not installed.
    UnknownNameError
        `path` has another suffix (found after drawing: :func:`check_path` finds it before).
    """
    data = bench_data(record)
    labels, series = data["labels"], data["series"]
    Figure = require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(max(7, 1.2 * len(labels) * len(series) ** 0.5 + 2), 5))
    fig.set_layout_engine("constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    x = np.arange(len(labels))
    width = 0.8 / max(len(series), 1)
    for j, (name, seconds) in enumerate(series.items()):
        pos = x - 0.4 + width * (j + 0.5)
        ms = seconds * 1e3
        ax.bar(pos, ms, width, label=name)
        if name == "gravel" and np.isfinite(data["spread"]).all() and len(labels):
            lo, hi = data["spread"].T * 1e3
            ax.errorbar(pos, ms, yerr=[ms - lo, hi - ms], fmt="none", ecolor="black", lw=1)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("time (ms)")
    ax.set_title(title or "gravel bench: time against the baselines")
    ax.legend()
    _save(fig, path)
    return data
