"""The benchmark harness behind ``gravel bench``.

Each graph is built or loaded once; every primitive is warmed up, then run `repeat` times (median,
min and max reported), with the baselines its description names (``algorithms.catalog``: SciPy's
csgraph on the CPU, cuSPARSE SpMV through CuPy on the GPU) and, for GPU runs, gravel's own CPU path
measured in the same process. Speed is reported as time, GTEPS (graph edges / time, Gunrock's
definition) and the ratio of the time to the memory floor: the bytes the primitive must move at
least, over the copy bandwidth measured in the same run; GPU rows also give gravel's kernel launches
per iteration.
"""

import statistics
import time

import numpy as np

from . import algorithms
from .algorithms.catalog import CATALOG, PAGERANK_ITERATIONS
from .dispatch import choose_device


def copy_bandwidth(device="cpu", nbytes=1 << 29, repeat=5):
    """Bytes per second of a large memory copy (read + write counted), the fastest of `repeat`.

    Parameters
    ----------
    device : {"cpu", "cuda"}, default "cpu"
        Host memory (NumPy, wall time), or device memory (CuPy, timed with CUDA events).
    nbytes : int, default 2**29
        Bytes copied per run.
    repeat : int, default 5
        Timed runs, after one warm-up (:func:`run_times`).

    Returns
    -------
    float
        ``2 * nbytes`` over the fastest run's seconds: the bench's memory floor divides by it.
    """
    m = np
    if device == "cuda":
        import cupy as m
    # host fills and copies in 64 MB pieces: NumPy holds the interpreter, Ctrl-C comes between
    step = nbytes // 8 if device == "cuda" else 2**23
    pieces = [slice(i, i + step) for i in range(0, nbytes // 8, step)]
    a, b = m.empty(nbytes // 8), m.empty(nbytes // 8)
    for piece in pieces:
        a[piece] = 1
    times = run_times(lambda: [m.copyto(b[p], a[p]) for p in pieces], repeat, device)
    return 2 * nbytes / min(times)


def bus_read(words):
    """The 32-bit xor of a uint32 device array by the bus-ceiling kernel (kernels/bus/read.cu),
    read in 16-byte words.

    Parameters
    ----------
    words : cupy.ndarray of uint32
        Its size a multiple of 4; pinned host memory mapped into the GPU, for the ceiling.

    Returns
    -------
    cupy.ndarray of uint32
        One element, the xor of every word: no load can be dropped, and the result can be checked.
    """
    import cupy

    from .backends.cuda import runtime

    out = cupy.zeros(1, cupy.uint32)
    n = words.size // 4
    block = 256
    runtime.kernel("bus/read.cu", "gravel_bus_read")(
        runtime.blocks_for(n, block, resident=8), block, (words, np.int64(n), out)
    )
    return out


def bus_ceilings(nbytes=1 << 30, repeat=5):
    """Bytes per second over the bus from pinned host memory, the median of `repeat` runs.

    Parameters
    ----------
    nbytes : int, default 2**30
        Bytes pinned and read per run.
    repeat : int, default 5
        Timed runs of each (CUDA events), after one warm-up.

    Returns
    -------
    dict of str to float
        ``"mapped_reads"``: kernel reads of mapped memory (16-byte words, every SM: what zero-copy
        traversal can reach); ``"copy_engine"``: one host-to-device copy (what a streamed sweep can
        reach).
    """
    import cupy

    from .backends.cuda.pinned import mapped

    host = np.ones(nbytes // 4, np.uint32)
    view = mapped(host)  # unpinned when the function returns
    device = cupy.empty_like(view)
    rt = cupy.cuda.runtime

    def copy():
        stream = cupy.cuda.get_current_stream().ptr
        rt.memcpyAsync(device.data.ptr, view.data.ptr, nbytes, 4, stream)

    seconds = {
        "mapped_reads": statistics.median(run_times(lambda: bus_read(view), repeat, "cuda")),
        "copy_engine": statistics.median(run_times(copy, repeat, "cuda")),
    }
    return {k: nbytes / s for k, s in seconds.items()}


def _runner(algo, G, source, device):
    """A function of no arguments that makes one timed run of the description `algo`."""
    options = algo.timed(G) | {"device": device}
    return lambda: algo.call(G, source, **options)


def wall_seconds(fn):
    """Wall time of one call of fn, the device idle before and after (a one-off step: a layout's
    build, a reordering).

    Parameters
    ----------
    fn : callable
        Of no arguments; its value is dropped.

    Returns
    -------
    float
        Seconds, between synchronizes of the current device (needs CuPy).
    """
    import cupy

    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    fn()
    cupy.cuda.Device().synchronize()
    return time.perf_counter() - t


def run_times(fn, repeat, device="cpu"):
    """Seconds of each of `repeat` runs of fn after one warm-up (JIT compilation, caches, lazily
    built layouts): CUDA events around each run on "cuda", wall time on "cpu".

    Parameters
    ----------
    fn : callable
        Of no arguments.
    repeat : int
        Timed runs.
    device : {"cpu", "cuda"}, default "cpu"
        How runs are timed (:class:`gravel.results.Timer`: compiling inside a run is left out).

    Returns
    -------
    list of float
    """
    from .results import Timer

    fn()
    times = []
    for _ in range(repeat):
        with Timer(device) as t:
            fn()
        times.append(t.seconds)
    return times


def median_ms(fn, repeat=7, device="cuda"):
    """Milliseconds of fn: the median of :func:`run_times` (`repeat` runs after a warm-up).

    Parameters
    ----------
    fn : callable
    repeat : int, default 7
    device : {"cuda", "cpu"}, default "cuda"

    Returns
    -------
    float
    """
    return 1e3 * statistics.median(run_times(fn, repeat, device))


def pagerank_per_iteration(G, iterations=PAGERANK_ITERATIONS, **options):
    """Seconds per PageRank iteration on the GPU: `iterations` fixed ones (its own CUDA-event
    timer), median of 3 runs after a warm-up that also builds lazy layouts.

    Parameters
    ----------
    G : Graph
    iterations : int, default 20
    **options
        Passed to :func:`gravel.pagerank`.

    Returns
    -------
    float
    """
    runs = [
        algorithms.pagerank(G, max_iter=iterations, tol=0.0, device="cuda", **options)
        for _ in range(4)
    ]
    return statistics.median(r.time_s for r in runs[1:]) / iterations


def _time_algorithm(fn, repeat, warm=False):
    """The algorithm's own times (CUDA events on the GPU, wall on the CPU) after a warm-up (none
    where a run just made as the timed ones, `warm`, was one), and the gravel kernel launches of
    one run."""
    from .backends.cuda import runtime

    if not warm:
        fn()
    before = runtime.launches
    results = [fn() for _ in range(repeat)]
    return [r.time_s for r in results], results[-1], (runtime.launches - before) / repeat


#: runs of gravel's CPU path when it is the baseline of a GPU run (after one warm-up): slow
#: primitives (triangles, betweenness) would otherwise dominate the benchmark's time
CPU_BASELINE_RUNS = 3


def bench_graph(
    G, name, algos, device, repeat, bandwidth, source=None, baselines=True, verify=False
):
    """Rows of results for one graph. With `baselines`, each algorithm's baselines (CUDA ones beside
    GPU runs only) and, for GPU runs, gravel's CPU path are timed in the same process. With
    `verify`, each algorithm's answer is first checked by its verifier
    (:meth:`~gravel.algorithms.catalog.Algorithm.check`), and one that fails is not timed. On
    ``device="cuda"`` the algorithms without a CUDA path are passed over.

    Parameters
    ----------
    G : Graph
    name : str
        The graph's name in the rows.
    algos : iterable of str
        Command-line names (keys of ``gravel.algorithms.catalog.CATALOG``; others: KeyError).
    device : {"cpu", "cuda"}
    repeat : int
        Timed runs of each after a warm-up (3 of the CPU path beside a GPU run).
    bandwidth : callable
        ``bandwidth(device)`` gives the copy bandwidth of a device (:func:`copy_bandwidth`).
    source : int, optional
        Default: the vertex of highest out-degree.
    baselines : bool, default True
    verify : bool, default False

    Returns
    -------
    list of dict
        A row per algorithm: ``graph``, ``algo``, ``device``, ``n``, ``edges``, ``time_s``
        (median), ``min_s``, ``max_s``, ``iterations``, ``gteps``, ``floor_ratio``, on the GPU
        ``launches`` and ``launches_per_iteration``; with `baselines`, ``<name>_s`` and
        ``speedup_vs_<name>`` per baseline (``cpu``: the CPU path); with `verify`,
        ``verified: True``, or for an answer that failed its check only the first five keys and
        ``problems`` (the verifier's sentences).
    """
    if source is None:
        source = int(np.argmax(G.out_degree))
    rows = []
    for algo in (CATALOG[a] for a in algos):
        if device == "cuda" and "cuda" not in algo.devices:
            continue
        problems = algo.check(G, source, device) if verify else []
        if problems:
            where = choose_device(device, algo.devices, algo.name)
            head = {"graph": name, "algo": algo.name, "device": where, "n": G.n, "edges": G.m}
            rows.append(head | {"problems": problems})  # not timed
            continue
        warm = verify and algo.checks_as_timed(G)  # the checked run was the warm-up
        row = _measure(algo, G, name, device, repeat, bandwidth, source, warm)
        if verify:
            row["verified"] = True
        if baselines:
            row |= _time_baselines(algo, G, source, row, repeat)
        rows.append(row)
    return rows


def bench_program(G, name, title, program, params, device, repeat, baselines=True):
    """The row of a vertex program on G (`params` updated with the graph's `source` where the
    program takes one is the caller's job): its times and iterations, and, for a GPU run with
    `baselines`, the same program on gravel's CPU path.

    Parameters
    ----------
    G : Graph
    name, title : str
        The graph's name and the row's ``algo``.
    program : gravel.programs.Program
    params : dict
        As :func:`gravel.programs.run` takes them.
    device : {"cpu", "cuda"}
    repeat : int
        Timed runs after a warm-up (3 of the CPU path).
    baselines : bool, default True

    Returns
    -------
    dict
        As :func:`bench_graph`'s rows, without ``gteps`` and ``floor_ratio``; ``cpu_s`` and
        ``speedup_vs_cpu`` where the CPU path ran.
    """
    from . import programs

    def runner(on):
        return lambda: programs.run(G, program, params=params, device=on)

    row = _timed_row(G, name, title, *_time_algorithm(runner(device), repeat))
    if row["device"] == "cuda" and baselines:
        ctimes, _, _ = _time_algorithm(runner("cpu"), CPU_BASELINE_RUNS)
        row["cpu_s"] = statistics.median(ctimes)
        row["speedup_vs_cpu"] = row["cpu_s"] / row["time_s"]
    return row


def _measure(algo, G, name, device, repeat, bandwidth, source, warm=False):
    """The row of gravel's own runs of `algo`: times, GTEPS, ratio to the floor, launches."""
    times, res, launches = _time_algorithm(_runner(algo, G, source, device), repeat, warm)
    row = _timed_row(G, name, algo.name, times, res, launches)
    sweeps = algo.sweeps(res)
    row["gteps"] = G.nnz * sweeps / row["time_s"] / 1e9
    row["floor_ratio"] = row["time_s"] / (sweeps * algo.floor_bytes(G) / bandwidth(res.device))
    return row


def _timed_row(G, name, title, times, res, launches):
    """A row's times (median, min, max), iterations and, on the GPU, kernel launches."""
    row = {
        "graph": name,
        "algo": title,
        "device": res.device,
        "n": G.n,
        "edges": G.m,
        "time_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "iterations": res.iterations,
    }
    if res.device == "cuda":
        row["launches"] = launches
        row["launches_per_iteration"] = launches / max(res.iterations, 1)
    return row


def _time_baselines(algo, G, source, row, repeat):
    """Median times of the baselines that apply to `row`'s device, and gravel's speedup over
    each."""
    t, out = row["time_s"], {}
    for base in algo.baselines:
        if base.device == "cpu" or row["device"] == "cuda":
            out[f"{base.name}_s"] = statistics.median(
                run_times(base.build(G, source), repeat, base.device)
            )
            out[f"speedup_vs_{base.name}"] = out[f"{base.name}_s"] / t
    if row["device"] == "cuda":
        ctimes, _, _ = _time_algorithm(_runner(algo, G, source, "cpu"), CPU_BASELINE_RUNS)
        out["cpu_s"] = statistics.median(ctimes)
        out["speedup_vs_cpu"] = out["cpu_s"] / t
    return out
