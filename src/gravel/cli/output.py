"""What the commands print and write: summary tables and per-vertex result files (``--output``)."""

from pathlib import Path

import numpy as np

from ..errors import GravelError, UnknownNameError
from ..io import atomic_write, check_writable

OUTPUT_TYPES = (".npy", ".csv", ".parquet")


def print_table(title, rows):
    """Print a summary as a two-column table.

    Parameters
    ----------
    title : str
        The table's title.
    rows : dict
        Values by name: integers with thousands separators, floats to six digits.
    """
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    for k, v in rows.items():
        table.add_row(str(k), _cell(v))
    _console().print(table)


def _console():
    """A rich Console whose closed pipe raises BrokenPipeError, which :func:`gravel.cli.main` ends
    quietly with status 0 (rich's own handler exits with status 1)."""
    from rich.console import Console

    class PipedConsole(Console):
        def on_broken_pipe(self):
            self.quiet = True
            raise BrokenPipeError("standard output closed")

    return PipedConsole()


def _cell(v):
    """A summary value as a table shows it: thousands separators, six digits of a float."""
    if isinstance(v, float):
        return f"{v:,.6g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def check_output(path):
    """Refuse an output path before any work.

    Parameters
    ----------
    path : path-like
        Where ``--output`` would write.

    Raises
    ------
    UnknownNameError
        The suffix is none of :data:`OUTPUT_TYPES`.
    GravelError
        A ``.parquet`` path where pyarrow is not installed.
    OSError
        The folder is missing or read-only (:func:`gravel.io.check_writable`). Errors name `path`.
    """
    if Path(path).suffix.lower() not in OUTPUT_TYPES:
        raise UnknownNameError(f"{path}: unknown output type (use .npy, .csv or .parquet)")
    if Path(path).suffix.lower() == ".parquet":
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            raise GravelError("writing .parquet needs pyarrow (pip install pyarrow)")
    check_writable(path)


def write_output(path, first, res, G):
    """Write a per-vertex result, in one step (no partial file is left behind).

    Parameters
    ----------
    path : path-like
        The file; its suffix picks the format: ``.npy`` holds the array named `first`, ``.csv``
        and ``.parquet`` every per-vertex array, a column each.
    first : str
        The column that ``.npy`` writes.
    res : Result
        The result, whose ``columns(G)`` gives the arrays (vertex ids in the file's ids; -1 stays).
    G : Graph
        The graph it was computed on.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    UnknownNameError, GravelError
        As :func:`check_output` raises them: an unknown suffix, or ``.parquet`` without pyarrow.
    """
    path = Path(path)
    columns = res.columns(G)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        with atomic_write(path) as f:
            np.save(f, columns[first])
    elif suffix == ".csv":
        with atomic_write(path, "w") as f:
            f.write(",".join(columns) + "\n")
            np.savetxt(
                f,
                np.column_stack(list(columns.values())),
                delimiter=",",
                fmt=["%d" if c.dtype.kind in "iub" else "%.10g" for c in columns.values()],
            )
    elif suffix == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise GravelError("writing .parquet needs pyarrow (pip install pyarrow)") from None
        with atomic_write(path) as f:
            pq.write_table(pa.table(columns), f)
    else:
        raise UnknownNameError(f"{path}: unknown output type (use .npy, .csv or .parquet)")
    return path


def _ms(key):
    return lambda r: f"{1e3 * r[key]:.2f}" if key in r else ""


_time = _ms("time_s")


def _spread(row):
    return f"{1e3 * row['min_s']:.1f}..{1e3 * row['max_s']:.1f}"


def _times(key):
    return lambda r: f"{r[key]:.1f}x" if key in r else ""


#: (heading, cell) of `gravel bench`'s table; columns that are empty in every row are left out
BENCH_COLUMNS = [
    ("graph", lambda r: r["graph"]),
    ("algo", lambda r: r["algo"]),
    ("device", lambda r: r["device"]),
    ("time (ms)", lambda r: "FAILED its check" if "problems" in r else _time(r)),
    ("min..max", lambda r: _spread(r) if "min_s" in r else ""),
    ("GTEPS", lambda r: f"{r['gteps']:.3f}" if "gteps" in r else ""),
    ("x floor", lambda r: f"{r['floor_ratio']:.1f}" if "floor_ratio" in r else ""),
    ("launches/it", lambda r: f"{r['launches_per_iteration']:.1f}" if "launches" in r else ""),
    ("SciPy (ms)", _ms("scipy_s")),
    ("vs SciPy", _times("speedup_vs_scipy")),
    ("cuSPARSE (ms)", _ms("cusparse_s")),
    ("vs cuSPARSE", _times("speedup_vs_cusparse")),
    ("CPU path (ms)", _ms("cpu_s")),
    ("vs CPU", _times("speedup_vs_cpu")),
    ("checked", lambda r: "yes" if r.get("verified") else ""),
]


def print_bench_table(rows):
    """Print :mod:`gravel.bench` rows as a table (rich), leaving out the columns empty in every row.

    Parameters
    ----------
    rows : list of dict
    """
    from rich.console import Console
    from rich.table import Table

    cells = [[cell(r) for _, cell in BENCH_COLUMNS] for r in rows]
    keep = [j for j in range(len(BENCH_COLUMNS)) if any(c[j] for c in cells)]
    table = Table(title="gravel bench")
    for j in keep:
        head = BENCH_COLUMNS[j][0]
        table.add_column(head, justify="left" if head in ("graph", "algo", "device") else "right")
    for c in cells:
        table.add_row(*(c[j] for j in keep))
    Console(width=max(Console().width, 190)).print(table)
