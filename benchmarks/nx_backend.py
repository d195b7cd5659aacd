"""NetworkX alone against NetworkX dispatching to gravel (``backend="gravel"``), one call per
function the backend serves (benchmarks/nx_calls.py), on NetworkX graphs of about a million edges,
on gravel's CPU path and, where CuPy sees a GPU, on its GPU path.

Each graph (a generator spec or a file) is read by gravel and turned into the NetworkX graphs the
calls given take (an ``nx.Graph`` with weights, one without, a directed graph, a DAG), each once;
building them is not timed. Per call, NetworkX alone runs --nx-repeat times (pure Python: nothing to
warm up); calls marked heavy (all sources, all pairs, quadratic layouts) skip it above
--nx-max-edges. Then per device (``nx.config.backends.gravel.device``), with the kernels compiled on
a small graph first and after a warm-up call (which converts the graph where no earlier call did; a
first call on a large graph may compile more): "excl." is the median of --repeat calls with the
conversion cached on the graph (``G.__networkx_cache__``); "incl." the median of --repeat calls each
with that cache emptied first, as on a fresh graph (conversion to gravel's CSR and, on the GPU, the
copy to the device included). Times are wall clock around the NetworkX call, including the
conversion of gravel's arrays back to NetworkX's dicts and sets. "diff" compares gravel's answer to
NetworkX's (benchmarks/nx_calls.py's ``difference``: the largest absolute difference of numbers,
else 0 for equal and 1 for different); seeded calls (random draws) are not compared. A call gravel
declines (NotImplementedError) is listed as not served, with the reason.

On large graphs, where NetworkX alone would run for hours: --nx-timeout runs it in a forked
child killed after that many seconds (the row says ``networkx_over_s`` and compares nothing),
--heavy-max-edges leaves heavy calls out for gravel too, and --incl-repeat 0 leaves out the
"incl." runs (each converts the whole graph again; the conversion is timed apart once per graph
kind, "convert_s"). A run stopped by SIGINT or SIGTERM writes the rows it has, marked
``"cut": true``. The graphs built are frozen out of Python's garbage collector (``gc.freeze``)
before any call: a pass of its oldest generation walks every object, and the four NetworkX graphs
held here (a user's program holds one) would make such passes, not the calls, most of the time of
the calls that build large results, NetworkX's and gravel's alike.

    python benchmarks/nx_backend.py kron:16 --json benchmarks/results/cpu-2core/nx_backend.json
    python benchmarks/nx_backend.py kron:20 --devices cuda --nx-timeout 10 \
        --heavy-max-edges 1000000 --incl-repeat 0 --repeat 1
"""

import gc
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

import networkx as nx

from gravel.backends import cuda
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

sys.path.insert(0, str(Path(__file__).parent))
from nx_calls import CALLS, Inputs, difference  # noqa: E402
from stopping import Stoppable  # noqa: E402

# the graph comes from the caller: NetworkX's warning about cached conversions does not apply
nx.config.warnings_to_ignore.add("cache")


def timed(fn, before=None):
    """Seconds of fn(), and its answer; `before` runs first, untimed."""
    if before:
        before()
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def median_s(fn, repeat, before=None):
    return statistics.median(timed(fn, before)[0] for _ in range(repeat))


def gravel_times(call, inputs, G, repeat, incl_repeat):
    """(answer, excl. s, incl. s or None) of `call` on gravel's current device;
    NotImplementedError where gravel declines it."""
    got = call.run(inputs, G, backend="gravel")  # warm-up: converts where no call did yet
    excl = median_s(lambda: call.run(inputs, G, backend="gravel"), repeat)
    incl = None
    if incl_repeat:
        run = lambda: call.run(inputs, G, backend="gravel")  # noqa: E731
        incl = median_s(run, incl_repeat, G.__networkx_cache__.clear)
    return got, excl, incl


def _alone_child(call, inputs, H, pipe):
    try:
        pipe.send((True, timed(lambda: call.run(inputs, H))))
    except Exception as exc:  # NetworkX's error, raised again in the parent
        pipe.send((False, exc))


def networkx_alone(call, inputs, H, timeout):
    """(seconds, answer) of NetworkX alone; with `timeout`, in a forked child (it shares the
    graphs) killed after that many seconds: then None. NotImplementedError where NetworkX only
    dispatches the function."""
    if timeout is None:
        return timed(lambda: call.run(inputs, H))
    recv, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(
        target=_alone_child, args=(call, inputs, H, send)
    )
    child.start()
    send.close()
    try:
        if not recv.poll(timeout):
            return None
        ok, out = recv.recv()
    finally:  # also on a stop of this process
        child.kill()
        child.join()
    if not ok:
        raise out
    return out


def conversion_s(G, repeat):
    """Median seconds of converting `G` to gravel's graph (NetworkX's conversion cache emptied)."""
    from gravel.nx import BackendInterface

    return median_s(lambda: BackendInterface.convert_from_nx(G), repeat)


