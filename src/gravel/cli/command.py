"""The ``gravel`` command's parser, and :func:`main`, which runs a subcommand and turns its errors
into one line and an exit status."""

import argparse
import os
import signal
import sys
import threading
import warnings
from contextlib import contextmanager, nullcontext

from .. import __version__, config, seeds
from ..algorithms.catalog import CATALOG
from ..backends.cpu import shares
from ..errors import GravelError, InvalidArgumentError
from ..placement import PLACEMENTS, parse_bytes, resolve_budget
from ..programs import files as programs_files
from ..reorder import METHODS
from .bench import cmd_bench
from .graphs import cmd_convert, cmd_generate, cmd_info
from .plot import cmd_plot
from .run import DISTRIBUTED, OPTION_FLAGS, cmd_run

RELABEL_HELP = (
    "number an edge list's ids 0..n-1 in increasing order (sparse ids); --source and outputs "
    "keep the file's ids"
)


def placement_args(sp):
    """Add ``--placement`` and ``--device-memory`` to a subcommand's parser.

    Every ``G.to("cuda")`` the command makes reads them, through :mod:`gravel.config`. Left out,
    ``--placement`` is None (auto), so that ``gravel info`` can tell whether it was asked for.

    Parameters
    ----------
    sp : argparse.ArgumentParser
        The subcommand's parser.
    """
    sp.add_argument(
        "--placement",
        choices=PLACEMENTS,
        help="where a graph's arrays live on the GPU: device memory, pinned host memory read over "
        "the bus, managed memory, or tiered (the longest lists on the device); auto (the "
        "default): device where the graph fits, else tiered",
    )
    sp.add_argument(
        "--device-memory",
        metavar="SIZE",
        help="device-memory budget, e.g. 8GB or 1.5GiB: emulates a smaller card (default: "
        "GRAVEL_DEVICE_MEMORY, else the card's free memory)",
    )


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser (its subcommands' too) whose mistakes print one line, ``gravel: error:
    ...`` naming the help to read, and exit with status 2; ``--help`` still prints the usage."""

    def error(self, message):
        one_line = " ".join(str(message).split())
        self.exit(2, f"gravel: error: {one_line} (see {self.prog} --help)\n")


def _algo_name(text):
    """An ALGO argument: a catalog name or program:FILE."""
    if text in CATALOG or text.startswith(programs_files.PREFIX):
        return text
    raise argparse.ArgumentTypeError(
        f"invalid choice: {text!r} (choose from {', '.join(sorted(CATALOG))} or program:FILE.py)"
    )


def build_parser():
    """The parser of the ``gravel`` command and its subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The parser; each subcommand sets ``func``, the function that runs it.
    """
    p = _Parser(prog="gravel", description="Graph analytics on NVIDIA GPUs and CPUs.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for add in (_add_run, _add_info, _add_bench, _add_plot, _add_generate, _add_convert):
        add(sub)
    return p


def _graph_args(sp, optional=False):
    """GRAPH (optional: the bundled graph by default), --undirected and --relabel."""
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


def _with_source():
    """The algorithms that take a source, as the help of --source names them."""
    return "/".join(a.name for a in CATALOG.values() if a.takes_source)


def _add_run(sub):
    """`gravel run`'s parser."""
    s = sub.add_parser("run", help="run an algorithm or a vertex program")
    s.add_argument(
        "algo",
        type=_algo_name,
        metavar="ALGO",
        help="one of " + ", ".join(CATALOG) + ", or program:FILE.py (a file that defines "
        "`program`, a gravel.programs.Program)",
    )
    _graph_args(s, optional=True)
    s.add_argument(
        "--source",
        type=int,
        help=f"source vertex of {_with_source()} (default: highest out-degree)",
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
        help="cut the graph into N parts, one Dask worker process each "
        f"({', '.join(DISTRIBUTED)}, program:FILE)",
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


def _add_info(sub):
    """`gravel info`'s parser."""
    s = sub.add_parser(
        "info",
        help="size and degree statistics of a graph, what it takes on the CPU, and where its "
        "arrays go on the GPU",
        description="Size and degree statistics of GRAPH and what it takes on the CPU; where a GPU "
        "is present, or --placement or --device-memory is given, where its arrays would go on "
        "the GPU.",
    )
    _graph_args(s, optional=True)
    placement_args(s)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_info)


def _add_bench(sub):
    """`gravel bench`'s parser."""
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
    s.add_argument(
        "--source", type=int, help=f"{_with_source()} source (default: highest out-degree)"
    )
    s.add_argument(
        "--weights",
        type=int,
        default=255,
        metavar="MAX",
        help="unweighted graphs get random integer weights 1..MAX (default 255)",
    )
    s.add_argument("--undirected", action="store_true")
    s.add_argument("--relabel", action="store_true", help=RELABEL_HELP)
    s.add_argument(
        "--verify",
        action="store_true",
        help="check each algorithm's answer with its verifier (SciPy or NetworkX as reference: "
        "slow on large graphs) before timing it; one that fails is not timed, and the command "
        "exits with status 2",
    )
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
        help="time bfs, sssp, pagerank and cc (or those --algo asks of these, tc and kcore) on "
        "N GPUs (one Dask worker each, NCCL exchange)",
    )
    s.set_defaults(func=cmd_bench)


