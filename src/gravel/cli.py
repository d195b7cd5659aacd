"""The ``gravel`` command: run, info, bench, plot, generate, convert.

Every subcommand takes GRAPH as a file or a generator spec (kron:SCALE[:EDGEFACTOR],
urand:SCALE[:DEGREE], grid:RxC[:diag], rgg:SCALE[:DEGREE]). What ``run`` and ``bench`` know
about each algorithm comes from its description in ``gravel.algorithms.catalog``. Plots
(``gravel plot``, ``--plot`` on ``run`` and ``bench``) need matplotlib, imported only then. Errors
print one line and exit with status 2.
"""

import argparse
import json
import sys
import time
import warnings
from contextlib import nullcontext
from importlib import resources
from pathlib import Path

import numpy as np

from . import __version__, config, generate
from .algorithms.catalog import CATALOG
from .compiling import announce_compiling
from .errors import GravelError, InvalidArgumentError, UnknownNameError, VertexNotFoundError
from .io import atomic_write, check_writable, load, save
from .placement import PLACEMENTS, parse_bytes, plan, render, resolve_budget
from .programs import files as programs_files
from .reorder import METHODS, reorder

DEFAULT_GRAPH = "facebook_combined.txt.gz"  # SNAP ego-Facebook, 4,039 vertices, undirected


def open_graph(spec, *, undirected=False, relabel=False, seed=0):
    """A Graph from a file, a generator spec, or (None) the small real graph shipped with gravel.

    `relabel` numbers an edge list's ids 0..n-1 (generated and bundled graphs are numbered so
    already)."""
    if spec is None:
        with resources.as_file(resources.files("gravel") / "data" / DEFAULT_GRAPH) as p:
            return load(p, undirected=True, cache=False), f"{DEFAULT_GRAPH} (bundled)"
    if generate.is_spec(spec):
        return generate.from_spec(spec, seed=seed), spec
    return load(spec, undirected=undirected, relabel=relabel), spec


def _describe(G, name):
    deg = G.out_degree
    return {
        "graph": str(name),
        "vertices": G.n,
        "edges": G.m,
        "arcs": G.nnz,
        "directed": G.directed,
        "weighted": G.weighted,
        "self_loops": G.self_loops,
        "degree_min": int(deg.min()) if G.n else 0,
        "degree_max": int(deg.max(initial=0)),
        "degree_mean": float(deg.mean()) if G.n else 0.0,
        "degree_median": float(np.median(deg)) if G.n else 0.0,
        "isolated_vertices": int(((deg == 0) & (G.in_degree == 0)).sum()),
    }


def _print_table(title, rows):
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False, title_justify="left")
    for k, v in rows.items():
        table.add_row(str(k), _cell(v))
    Console().print(table)


def _cell(v):
    """A summary value as a table shows it: thousands separators, six digits of a float."""
    if isinstance(v, float):
        return f"{v:,.6g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def cmd_info(args):
    t = time.perf_counter()
    G, name = open_graph(args.graph, undirected=args.undirected, relabel=args.relabel)
    info = _describe(G, name) | {"load_s": time.perf_counter() - t}
    layout, note = _placement_plan(G)
    if args.json:
        print(json.dumps(info | {"plan": layout.summary()}))
    else:
        _print_table(f"gravel info: {name}", info)
        print(render(layout) + note)


def _placement_plan(G):
    """Where G's arrays would go on the GPU under this command's placement and budget, and, with
    no GPU here, a note on the limit the plan assumed."""
    from .backends import cuda

    if cuda.available():
        from .backends.cuda.runtime import free_bytes

        return plan(G, config.placement, free_device=free_bytes()), ""
    if resolve_budget() is None:
        note = "the budget defaults to the card's free memory; this plan assumes a card that holds "
        note += "the whole graph"
    else:
        note = "this plan is for the budget alone (on a GPU, the card's free memory caps it too)"
    return plan(G, config.placement), "\nno GPU here: " + note