def main():
    p = script_parser(__doc__, repeat=3)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--nx-repeat", type=int, default=1, help="runs of NetworkX alone (median)")
    p.add_argument(
        "--nx-max-edges", type=int, default=200_000, help="largest graph heavy calls run on"
    )
    p.add_argument(
        "--heavy-max-edges", type=int, help="largest graph heavy calls run on in gravel (no limit)"
    )
    p.add_argument("--nx-timeout", type=float, help="seconds NetworkX alone may take a call")
    p.add_argument("--incl-repeat", type=int, help="runs of incl. (default --repeat; 0: none)")
    p.add_argument(
        "--convert-repeat", type=int, help="runs of each graph kind's conversion (default --repeat)"
    )
    p.add_argument("--devices", nargs="+", choices=("cpu", "cuda"), help="default: cpu (and cuda)")
    p.add_argument("--calls", nargs="+", help="names of the calls to run (default: all)")
    a = p.parse_args()
    incl_repeat = a.repeat if a.incl_repeat is None else a.incl_repeat
    devices = a.devices or ["cpu"] + (["cuda"] if cuda.available() else [])
    calls = {k: c for k, c in CALLS.items() if not a.calls or k in a.calls}
    # compile each device's kernels on a small graph first: the warm-ups below then time nothing
    small = Inputs(open_graph("kron:8", undirected=True)[0])
    for dev in devices:
        with nx.config.backends.gravel(device=dev):
            for call in calls.values():
                try:
                    call.run(small, small.graph(call.kind), backend="gravel")
                except NotImplementedError:
                    pass
    rows = []
    with Stoppable() as run:  # a time limit's SIGTERM keeps the rows so far
        measure(a, calls, devices, incl_repeat, rows)
    if a.json:
        write_record(a.json, "benchmarks/nx_backend.py", rows, networkx=nx.__version__, cut=run.cut)


def measure(a, calls, devices, incl_repeat, rows):
    """Time `calls` on each of `a.graphs`, appending a row per call and device to `rows`."""
    for i, spec in enumerate(a.graphs):
        if i:  # the last graph's NetworkX graphs, frozen for its calls, go before the next
            gc.unfreeze()
            gc.collect()
        measure_graph(a, spec, calls, devices, incl_repeat, rows)


def measure_graph(a, spec, calls, devices, incl_repeat, rows):
    """Time `calls` on graph `spec`, appending a row per call and device to `rows`."""
    G, name = open_graph(spec, undirected=True)
    inputs = Inputs(G)
    kinds = list(dict.fromkeys(c.kind for c in calls.values()))
    t, _ = timed(lambda: [inputs.graph(kind) for kind in kinds])
    print(
        f"{name}: {G.n:,} nodes, {len(inputs.u):,} edges "
        f"(NetworkX graphs {', '.join(kinds)} built in {t:.1f} s, not timed)",
        flush=True,
    )
    gc.freeze()  # the graphs, out of the collector's passes (the docstring says why)
    for kind in kinds:
        s = conversion_s(inputs.graph(kind), a.convert_repeat or a.repeat)
        rows.append({"graph": name, "kind": kind, "function": "convert", "convert_s": s})
        print(f"{name} {kind} graph converted to gravel's in {s:.3f} s", flush=True)
    for function, call in calls.items():
        H = inputs.graph(call.kind)
        nx_s = want = None
        edges = H.number_of_edges()
        if call.heavy and a.heavy_max_edges is not None and edges > a.heavy_max_edges:
            print(f"{name} {function:>38}: heavy, not run", flush=True)
            continue
        over = False
        if not (call.heavy and edges > a.nx_max_edges):
            try:
                first = networkx_alone(call, inputs, H, a.nx_timeout)
                over = first is None
                if not over:  # the further runs, once the first fits in the time given
                    alone = [first] + [
                        timed(lambda: call.run(inputs, H)) for _ in range(a.nx_repeat - 1)
                    ]
                    nx_s, want = statistics.median(t for t, _ in alone), first[1]
            except NotImplementedError:  # an API NetworkX only dispatches (leiden)
                pass
        for dev in devices:
            row = {
                "graph": name,
                "kind": call.kind,
                "nodes": H.number_of_nodes(),
                "edges": H.number_of_edges(),
                "function": function,
                "device": dev,
                "networkx_s": nx_s,
                "networkx_runs": a.nx_repeat,
                "gravel_runs": a.repeat,
            }
            if over:
                row["networkx_over_s"] = a.nx_timeout
            try:
                with nx.config.backends.gravel(device=dev):
                    got, excl, incl = gravel_times(call, inputs, H, a.repeat, incl_repeat)
            except NotImplementedError as exc:
                row["not_served"] = str(exc)
                rows.append(row)
                print(f"{name} {function:>38} {dev:>4}: not served", flush=True)
                continue
            compared = want is not None and not call.seeded
            row.update(
                gravel_incl_conversion_s=incl,
                gravel_excl_conversion_s=excl,
                diff=difference(want, got) if compared else None,
            )
            rows.append(row)
            alone = f"{nx_s:8.3f} s" if nx_s is not None else "not run"
            alone = f"> {a.nx_timeout} s" if over else alone
            diff = "-" if row["diff"] is None else f"{row['diff']:.1e}"
            with_conversion = "" if incl is None else f"incl. {incl:7.3f} s, "
            print(
                f"{name} {function:>38} {dev:>4}: networkx {alone}; gravel "
                f"{with_conversion}excl. {excl:7.3f} s; diff {diff}",
                flush=True,
            )


if __name__ == "__main__":
    main()
