"""Plots of a graph, a traversal, a power iteration and a benchmark record (matplotlib).

matplotlib is an optional extra (``pip install 'gravel[plot]'``) imported only when a plot is drawn:
``import gravel`` and ``import gravel.plots`` never import it. Figures are drawn on the Agg canvas
(no display, no pyplot state) and written whole through a temporary file, as PNG, SVG or PDF by the
path's suffix.

Each plot function has a data function beside it (``degree_counts``, ``level_data``,
``convergence_data``, ``bench_data``) that computes exactly what it draws, and returns that data,
so that tests and callers can check the numbers without reading pixels.
"""

import json
import math
from pathlib import Path

import numpy as np

from .arrays import host
from .errors import InvalidArgumentError, MissingDependencyError, UnknownNameError

#: the file types a plot can be written as, by suffix
FORMATS = (".png", ".svg", ".pdf")
HINT = "plots need matplotlib: pip install 'gravel[plot]'"

#: the names a bench record's baseline columns (``<name>_s``) are shown under
BASELINE_NAMES = {"scipy": "SciPy", "cusparse": "cuSPARSE", "cpu": "gravel CPU path"}
#: the time columns of a bench row that are gravel's own run, not a baseline
_OWN_TIMES = ("time_s", "min_s", "max_s")


def check_path(path):
    """Refuse a plot path before any work: an unknown suffix, a folder that is missing or
    read-only, or matplotlib not installed (MissingDependencyError, naming the extra)."""
    from .io import check_writable

    if Path(path).suffix.lower() not in FORMATS:
        raise UnknownNameError(f"{path}: unknown plot type (use .png, .svg or .pdf)")
    require_matplotlib()
    check_writable(path)