def cmd_run(args):
    if args.algo.startswith(programs_files.PREFIX):
        return _run_program(args)
    algo = CATALOG[args.algo]
    for flag in ("param", "execution"):
        if getattr(args, flag):
            raise UnknownNameError(
                f"--{flag} applies to vertex programs (program:FILE), not {algo.name}"
            )
    if args.output:
        check_output(args.output)
    check_plot(args.plot)
    if args.gpus is not None:
        return _run_on_gpus(algo, args)
    t = time.perf_counter()
    G, name = open_graph(
        args.graph, undirected=args.undirected, relabel=args.relabel, seed=args.seed
    )
    load_s = time.perf_counter() - t
    if args.parts is not None:
        res = _run_distributed(algo, G, args)
    else:
        options = {"device": args.device} | _algorithm_options(algo, args)
        res = algo.call(G, _run_source(algo, G, args.source), **options)
    _report(args, algo.name, name, G, load_s, res, algo.arrays[0])


#: what `gravel run --parts` runs, by the catalog's name: gravel.distributed's function
DISTRIBUTED = {"bfs": "bfs", "sssp": "sssp", "pagerank": "pagerank", "cc": "connected_components"}


def _run_distributed(algo, G, args):
    """`gravel run ALGO --parts N`: the graph cut into N parts, one Dask worker process each."""
    from . import distributed

    if algo.name not in DISTRIBUTED:
        raise UnknownNameError(f"--parts runs {', '.join(DISTRIBUTED)}, not {algo.name}")
    if args.parts < 1:
        raise InvalidArgumentError(f"--parts must be at least 1, not {args.parts}")
    if args.device == "cuda":
        raise UnknownNameError("--parts runs on CPU workers for now: leave out --device cuda")
    fn = getattr(distributed, DISTRIBUTED[algo.name])
    options = _algorithm_options(algo, args)
    source = _run_source(algo, G, args.source)
    return fn(G, *([] if source is None else [source]), parts=args.parts, **options)


def _check_gpus(algo, args):
    """--gpus checked before any work: the algorithm, the count against the GPUs present."""
    from .distributed.gpu import check_gpus

    if algo.name not in DISTRIBUTED:
        raise UnknownNameError(f"--gpus runs {', '.join(DISTRIBUTED)}, not {algo.name}")
    if getattr(args, "parts", None) is not None:
        raise UnknownNameError("give --gpus or --parts, not both")
    if args.device == "cpu":
        raise UnknownNameError("--gpus runs on GPUs: leave out --device cpu")
    check_gpus(args.gpus)


def _run_on_gpus(algo, args):
    """`gravel run ALGO GRAPH --gpus N`: one Dask worker per GPU, each building or reading its own
    part of GRAPH, exchanging over NCCL."""
    from . import distributed
    from .distributed.build import Source

    _check_gpus(algo, args)
    if args.graph is None:
        raise UnknownNameError("--gpus needs GRAPH (a file or a generator spec)")
    source = Source(args.graph, seed=args.seed, undirected=args.undirected, relabel=args.relabel)
    with distributed.GPUCluster(args.gpus) as cluster:
        t = time.perf_counter()
        G = cluster.load(source)
        load_s = time.perf_counter() - t
        start = [] if not algo.takes_source else [G.hub if args.source is None else args.source]
        fn = getattr(distributed, DISTRIBUTED[algo.name])
        res = fn(G, *start, **_algorithm_options(algo, args))
    _report(args, algo.name, args.graph, G, load_s, res, algo.arrays[0])


def _run_program(args):
    """`gravel run program:FILE`: the vertex program the file defines, its params updated by
    --param NAME=VALUE and, for a program with a `source` parameter, --source."""
    from . import programs

    program, params = programs_files.load_program(args.algo[len(programs_files.PREFIX) :])
    for item in args.param or ():
        key, sep, value = item.partition("=")
        if not sep:
            raise InvalidArgumentError(f"--param {item!r}: write NAME=VALUE")
        params[key.strip()] = _literal(value, item)
    if args.output:
        check_output(args.output)
    check_plot(args.plot)
    for name in ("k", "alpha", "tol", "parts", "gpus"):
        if getattr(args, name) is not None:
            raise UnknownNameError(f"--{name} does not apply to vertex programs")
    t = time.perf_counter()
    G, name = open_graph(
        args.graph, undirected=args.undirected, relabel=args.relabel, seed=args.seed
    )
    load_s = time.perf_counter() - t
    if args.source is not None:
        if "source" not in program.params:
            raise UnknownNameError("--source applies to programs with a `source` parameter")
        params["source"] = vertex_of(G, args.source)
    max_iter = {} if args.max_iter is None else {"max_iter": args.max_iter}
    execution = {} if args.execution is None else {"execution": args.execution}
    res = programs.run(G, program, params=params, device=args.device, **max_iter, **execution)
    title = f"program {Path(args.algo[len(programs_files.PREFIX) :]).name}"
    fields = res.state.dtype.names
    _report(args, title, name, G, load_s, res, f"state.{fields[0]}" if fields else "state")


