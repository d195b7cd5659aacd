"""``gravel bench``: the command's graphs, algorithms and records; the timing itself is the
harness's, :mod:`gravel.bench`."""

import functools
import sys
import time
from pathlib import Path

import numpy as np

from .. import config, records
from ..algorithms.catalog import CATALOG
from ..errors import GravelError, InvalidArgumentError, UnknownNameError
from ..io import check_writable
from ..programs import files as programs_files
from ..reorder import reorder
from . import output
from .graphs import open_graph, vertex_of
from .plot import check_plot
from .progress import say, working
from .run import check_gpu_flags


def cmd_bench(args):
    """``gravel bench [GRAPH...]``: time the algorithms (and ``program:FILE`` vertex programs) on
    each graph against the baselines, print each row as it is timed, then the table, and write
    ``--json`` and ``--plot``.

    Parameters
    ----------
    args : argparse.Namespace
        ``gravel bench``'s arguments: GRAPHs, ``--algo``, ``--device``, ``--repeat``,
        ``--reorder``, ``--baselines``, ``--source``, ``--weights``, ``--json``, ``--plot``,
        ``--gpus``.

    Raises
    ------
    InvalidArgumentError
        ``--repeat`` is below 1.
    GravelError
        A graph is empty, or matplotlib is missing for ``--plot``.
    OSError
        The folder of ``--json`` or ``--plot`` is missing or read-only (before any timing).
    """
    from .. import bench

    if args.repeat < 1:
        raise InvalidArgumentError(f"--repeat must be at least 1, not {args.repeat}")
    if args.gpus is not None:
        return _bench_on_gpus(args)

    algos = [a for a in args.algo or CATALOG if a in CATALOG]
    files = [a[len(programs_files.PREFIX) :] for a in args.algo or () if a not in CATALOG]
    loaded = [(Path(f).name, *programs_files.load_program(f)) for f in files]
    if args.json:
        check_writable(args.json)
    check_plot(args.plot)
    bandwidth = functools.cache(bench.copy_bandwidth)  # per device, measured on first use
    rows, graphs = [], {}
    for spec in args.graphs or [None]:
        G, name, source, info = _bench_graph(spec, args)
        graphs[name] = info
        for algo in algos:
            with working(f"timing {algo} on {name}"):
                done = bench.bench_graph(
                    G,
                    name,
                    [algo],
                    args.device,
                    args.repeat,
                    bandwidth,
                    source,
                    args.baselines,
                    args.verify,
                )
            rows += show_rows(done)
        for title, program, params in loaded:
            at = {"source": source} if "source" in program.params else {}
            with working(f"timing program {title} on {name}"):
                row = bench.bench_program(
                    G,
                    name,
                    f"program {title}",
                    program,
                    params | at,
                    args.device,
                    args.repeat,
                    args.baselines,
                )
            rows += show_rows([row])
    output.print_bench_table(rows)
    measured = {d: bandwidth(d) for d in sorted({r["device"] for r in rows})}
    print(
        "copy bandwidth "
        + ", ".join(f"{d} {b / 1e9:.1f} GB/s" for d, b in measured.items())
        + "; graph build/load (+ reorder) times (s): "
        + ", ".join(
            f"{k} {v['build_s']:.2f}" + (f" + {v['reorder_s']:.2f}" if "reorder_s" in v else "")
            for k, v in graphs.items()
        )
    )
    if args.json:
        extra = {
            "bandwidth_Bps": measured,
            "graphs": graphs,
            "command": sys.argv,
            "placement": config.placement,
            "device_memory": config.device_memory,
        }
        records.write_json(args.json, rows, extra)
    if args.plot:
        from .. import plots

        plots.bench_bars({"results": rows}, args.plot)
        print(f"bars -> {args.plot}")
    failed = [r for r in rows if "problems" in r]
    if failed:
        raise GravelError(
            f"{len(failed)} answer(s) failed their check, not timed: "
            + "; ".join(f"{r['algo']} on {r['graph']}: {r['problems'][0]}" for r in failed)
        )


#: the columns a row's line starts with, without their headings
_NAMED = ("graph", "algo", "device")


