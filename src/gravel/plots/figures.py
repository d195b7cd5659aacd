"""Plots of a graph and of a run: the degree distribution, a BFS's levels and PageRank's
convergence, and the figure plumbing every plot shares."""

from pathlib import Path

import numpy as np

from ..arrays import host
from ..errors import InvalidArgumentError, MissingDependencyError, UnknownNameError

FORMATS = (".png", ".svg", ".pdf")
HINT = "plots need matplotlib: pip install 'gravel[plot]'"


def check_path(path):
    """Refuse a plot path before any work: an unknown suffix, a folder that is missing or
    read-only, or matplotlib not installed.

    Parameters
    ----------
    path : str or os.PathLike
        Where a plot is to be written: a ``.png``, ``.svg`` or ``.pdf`` file (any case).

    Raises
    ------
    UnknownNameError
        Another suffix.
    MissingDependencyError
        matplotlib is not installed; the message names the extra.
    OSError
        `path` is a folder, or its folder is missing or not writable (the error names it).
    """
    from ..io import check_writable

    if Path(path).suffix.lower() not in FORMATS:
        raise UnknownNameError(f"{path}: unknown plot type (use .png, .svg or .pdf)")
    require_matplotlib()
    check_writable(path)


def require_matplotlib():
    """matplotlib's Figure class, imported on first use.

    Returns
    -------
    type
        ``matplotlib.figure.Figure``.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed; the message gives the install hint.
    """
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
    from ..io import atomic_write

    path = Path(path)
    kind = path.suffix.lower()
    if kind not in FORMATS:
        raise UnknownNameError(f"{path}: unknown plot type (use .png, .svg or .pdf)")
    with atomic_write(path) as f:
        fig.savefig(f, format=kind[1:], dpi=120)
    return path


# -- degree distribution ---------------------------------------------------------------------------
def degree_counts(G):
    """How many vertices have each degree.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    dict of str to numpy.ndarray of int64
        ``{"out": np.bincount(out-degrees), "in": ...}`` for a directed graph, ``{"degree":
        ...}`` for an undirected one (counts[d]: vertices of degree d; at least one entry).

    Examples
    --------
    >>> import gravel
    >>> from gravel.plots import degree_counts
    >>> degree_counts(gravel.generate.grid(2, 3))["degree"].tolist()
    [0, 0, 4, 2]
    """
    if not G.directed:
        return {"degree": np.bincount(host(G.out_degree), minlength=1)}
    return {
        "out": np.bincount(host(G.out_degree), minlength=1),
        "in": np.bincount(host(G.in_degree), minlength=1),
    }


def degree_distribution(G, path, *, title=None):
    """Plot the degree distribution of `G` on log-log axes: the number of vertices of each degree,
    in- and out-degrees as two series (one for an undirected graph). Degree 0 cannot sit on a log
    axis: its count is given in the legend.

    Parameters
    ----------
    G : Graph
    path : str or os.PathLike
        The file written (PNG, SVG or PDF by its suffix), through a temporary file.
    title : str, optional
        Default: the degree distribution with the graph's vertices, edges and kind.

    Returns
    -------
    dict of str to numpy.ndarray
        :func:`degree_counts`, the data drawn.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed.
    UnknownNameError
        `path` has another suffix (found after drawing: :func:`check_path` finds it before).
    """
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
    """Per level of a BFS: its frontier size and, where a step covered it alone, its time.

    Parameters
    ----------
    result : gravel.algorithms.bfs.BFSResult

    Returns
    -------
    dict
        ``level`` (0..L), ``size`` (vertices at that depth: the frontier the next level
        expanded), ``seconds`` (the level's own time from ``stats["level_times"]`` where a step
        covered that level alone; NaN for level 0, where the result has no record, and for the
        levels of a step that covered several), ``shared`` (True for the levels of a step that
        covered several) and ``steps`` (those steps: (first level, last level, seconds) each;
        their time is the whole step's, not split over its levels). The last level may be empty:
        the step that found nothing still ran.

    Raises
    ------
    InvalidArgumentError
        `result` is not a BFS's (it has no ``level_sizes``).

    Examples
    --------
    >>> import gravel
    >>> from gravel.plots import level_data
    >>> data = level_data(gravel.bfs(gravel.generate.grid(2, 3), 0, device="cpu"))
    >>> data["level"].tolist(), data["size"].tolist()
    ([0, 1, 2, 3, 4], [1, 2, 2, 1, 0])
    """
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
    no record) the time panel is left out.

    Parameters
    ----------
    result : gravel.algorithms.bfs.BFSResult
    path : str or os.PathLike
        The file written (PNG, SVG or PDF by its suffix), through a temporary file.
    title : str, optional
        Default: the run's device, strategy and time.

    Returns
    -------
    dict
        :func:`level_data`, the data drawn.

    Raises
    ------
    InvalidArgumentError
        `result` is not a BFS's.
    MissingDependencyError
        matplotlib is not installed.
    UnknownNameError
        `path` has another suffix (found after drawing: :func:`check_path` finds it before).
    """
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
    """A power iteration's L1 change per iteration.

    Parameters
    ----------
    result : gravel.algorithms.pagerank.PageRankResult
        Or another result whose ``stats["changes"]`` lists them.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"iteration": 1..k, "change": ...}``, the changes as float64.

    Raises
    ------
    InvalidArgumentError
        The result records no change per iteration (a distributed PageRank's, say).

    Examples
    --------
    >>> import gravel
    >>> from gravel.plots import convergence_data
    >>> data = convergence_data(gravel.pagerank(gravel.generate.grid(1, 2), device="cpu"))
    >>> data["iteration"].tolist(), data["change"].tolist()
    ([1], [0.0])
    """
    changes = result.stats.get("changes")
    if changes is None:
        raise InvalidArgumentError(
            f"this {result.algorithm} result records no change per iteration (stats['changes'])"
        )
    change = np.asarray(changes, np.float64)
    return {"iteration": np.arange(1, change.size + 1), "change": change}


def pagerank_convergence(result, path, *, title=None):
    """Plot PageRank's L1 change per iteration on a log scale.

    Parameters
    ----------
    result : gravel.algorithms.pagerank.PageRankResult
        With ``stats["changes"]``.
    path : str or os.PathLike
        The file written (PNG, SVG or PDF by its suffix), through a temporary file.
    title : str, optional
        Default: the algorithm, device, iterations and last change.

    Returns
    -------
    dict of str to numpy.ndarray
        :func:`convergence_data`, the data drawn.

    Raises
    ------
    InvalidArgumentError
        The result records no change per iteration.
    MissingDependencyError
        matplotlib is not installed.
    UnknownNameError
        `path` has another suffix (found after drawing: :func:`check_path` finds it before).
    """
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