def _literal(value, item):
    """A --param value: a Python number or boolean."""
    import ast

    try:
        out = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        out = None
    if isinstance(out, (bool, int, float)):
        return out
    raise InvalidArgumentError(f"--param {item!r}: the value must be a number or True/False")


def _report(args, title, name, G, load_s, res, first):
    """Print a run's summary (or its JSON), write its per-vertex arrays to --output and its plot
    to --plot."""
    summary = {
        "graph": str(name),
        "vertices": G.n,
        "edges": G.m,
        "directed": G.directed,
        "load_s": load_s,
    } | res.summary()
    if args.output:
        summary["output"] = str(write_output(args.output, first, res, G))
    if args.plot:
        summary["plot"] = str(plot_run(args.plot, res, G))
    if args.json:
        print(json.dumps(summary))
    else:
        _print_table(f"gravel run {title}: {name}", summary)


#: the flags that `gravel run` passes to an algorithm as keywords of the same name, for the
#: algorithms whose catalog entry lists them in ``options``: (type, help)
OPTION_FLAGS = {
    "k": (int, "number of sampled sources (default: all)"),
    "alpha": (float, "damping factor (default: the function's)"),
    "max_iter": (int, "most iterations (default: the function's)"),
    "tol": (float, "stopping tolerance (default: the function's)"),
}


def _algorithm_options(algo, args):
    """The keywords `gravel run` passes to `algo`: its catalog options that were given (--seed
    always, as it also seeds generators); a flag of another algorithm is an error."""
    for name in OPTION_FLAGS:
        if name not in algo.options and getattr(args, name) is not None:
            flag = "--" + name.replace("_", "-")
            raise UnknownNameError(f"{flag} does not apply to {algo.name}")
    return {o: getattr(args, o) for o in algo.options if getattr(args, o) is not None}


def _run_source(algo, G, source):
    """The source vertex `gravel run` starts `algo` from (None for algorithms without one)."""
    if not algo.takes_source:
        if source is not None:
            raise UnknownNameError(f"--source does not apply to {algo.name}")
        return None
    if G.n == 0:
        raise GravelError("the graph is empty: there is no source vertex")
    # the busiest vertex: a traversal from it is never trivially short
    return int(np.argmax(G.out_degree)) if source is None else vertex_of(G, source)


def vertex_of(G, vertex_id):
    """The vertex of `G` that a command-line id names: the file's own id when G was relabelled on
    load (G.labels), G's id otherwise."""
    if G.labels is None:
        return vertex_id
    hit = np.flatnonzero(G.labels == vertex_id)
    if not len(hit):
        raise VertexNotFoundError(f"vertex {vertex_id} does not occur in the graph file")
    return int(hit[0])


OUTPUT_TYPES = (".npy", ".csv", ".parquet")


def check_output(path):
    """Refuse an output path before any work: an unknown type, a missing or read-only folder, or
    .parquet without pyarrow. Errors name `path`."""
    if Path(path).suffix.lower() not in OUTPUT_TYPES:
        raise UnknownNameError(f"{path}: unknown output type (use .npy, .csv or .parquet)")
    if Path(path).suffix.lower() == ".parquet":
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            raise GravelError("writing .parquet needs pyarrow (pip install pyarrow)")
    check_writable(path)


def write_output(path, first, res, G):
    """Write the per-vertex result `res`: .npy (its array named `first`), .csv or .parquet (every
    per-vertex array)."""
    path = Path(path)
    columns = res.columns(G)  # vertex ids (BFS parents) in the file's ids; -1 stays
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


def check_plot(path):
    """Refuse a --plot path before any work (its type, its folder, matplotlib missing); None
    passes."""
    if path is not None:
        from . import plots

        plots.check_path(path)


def plot_run(path, res, G):
    """The plot of a run that tells most about it: the levels of a BFS, the convergence of
    PageRank, otherwise the degree distribution of the graph. Returns the path."""
    from . import plots
    from .algorithms.bfs import BFSResult
    from .algorithms.pagerank import PageRankResult

    if isinstance(res, BFSResult):
        plots.traversal_levels(res, path)
    elif isinstance(res, PageRankResult):
        plots.pagerank_convergence(res, path)
    else:
        plots.degree_distribution(G, path)
    return Path(path)


