"""``gravel run``: the kinds of run (a catalog algorithm on one device, on parts with Dask workers,
on several GPUs, or a vertex program from a file) and the summary each ends with."""

import json
import time
from pathlib import Path

from ..algorithms.catalog import CATALOG
from ..dispatch import caller_id
from ..errors import InvalidArgumentError, UnknownNameError
from ..programs import files as programs_files
from .graphs import open_graph, run_source, vertex_of
from .output import check_output, print_table, write_output
from .plot import check_plot, plot_run
from .progress import working

#: what `gravel run --parts` runs, by the catalog's name: gravel.distributed's function
DISTRIBUTED = {
    "bfs": "bfs",
    "sssp": "sssp",
    "pagerank": "pagerank",
    "cc": "connected_components",
    "bc": "betweenness_centrality",
    "tc": "triangles",
    "kcore": "core_number",
}

#: the flags that `gravel run` passes to an algorithm as keywords of the same name, for the
#: algorithms whose catalog entry lists them in ``options``: (type, help)
OPTION_FLAGS = {
    "k": (int, "number of sampled sources (default: all)"),
    "alpha": (float, "damping factor (default: the function's)"),
    "max_iter": (int, "most iterations (default: the function's)"),
    "tol": (float, "stopping tolerance (default: the function's)"),
}


def cmd_run(args):
    """``gravel run ALGO [GRAPH]``: run a catalog algorithm (on one device, on ``--parts`` Dask
    workers or on ``--gpus``) or a vertex program (``program:FILE``), print its summary and write
    ``--output`` and ``--plot``.

    Parameters
    ----------
    args : argparse.Namespace
        ``gravel run``'s arguments: ALGO, GRAPH, ``--source``, ``--device``, the algorithm's
        options, ``--parts`` or ``--gpus``, ``--param``, ``--output``, ``--plot``, ``--json``.

    Raises
    ------
    UnknownNameError
        A flag that does not apply to ALGO, or an output of unknown type.
    InvalidArgumentError
        ``--parts`` below 1, ``--gpus`` beyond the GPUs present, or a ``--param`` that is not
        NAME=VALUE with a number or boolean.
    GravelError
        The graph is empty, or what the algorithm raises. Errors about flags and output paths come
        before the graph is read.
    """
    if args.algo.startswith(programs_files.PREFIX):
        return _run_program(args)
    algo = CATALOG[args.algo]
    for flag in ("param", "execution"):
        if getattr(args, flag):
            raise UnknownNameError(
                f"--{flag} applies to vertex programs (program:FILE), not {algo.name}"
            )
    _check_outputs(args)
    if args.gpus is not None:
        return _run_on_gpus(algo, args)
    G, name, load_s = _open(args)
    if args.parts is not None:
        res, call_s = timed_call(f"running {algo.name} on {name}", _run_distributed, algo, G, args)
    else:
        options = {"device": args.device} | _algorithm_options(algo, args)
        source = run_source(algo, G, args.source)
        res, call_s = timed_call(f"running {algo.name} on {name}", algo.call, G, source, **options)
    _report(args, algo.name, name, G, load_s, res, call_s, algo.arrays[0])


def _check_outputs(args):
    """--output and --plot, refused before any work."""
    if args.output:
        check_output(args.output)
    check_plot(args.plot)


def _open(args):
    """GRAPH as `gravel run` reads it, its name and the seconds it took."""
    t = time.perf_counter()
    G, name = open_graph(
        args.graph, undirected=args.undirected, relabel=args.relabel, seed=args.seed
    )
    return G, name, time.perf_counter() - t