def require_matplotlib():
    """matplotlib's Figure class, or MissingDependencyError with the install hint."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError(HINT) from None
    return Figure


def _figure(rows=1, **kw):
    Figure = require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(7, 3 + 2 * rows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 1, squeeze=False, **kw)[:, 0]
    return fig, axes


def _save(fig, path):
    """Write `fig` to `path` through a temporary (no partial file on an error); returns the Path."""
    from .io import atomic_write

    path = Path(path)
    kind = path.suffix.lower()
    if kind not in FORMATS:
        raise UnknownNameError(f"{path}: unknown plot type (use .png, .svg or .pdf)")
    with atomic_write(path) as f:
        fig.savefig(f, format=kind[1:], dpi=120)
    return path


# -- degree distribution ---------------------------------------------------------------------------
def degree_counts(G):
    """How many vertices have each degree: ``{"out": np.bincount(out-degrees), "in": ...}`` for a
    directed graph, ``{"degree": ...}`` for an undirected one (counts[d]: vertices of degree d)."""
    if not G.directed:
        return {"degree": np.bincount(host(G.out_degree), minlength=1)}
    return {
        "out": np.bincount(host(G.out_degree), minlength=1),
        "in": np.bincount(host(G.in_degree), minlength=1),
    }


def degree_distribution(G, path, *, title=None):
    """Plot the degree distribution of `G` on log-log axes: the number of vertices of each degree,
    in- and out-degrees as two series (one for an undirected graph). Degree 0 cannot sit on a log
    axis: its count is given in the legend. Returns :func:`degree_counts`, the data drawn."""
    counts = degree_counts(G)
    fig, (ax,) = _figure()
    for name, c in counts.items():
        d = np.flatnonzero(c)
        d = d[d > 0]
        label = f"{name}-degree" if name != "degree" else "degree"
        ax.loglog(d, c[d], "o", ms=3, alpha=0.7, label=f"{label} ({int(c[0])} of degree 0)")
    ax.set_xlabel("degree")
    ax.set_ylabel("vertices")
    kind = "directed" if G.directed else "undirected"
    ax.set_title(title or f"degree distribution ({G.n:,} vertices, {G.m:,} edges, {kind})")
    ax.legend()
    _save(fig, path)
    return counts


# -- BFS levels ------------------------------------------------------------------------------------
def level_data(result):
    """Per level of a BFS (a :class:`gravel.algorithms.bfs.BFSResult`): ``level`` (0..L),
    ``size`` (vertices at that depth: the frontier the next level expanded), ``seconds`` (the
    level's own time from ``stats["level_times"]``, where a step covered that level alone; NaN for
    level 0, where the result has no record, and for the levels of a step that covered several),
    ``shared`` (True for the levels of a step that covered several) and ``steps`` (those steps:
    (first level, last level, seconds) each; their time is the whole step's, not split over its
    levels). The last level may be empty: the step that found nothing still ran."""
    if not hasattr(result, "level_sizes"):
        raise InvalidArgumentError(f"a {result.algorithm} result has no BFS levels")
    sizes = result.level_sizes()
    marks = result.stats.get("level_times") or []
    last = max(len(sizes) - 1, max((lv for lv, _ in marks), default=0))
    level = np.arange(last + 1)
    size = np.zeros(last + 1, np.int64)
    size[: len(sizes)] = sizes
    seconds = np.full(last + 1, np.nan)
    shared = np.zeros(last + 1, bool)
    steps = []
    for (a, ta), (b, tb) in zip(marks, marks[1:]):
        if b == a + 1:
            seconds[b] = tb - ta
        elif b > a:
            shared[a + 1 : b + 1] = True
            steps.append((a + 1, b, tb - ta))
    return {"level": level, "size": size, "seconds": seconds, "shared": shared, "steps": steps}


def traversal_levels(result, path, *, title=None):
    """Plot a BFS's frontier size (log scale) and, below it, the time of each level that a step
    ran alone (milliseconds), the levels that ran together in one step shaded and labelled with
    that step's time. Without any level timed alone (a serial run of every level on the CPU, or
    no record) the time panel is left out. Returns :func:`level_data`."""
    data = level_data(result)
    level, size, ms = data["level"], data["size"], data["seconds"] * 1e3
    timed = bool(np.isfinite(ms).any())
    fig, axes = _figure(2 if timed else 1, sharex=True)
    top = axes[0]
    top.bar(level, np.where(size > 0, size, np.nan), color="tab:blue")
    top.set_yscale("log")
    top.set_ylabel("frontier size (vertices)")
    head = f"BFS levels ({result.device}, {result.strategy}; {result.time_s * 1e3:.3g} ms in all)"
    if not timed:
        why = ("none recorded", "one step ran them all")[min(len(data["steps"]), 1)]
        if len(data["steps"]) > 1:
            why = "the levels ran in steps of several"
        head += "\nno time per level: " + why
    top.set_title(title or head)
    if not timed:
        top.set_xlabel("level (hops from the source)")
        _save(fig, path)
        return data
    bottom = axes[1]
    bottom.plot(level, ms, "o-", color="tab:orange", ms=4, label="one level")
    for j, (first, last, seconds) in enumerate(data["steps"]):
        shade = "levels run as one step" if j == 0 else None
        bottom.axvspan(first - 0.5, last + 0.5, color="0.85", lw=0, label=shade)
        bottom.text(
            (first + last) / 2,
            0.95,
            f"{seconds * 1e3:.3g} ms",
            transform=bottom.get_xaxis_transform(),
            ha="center",
            va="top",
            fontsize=7,
            rotation=90 if last - first < 3 else 0,
        )
    bottom.legend()
    bottom.set_ylabel("time (ms)")
    bottom.set_xlabel("level (hops from the source)")
    _save(fig, path)
    return data


# -- PageRank convergence --------------------------------------------------------------------------
def convergence_data(result):
    """A power iteration's L1 change per iteration: ``{"iteration": 1..k, "change": ...}`` from a
    result's ``stats["changes"]`` (:class:`gravel.algorithms.pagerank.PageRankResult`)."""
    changes = result.stats.get("changes")
    if changes is None:
        raise InvalidArgumentError(
            f"this {result.algorithm} result records no change per iteration (stats['changes'])"
        )
    change = np.asarray(changes, np.float64)
    return {"iteration": np.arange(1, change.size + 1), "change": change}


def pagerank_convergence(result, path, *, title=None):
    """Plot PageRank's L1 change per iteration on a log scale. Returns :func:`convergence_data`."""
    data = convergence_data(result)
    fig, (ax,) = _figure()
    change = data["change"]
    ax.semilogy(data["iteration"], np.where(change > 0, change, np.nan), "o-", ms=3)
    ax.set_xlabel("iteration")
    ax.set_ylabel("L1 change  sum |x_new - x|")
    last = f", last {change[-1]:.3g}" if change.size else ""
    ax.set_title(
        title or f"{result.algorithm} convergence ({result.device}, {change.size} iterations{last})"
    )
    _save(fig, path)
    return data


# -- gravel bench ----------------------------------------------------------------------------------
def bench_rows(record):
    """The rows of a ``gravel bench`` record: its dict (``results``, or ``rows`` as the benchmark
    scripts write), a list of rows, or the path of its JSON file."""
    if isinstance(record, (str, Path)):
        with open(record) as f:
            record = json.load(f)
    if isinstance(record, dict):
        record = record.get("results", record.get("rows"))
    if not isinstance(record, list) or not all(
        isinstance(r, dict) and "time_s" in r for r in record
    ):
        raise InvalidArgumentError("a bench record holds a list of rows with 'time_s' in each")
    return record


def bench_data(record):
    """What :func:`bench_bars` draws: ``labels`` (one per row: graph, algorithm, device),
    ``series`` ({name: seconds per row, NaN where a row lacks it}, gravel's own time first, then
    each baseline in the order the rows give them) and ``spread`` (gravel's min and max seconds)."""
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
    run. Returns :func:`bench_data`."""
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