def cmd_plot(args):
    """`gravel plot`: the degree distribution of GRAPH and, where it has edges, the levels of a BFS
    from its busiest vertex (or --source) and PageRank's convergence, as files in --out."""
    from . import algorithms, plots

    plots.require_matplotlib()  # before the folder is made
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = _plot_stem(args.graph)
    paths = {k: out / f"{stem}-{k}.{args.format}" for k in ("degrees", "bfs-levels", "pagerank")}
    for path in paths.values():
        plots.check_path(path)
    G, name = open_graph(args.graph, undirected=args.undirected, relabel=args.relabel)
    plots.degree_distribution(G, paths["degrees"])
    written = {"degree distribution": paths["degrees"]}
    if G.nnz:
        source = _run_source(CATALOG["bfs"], G, args.source)
        plots.traversal_levels(algorithms.bfs(G, source, device=args.device), paths["bfs-levels"])
        written["BFS levels"] = paths["bfs-levels"]
        plots.pagerank_convergence(algorithms.pagerank(G, device=args.device), paths["pagerank"])
        written["PageRank convergence"] = paths["pagerank"]
    for what, path in written.items():
        print(f"{name}: {what} -> {path}")


def _plot_stem(spec):
    """The start of `gravel plot`'s file names: the graph file's name without its suffixes, or the
    generator spec with ':' as '_'."""
    if spec is None:
        return DEFAULT_GRAPH.split(".")[0]
    if generate.is_spec(spec):
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in spec)
    return Path(spec).name.split(".")[0] or "graph"


def cmd_generate(args):
    check_writable(args.output)
    G = generate.from_spec(args.spec, seed=args.seed)
    save(G, args.output)
    print(f"{args.spec}: {G.n:,} vertices, {G.m:,} edges -> {args.output}")


def cmd_convert(args):
    check_writable(args.output)
    G, _ = open_graph(args.input, undirected=args.undirected, relabel=args.relabel)
    save(G, args.output)
    print(f"{args.input}: {G.n:,} vertices, {G.m:,} edges -> {args.output}")


def cmd_bench(args):
    import functools

    from . import bench

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
        rows += bench.bench_graph(
            G, name, algos, args.device, args.repeat, bandwidth, source, args.baselines
        )
        for title, program, params in loaded:
            at = {"source": source} if "source" in program.params else {}
            rows.append(
                bench.bench_program(
                    G,
                    name,
                    f"program {title}",
                    program,
                    params | at,
                    args.device,
                    args.repeat,
                    args.baselines,
                )
            )
    bench.print_table(rows)
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
        bench.write_json(args.json, rows, extra)
    if args.plot:
        from . import plots

        plots.bench_bars({"results": rows}, args.plot)
        print(f"bars -> {args.plot}")


def _bench_on_gpus(args):
    """`gravel bench GRAPH... --gpus N`: bfs, sssp, pagerank (per iteration) and cc on N GPUs,
    each worker building its own part; the time and the time in exchange of each."""
    from . import bench, distributed
    from .distributed import timing
    from .distributed.build import Source

    algos = args.algo or list(timing.ALGOS)
    for name in algos:
        _check_gpus(CATALOG[name], args)
    if args.json:
        check_writable(args.json)
    if not args.graphs:
        raise UnknownNameError("--gpus needs GRAPH (files or generator specs)")
    weights = args.weights if "sssp" in algos and args.weights else None
    rows = []
    with distributed.GPUCluster(args.gpus) as cluster:
        for spec in args.graphs:
            source = Source(spec, undirected=args.undirected, relabel=args.relabel, weights=weights)
            dg = cluster.load(source)
            start = dg.hub if args.source is None else args.source
            delta = timing.delta_for(dg, weights if dg.weighted else None)
            for name in algos:
                row = timing.measure(
                    dg, name, name=spec, repeat=args.repeat, source=start, delta=delta
                )
                rows.append(row)
            dg.free()
    bench.print_table(rows)
    if args.json:
        bench.write_json(args.json, rows, {"command": sys.argv, "gpus": args.gpus})


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
        from .transform import add_random_weights

        G = add_random_weights(G, 1, args.weights, seed=0)
    # the source in the caller's ids, chosen before any reordering so that both runs start from it
    source = None if args.source is None else vertex_of(G, args.source)
    if source is None and G.n:
        source = int(np.argmax(G.out_degree))
    if args.reorder:
        t = time.perf_counter()
        G = reorder(G, args.reorder)
        info |= {
            "reorder": args.reorder,
            "reorder_s": time.perf_counter() - t,
            "reordered": G.order is not None,
        }
        name += f" ({args.reorder})" if G.order is not None else " (auto: kept)"
    return G, name, source, info