def row_line(row):
    """A bench row as one line, as the table will show it: graph, algorithm and device, then each
    of the table's columns that the row fills, with its heading.

    Parameters
    ----------
    row : dict
        A row of :mod:`gravel.bench` (``graph``, ``algo``, ``device``, ``time_s``, ...).

    Returns
    -------
    str
        E.g. ``grid:20x20  bfs (cpu): time (ms) 0.12, min..max 0.1..0.2, GTEPS 0.013, ...``.
    """
    cells = [(head, cell(row)) for head, cell in output.BENCH_COLUMNS if head not in _NAMED]
    shown = ", ".join(f"{head} {text}" for head, text in cells if text)
    if "problems" in row:
        shown = "FAILED its check: " + "; ".join(row["problems"])
    return f"{row['graph']}  {row['algo']} ({row['device']}): {shown}"


def show_rows(rows):
    """Print each row as a line on stdout as soon as it is timed, flushed (so that a redirected
    output shows progress), before the table that ends the command.

    Parameters
    ----------
    rows : list of dict
        Rows just timed.

    Returns
    -------
    list of dict
        `rows`, unchanged.
    """
    for row in rows:
        say(row_line(row))
    return rows


def _bench_on_gpus(args):
    """`gravel bench GRAPH... --gpus N`: the --algo asked of those that run distributed
    (:data:`gravel.distributed.timing.ALGOS`; default bfs, sssp, pagerank per iteration and cc) on
    N GPUs, each worker building its own part; the time and the time in exchange of each."""
    from .. import distributed
    from ..distributed import timing
    from ..distributed.build import Source

    algos = args.algo or list(timing.DEFAULT_ALGOS)
    for name in algos:
        if name not in timing.ALGOS:
            timed = ", ".join(a for a in timing.ALGOS if a in CATALOG)
            raise UnknownNameError(f"--gpus times {timed}, not {name}")
        check_gpu_flags(CATALOG[name], args)
    if args.json:
        check_writable(args.json)
    if not args.graphs:
        raise UnknownNameError("--gpus needs GRAPH (files or generator specs)")
    weights = args.weights if "sssp" in algos and args.weights else None
    rows = []
    with distributed.GPUCluster(args.gpus) as cluster:
        for spec in args.graphs:
            source = Source(spec, undirected=args.undirected, relabel=args.relabel, weights=weights)
            with working(f"loading {spec} on {args.gpus} GPUs"):
                dg = cluster.load(source)
            start = dg.hub if args.source is None else args.source
            delta = timing.delta_for(dg, weights if dg.weighted else None)
            for name in algos:
                with working(f"timing {name} on {spec} ({args.gpus} GPUs)"):
                    row = timing.measure(
                        dg, name, name=spec, repeat=args.repeat, source=start, delta=delta
                    )
                rows += show_rows([row])
            dg.free()
    output.print_bench_table(rows)
    if args.json:
        records.write_json(args.json, rows, {"command": sys.argv, "gpus": args.gpus})


def _bench_graph(spec, args):
    """The graph `gravel bench` times: loaded or built, weighted, reordered as asked; with its name,
    its source (caller's ids) and the facts the JSON records about it."""
    t = time.perf_counter()
    G, name = open_graph(spec, undirected=args.undirected, relabel=args.relabel)
    if G.n == 0:
        raise GravelError(f"{name}: the graph is empty, there is nothing to time")
    info = {
        "build_s": time.perf_counter() - t,
        "vertices": G.n,
        "edges": G.m,
        "directed": G.directed,
    }
    if args.weights and G.weights is None:
        from ..transform import add_random_weights

        G = add_random_weights(G, 1, args.weights, seed=0)
    # the source in the caller's ids, chosen before any reordering so that both runs start from it
    source = None if args.source is None else vertex_of(G, args.source)
    if source is None and G.n:
        source = int(np.argmax(G.out_degree))
    if args.reorder:
        t = time.perf_counter()
        with working(f"reordering {name} ({args.reorder})"):
            G = reorder(G, args.reorder)
        info |= {
            "reorder": args.reorder,
            "reorder_s": time.perf_counter() - t,
            "reordered": G.order is not None,
        }
        name += f" ({args.reorder})" if G.order is not None else " (auto: kept)"
    return G, name, source, info