def timed_call(what, fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)``, saying on stderr that `what` runs if it runs long.

    Parameters
    ----------
    what : str
        What the call does, for :func:`gravel.cli.progress.working`.
    fn : callable
        The call.
    *args, **kwargs
        Its arguments.

    Returns
    -------
    result : object
        What `fn` returned.
    seconds : float
        The call's wall time, all of it: compiling, copies, checks and the algorithm's own time.
    """
    t = time.perf_counter()
    with working(what):
        out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def _run_distributed(algo, G, args):
    """`gravel run ALGO --parts N`: the graph cut into N parts, one Dask worker process each."""
    from .. import distributed

    if algo is not None and algo.name not in DISTRIBUTED:
        raise UnknownNameError(
            f"--parts runs {', '.join(DISTRIBUTED)} and vertex programs, not {algo.name}"
        )
    _check_parts(args)
    fn = getattr(distributed, DISTRIBUTED[algo.name])
    options = _algorithm_options(algo, args)
    source = run_source(algo, G, args.source)
    return fn(G, *([] if source is None else [source]), parts=args.parts, **options)


def _check_parts(args):
    """Check ``--parts`` (CPU workers) before any work."""
    if args.parts < 1:
        raise InvalidArgumentError(f"--parts must be at least 1, not {args.parts}")
    if args.device == "cuda":
        raise UnknownNameError("--parts runs on CPU workers (--gpus on GPUs): leave out --device")


def check_gpu_flags(algo, args):
    """Check ``--gpus`` before any work.

    Parameters
    ----------
    algo : Algorithm or None
        The algorithm's catalog description; None for a vertex program (any runs over GPUs).
    args : argparse.Namespace
        ``gravel run``'s or ``gravel bench``'s arguments: ``--gpus``, ``--device``, and
        ``--parts`` where the command has it.

    Raises
    ------
    UnknownNameError
        The algorithm has no multi-GPU path, or ``--gpus`` comes with ``--parts`` or
        ``--device cpu``.
    InvalidArgumentError
        ``--gpus`` is not a positive integer, or more GPUs than are present.
    """
    from ..distributed.gpu import check_gpus

    if algo is not None and algo.name not in DISTRIBUTED:
        raise UnknownNameError(f"--gpus runs {', '.join(DISTRIBUTED)}, not {algo.name}")
    if getattr(args, "parts", None) is not None:
        raise UnknownNameError("give --gpus or --parts, not both")
    if args.device == "cpu":
        raise UnknownNameError("--gpus runs on GPUs: leave out --device cpu")
    check_gpus(args.gpus)


def _run_on_gpus(algo, args):
    """`gravel run ALGO GRAPH --gpus N`: one Dask worker per GPU, each building or reading its own
    part of GRAPH, exchanging over NCCL."""
    from .. import distributed
    from ..distributed.build import Source

    check_gpu_flags(algo, args)
    if args.graph is None:
        raise UnknownNameError("--gpus needs GRAPH (a file or a generator spec)")
    source = Source(args.graph, seed=args.seed, undirected=args.undirected, relabel=args.relabel)
    with distributed.GPUCluster(args.gpus) as cluster:
        G, load_s = timed_call(f"loading {args.graph} on {args.gpus} GPUs", cluster.load, source)
        start = [] if not algo.takes_source else [G.hub if args.source is None else args.source]
        fn = getattr(distributed, DISTRIBUTED[algo.name])
        what = f"running {algo.name} on {args.graph}"
        res, call_s = timed_call(what, fn, G, *start, **_algorithm_options(algo, args))
    _report(args, algo.name, args.graph, G, load_s, res, call_s, algo.arrays[0])


def _run_program(args):
    """`gravel run program:FILE`: the vertex program the file defines, its params updated by
    --param NAME=VALUE and, for a program with a `source` parameter, --source; on one machine, or
    over --parts CPU workers or --gpus GPUs (:func:`gravel.distributed.run_program`)."""
    from .. import distributed, programs

    program, params = programs_files.load_program(args.algo[len(programs_files.PREFIX) :])
    for item in args.param or ():
        key, sep, value = item.partition("=")
        if not sep:
            raise InvalidArgumentError(f"--param {item!r}: write NAME=VALUE")
        params[key.strip()] = _literal(value, item)
    _check_outputs(args)
    for name in ("k", "alpha", "tol"):
        if getattr(args, name) is not None:
            raise UnknownNameError(f"--{name} does not apply to vertex programs")
    spread = args.parts is not None or args.gpus is not None
    if spread and args.execution is not None:
        raise UnknownNameError(
            "--execution chooses devices of one machine: not with --parts or --gpus"
        )
    if args.gpus is not None:
        check_gpu_flags(None, args)
    if args.parts is not None:
        _check_parts(args)
    G, name, load_s = _open(args)
    if args.source is not None:
        if "source" not in program.params:
            raise UnknownNameError("--source applies to programs with a `source` parameter")
        # --source names a vertex, whether or not the program declares it one
        params["source"] = caller_id(G, vertex_of(G, args.source), "parameter 'source':")
    max_iter = {} if args.max_iter is None else {"max_iter": args.max_iter}
    execution = {} if args.execution is None else {"execution": args.execution}
    title = f"program {Path(args.algo[len(programs_files.PREFIX) :]).name}"
    if not spread:
        run, where = programs.run, {"device": args.device} | execution
    elif args.parts is not None:
        run, where = distributed.run_program, {"parts": args.parts}
    else:
        run, where = distributed.run_program, {"gpus": args.gpus}
    what = f"running {title} on {name}"
    res, call_s = timed_call(what, run, G, program, params=params, **max_iter, **where)
    fields = res.state.dtype.names
    first = f"state.{fields[0]}" if fields else "state"
    _report(args, title, name, G, load_s, res, call_s, first)


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


def _report(args, title, name, G, load_s, res, call_s, first):
    """Print a run's summary (or its JSON), write its per-vertex arrays to --output and its plot
    to --plot. The summary gives the algorithm's own time (``time_s``) and then the whole call's
    (``call_s``: compiling, copies and checks too); the table leaves out a ``compile_s`` of 0."""
    summary = {
        "graph": str(name),
        "vertices": G.n,
        "edges": G.m,
        "directed": G.directed,
        "load_s": load_s,
    }
    for key, value in res.summary().items():
        summary[key] = value
        if key == "time_s":
            summary["call_s"] = call_s
    summary.setdefault("call_s", call_s)
    if args.output:
        summary["output"] = str(write_output(args.output, first, res, G))
    if args.plot:
        summary["plot"] = str(plot_run(args.plot, res, G))
    if args.json:
        print(json.dumps(summary))
    else:
        if not summary.get("compile_s"):
            summary.pop("compile_s", None)
        print_table(f"gravel run {title}: {name}", summary)


def _algorithm_options(algo, args):
    """The keywords `gravel run` passes to `algo`: its catalog options that were given (--seed
    always, as it also seeds generators); a flag of another algorithm is an error."""
    for name in OPTION_FLAGS:
        if name not in algo.options and getattr(args, name) is not None:
            flag = "--" + name.replace("_", "-")
            raise UnknownNameError(f"{flag} does not apply to {algo.name}")
    return {o: getattr(args, o) for o in algo.options if getattr(args, o) is not None}