def _settings(args):
    """gravel.config for this command: its --placement and --device-memory (checked before any
    work; a size that does not parse is an error naming it), where the command takes them."""
    if not hasattr(args, "placement"):
        return nullcontext()
    if args.device_memory is None:
        budget = resolve_budget()  # gravel.config's or GRAVEL_DEVICE_MEMORY: errors name them
    else:
        try:
            budget = parse_bytes(args.device_memory)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"--device-memory: {e}") from None
    return config.using(placement=args.placement, device_memory=budget)


def placement_args(sp):
    """--placement and --device-memory, read by every ``G.to("cuda")`` the command makes."""
    sp.add_argument(
        "--placement",
        choices=PLACEMENTS,
        default="auto",
        help="where a graph's arrays live on the GPU: device memory, pinned host memory read over "
        "the bus, managed memory, or tiered (the longest lists on the device); auto: device "
        "where the graph fits, else tiered",
    )
    sp.add_argument(
        "--device-memory",
        metavar="SIZE",
        help="device-memory budget, e.g. 8GB or 1.5GiB: emulates a smaller card (default: "
        "GRAVEL_DEVICE_MEMORY, else the card's free memory)",
    )


RELABEL_HELP = (
    "number an edge list's ids 0..n-1 in increasing order (sparse ids); --source and outputs "
    "keep the file's ids"
)


def _algo_name(text):
    """An ALGO argument: a catalog name or program:FILE."""
    if text in CATALOG or text.startswith(programs_files.PREFIX):
        return text
    raise argparse.ArgumentTypeError(
        f"invalid choice: {text!r} (choose from {', '.join(sorted(CATALOG))} or program:FILE.py)"
    )


