"""Plots of a graph, a traversal, a power iteration and a benchmark record (matplotlib).

matplotlib is an optional extra (``pip install 'gravel[plot]'``) imported only when a plot is drawn:
``import gravel`` and ``import gravel.plots`` never import it. Figures are drawn on the Agg canvas
(no display, no pyplot state) and written whole through a temporary file, as PNG, SVG or PDF by the
path's suffix.

Each plot function has a data function beside it (``degree_counts``, ``level_data``,
``convergence_data``, ``bench_data``) that computes exactly what it draws, and returns that data,
so that tests and callers can check the numbers without reading pixels.
"""

from .bench import BASELINE_NAMES, bench_bars, bench_data, bench_rows
from .figures import (
    FORMATS,
    HINT,
    check_path,
    convergence_data,
    degree_counts,
    degree_distribution,
    level_data,
    pagerank_convergence,
    require_matplotlib,
    traversal_levels,
)

__all__ = [
    "BASELINE_NAMES",
    "FORMATS",
    "HINT",
    "bench_bars",
    "bench_data",
    "bench_rows",
    "check_path",
    "convergence_data",
    "degree_counts",
    "degree_distribution",
    "level_data",
    "pagerank_convergence",
    "require_matplotlib",
    "traversal_levels",
]