def _add_plot(sub):
    """`gravel plot`'s parser."""
    s = sub.add_parser(
        "plot",
        help="plot a graph's degree distribution, a BFS's levels and PageRank's convergence",
    )
    _graph_args(s, optional=True)
    s.add_argument(
        "--out", default=".", metavar="DIR", help="folder of the plots (made if missing; default .)"
    )
    s.add_argument("--format", choices=("png", "svg", "pdf"), default="png")
    s.add_argument("--source", type=int, help="BFS source (default: highest out-degree)")
    s.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    s.set_defaults(func=cmd_plot)


def _add_generate(sub):
    """`gravel generate`'s parser."""
    s = sub.add_parser("generate", help="write a generated graph to a file")
    s.add_argument(
        "spec", help="kron:SCALE[:EF], urand:SCALE[:DEG], grid:RxC[:diag], rgg:SCALE[:DEG]"
    )
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=cmd_generate)


def _add_convert(sub):
    """`gravel convert`'s parser."""
    s = sub.add_parser("convert", help="convert between graph formats (by file suffix)")
    s.add_argument("input")
    s.add_argument("output")
    s.add_argument("--undirected", action="store_true")
    s.add_argument("--relabel", action="store_true", help=RELABEL_HELP)
    s.set_defaults(func=cmd_convert)