def build_parser():
    p = argparse.ArgumentParser(
        prog="gravel", description="Graph analytics on NVIDIA GPUs and CPUs."
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    with_source = "/".join(a.name for a in CATALOG.values() if a.takes_source)

    def graph_args(sp, optional=False):
        default = "; default: a small real graph shipped with gravel" if optional else ""
        sp.add_argument(
            "graph",
            nargs="?" if optional else None,
            metavar="GRAPH",
            help="graph file or generator spec (kron:SCALE[:EF], urand:SCALE[:DEG], "
            "grid:RxC, rgg:SCALE[:DEG])" + default,
        )
        sp.add_argument("--undirected", action="store_true", help="read an edge list as undirected")
        sp.add_argument("--relabel", action="store_true", help=RELABEL_HELP)

    s = sub.add_parser("run", help="run an algorithm or a vertex program")
    s.add_argument(
        "algo",
        type=_algo_name,
        metavar="ALGO",
        help="one of " + ", ".join(CATALOG) + ", or program:FILE.py (a file that defines "
        "`program`, a gravel.programs.Program)",
    )
    graph_args(s, optional=True)
    s.add_argument(
        "--source", type=int, help=f"source vertex of {with_source} (default: highest out-degree)"
    )
    s.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    placement_args(s)
    for name, (kind, text) in OPTION_FLAGS.items():
        users = "/".join(a.name for a in CATALOG.values() if name in a.options)
        s.add_argument("--" + name.replace("_", "-"), type=kind, help=f"{users}: {text}")
    s.add_argument("--seed", type=int, default=0, help="seed of generators and sampling")
    s.add_argument(
        "--parts",
        type=int,
        metavar="N",
        help=f"cut the graph into N parts, one Dask worker process each ({', '.join(DISTRIBUTED)})",
    )
    s.add_argument(
        "--gpus",
        type=int,
        metavar="N",
        help="run on N GPUs, one Dask worker each building its own part of GRAPH, exchanging "
        f"over NCCL ({', '.join(DISTRIBUTED)})",
    )
    s.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a vertex program's parameter (repeatable)",
    )
    s.add_argument(
        "--execution",
        choices=("single", "hybrid-seed", "hybrid"),
        help="a vertex program's execution: on --device (single, the default), GraphMat's CPU-GPU "
        "hybrid (hybrid-seed), or its edges split between CPU and GPU (hybrid)",
    )
    s.add_argument("--output", "-o", help="write the per-vertex result (.npy, .csv, .parquet)")
    s.add_argument(
        "--plot",
        metavar="FILE",
        help="plot the run (.png, .svg, .pdf; needs matplotlib): bfs's levels, pagerank's "
        "convergence, otherwise the degree distribution",
    )
    s.add_argument("--json", action="store_true", help="print the summary as JSON")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser(
        "info", help="size and degree statistics of a graph, and where its arrays go on the GPU"
    )
    graph_args(s, optional=True)
    placement_args(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_info)

    s = sub.add_parser("bench", help="time algorithms against baselines on one or more graphs")
    s.add_argument(
        "graphs", nargs="*", metavar="GRAPH", help="files or generator specs (default: bundled)"
    )
    s.add_argument(
        "--algo",
        action="append",
        type=_algo_name,
        metavar="ALGO",
        help="repeatable, a catalog name or program:FILE.py (timed beside gravel's CPU path on "
        "the GPU); default: every catalog algorithm",
    )
    s.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    placement_args(s)
    s.add_argument(
        "--repeat", type=int, default=5, help="timed runs after one warm-up (median reported)"
    )
    s.add_argument(
        "--reorder",
        choices=("auto",) + METHODS,
        help="relabel each graph first (timed apart; results stay in the caller's ids)",
    )
    s.add_argument(
        "--baselines",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time SciPy, cuSPARSE and (for GPU runs) gravel's CPU path in the same run",
    )
    s.add_argument("--source", type=int, help=f"{with_source} source (default: highest out-degree)")
    s.add_argument(
        "--weights",
        type=int,
        default=255,
        metavar="MAX",
        help="unweighted graphs get random integer weights 1..MAX (default 255)",
    )
    s.add_argument("--undirected", action="store_true")
    s.add_argument("--relabel", action="store_true", help=RELABEL_HELP)
    s.add_argument("--json", help="write the results (with machine, date, git SHA) to this file")
    s.add_argument(
        "--plot",
        metavar="FILE",
        help="bars of the times against the baselines (.png, .svg, .pdf; needs matplotlib)",
    )
    s.add_argument(
        "--gpus",
        type=int,
        metavar="N",
        help="time bfs, sssp, pagerank and cc on N GPUs (one Dask worker each, NCCL exchange)",
    )
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser(
        "plot",
        help="plot a graph's degree distribution, a BFS's levels and PageRank's convergence",
    )
    graph_args(s, optional=True)
    s.add_argument(
        "--out", default=".", metavar="DIR", help="folder of the plots (made if missing; default .)"
    )
    s.add_argument("--format", choices=("png", "svg", "pdf"), default="png")
    s.add_argument("--source", type=int, help="BFS source (default: highest out-degree)")
    s.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    s.set_defaults(func=cmd_plot)

    s = sub.add_parser("generate", help="write a generated graph to a file")
    s.add_argument(
        "spec", help="kron:SCALE[:EF], urand:SCALE[:DEG], grid:RxC[:diag], rgg:SCALE[:DEG]"
    )
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=cmd_generate)

    s = sub.add_parser("convert", help="convert between graph formats (by file suffix)")
    s.add_argument("input")
    s.add_argument("output")
    s.add_argument("--undirected", action="store_true")
    s.add_argument("--relabel", action="store_true", help=RELABEL_HELP)
    s.set_defaults(func=cmd_convert)
    return p


def main(argv=None):
    """Run the command line; returns the exit status: 0, 2 for an error (one line on stderr), 130
    when interrupted (Ctrl-C: one line, no traceback; atomic writes leave no file)."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings(), announce_compiling():
        warnings.showwarning = _show_warning
        try:
            with _settings(args):
                args.func(args)
        except (GravelError, OSError) as e:
            print(f"gravel: error: {_one_line(e)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("gravel: interrupted", file=sys.stderr)
            return 130
    return 0


def _one_line(e):
    """An error as one line; an OSError as 'file: reason' (not '[Errno 2] ...')."""
    if isinstance(e, OSError) and e.filename is not None and not isinstance(e, GravelError):
        return f"{e.filename}: {e.strerror}"
    return str(e)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings (a rebuilt cache, say) as one line, without the source line Python shows."""
    print(f"gravel: warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