def main(argv=None):
    """Run the command line.

    Errors print one line on stderr, as do warnings and argparse's own (``gravel: error: ...``,
    naming the ``--help`` to read); an interruption (Ctrl-C, or SIGTERM, which the command takes
    as Ctrl-C) ends the run within a second in any phase, prints one line, no traceback, and the
    atomic writes leave no file. Run as the command (`argv` None), a run then leaves at once: the
    atexit handlers run, the interpreter's own teardown (most of a second on a busy machine once
    Numba has compiled) is skipped. Output into a pipe its reader closed early
    (``gravel info G | head -1``) ends the command quietly with status 0, as a reader that stops
    reading expects (Python's documentation of SIGPIPE: what is left goes to os.devnull).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 (a closed pipe too), 2 for an error (a GravelError, an OSError, or
        memory running out on the host or the device), 130 when interrupted by Ctrl-C (SIGINT),
        143 by SIGTERM (128 + the signal's number, as a shell reports a process the signal
        ended).

    Raises
    ------
    SystemExit
        From argparse: ``--help``, ``--version``, or arguments it cannot parse (status 2, one
        line).
    """
    with _terminate_as_interrupt(), warnings.catch_warnings():
        try:
            args = build_parser().parse_args(argv)
            warnings.showwarning = _show_warning
            if getattr(args, "seed", None) is not None:
                seeds.check(args.seed, "--seed")  # the generators' and the algorithms' rule
            with _settings(args):
                args.func(args)
            sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
            status = 0
        except BrokenPipeError:
            _quiet_stdout()
            status = 0
        except (GravelError, OSError) as e:
            print(f"gravel: error: {_one_line(e)}", file=sys.stderr)
            status = 2
        except MemoryError as e:  # NumPy's, or CuPy's OutOfMemoryError: the sizes it tried
            print(f"gravel: error: out of memory: {_one_line(e)}", file=sys.stderr)
            status = 2
        except KeyboardInterrupt as e:
            status = _stopped(e)
        except SystemError as e:
            interruption = shares.interrupted(e)
            if interruption is None:
                raise
            status = _stopped(interruption)
        except Exception:
            # a stop that Python swallowed (see _terminate_as_interrupt) can leave the work to
            # fail before it comes again (a compilation cut short), and one that the work caught
            # or that cut an import short can surface as another error (a module left half-built:
            # "cannot import name ..."): the stop is what happened
            if not _received:  # every stop, swallowed or not, came through _raise_stop
                raise
            signum = _received[-1]
            _resending.clear()  # the stop is taken: not sent again
            status = _stopped(_Terminated() if signum == signal.SIGTERM else KeyboardInterrupt())
        if argv is None:
            _leave(status)
    return status


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is, so that whatever stops on Ctrl-C (the kernels' stop flags,
    the atomic writes' clean-up) stops alike."""


#: seconds before a swallowed signal comes again (its hook has returned by then)
AGAIN_S = 0.05
#: the signals swallowed while the command runs and due to come again (cleared once taken)
_resending = []
#: the stop signals the command has received (cleared when it starts)
_received = []


def _raise_stop(signum, frame):
    _received.append(signum)
    raise _Terminated if signum == signal.SIGTERM else KeyboardInterrupt


@contextmanager
def _terminate_as_interrupt():
    """While the command runs, SIGTERM raises _Terminated and SIGINT KeyboardInterrupt, and one
    that Python swallowed (raised inside a weakref callback or a __del__, as an import's lock
    callback may be: "Exception ignored in ...") comes again, at once, instead of being printed.
    From the main thread only (Python lets no other thread set a handler); what was there before
    comes back after."""
    hook = sys.unraisablehook
    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        finally:
            sys.unraisablehook = hook  # _stopped's
        return
    before = {s: signal.signal(s, _raise_stop) for s in (signal.SIGINT, signal.SIGTERM)}

    def again(unraisable):
        e = unraisable.exc_value
        if not isinstance(e, KeyboardInterrupt):
            hook(unraisable)
            return
        signum = signal.SIGTERM if isinstance(e, _Terminated) else signal.SIGINT
        _resending.append(signum)
        while True:  # sent again from a thread (raised here, it would be lost), until it is out
            try:
                threading.Timer(AGAIN_S, _resend, (signum,)).start()
                return
            except KeyboardInterrupt:  # the one sent before landed in this hook: once more
                continue

    again.resends = True  # shares.interruptible() leaves swallowed stops to this hook

    _resending.clear()
    _received.clear()
    sys.unraisablehook = again
    try:
        yield
    finally:
        _resending.clear()
        _received.clear()
        sys.unraisablehook = hook
        for s, handler in before.items():
            signal.signal(s, handler)


def _resend(signum):
    """Send the swallowed signal `signum` again, unless the command has taken it or ended."""
    if _resending:
        os.kill(os.getpid(), signum)


def _leave(status):
    """End the process with `status` now: the atexit handlers (a cluster's, the thread pools'),
    the standard streams flushed, no teardown of the interpreter. The work is over: a signal that
    comes now changes nothing."""
    import atexit

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nothing more to say
    os._exit(status)


def _stopped(interruption):
    """The one line and the exit status of a run ended by Ctrl-C or SIGTERM. From here until the
    command returns, an object the stop left half-built that fails to finalise (llvmlite's, cut
    in a compilation: "Exception ignored in ...") is not printed: the stop's line says it."""
    sys.unraisablehook = _ignore
    if isinstance(interruption, _Terminated):
        print("gravel: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    print("gravel: interrupted", file=sys.stderr)
    return 128 + signal.SIGINT


def _ignore(unraisable):
    """An unraisable exception after the stop: dropped (:func:`_stopped`)."""


def _quiet_stdout():
    """Standard output to os.devnull once its pipe is closed, so that Python's flush at exit has
    nowhere to fail (and prints no BrokenPipeError)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass  # a stdout without a file descriptor (a test's capture): nothing is flushed at exit


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
    return config.using(placement=args.placement or "auto", device_memory=budget)


def _one_line(e):
    """An error as one line; an OSError as 'file: reason' (not '[Errno 2] ...')."""
    if isinstance(e, OSError) and e.filename is not None and not isinstance(e, GravelError):
        return f"{e.filename}: {e.strerror}"
    return str(e)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings (a rebuilt cache, say) as one line, without the source line Python shows (on a
    line of its own, below any progress bar)."""
    from tqdm import tqdm

    tqdm.write(f"gravel: warning: {message}", file=sys.stderr)
