"""The benchmark harness behind ``gravel bench``.

Each graph is built or loaded once; every primitive is warmed up, then run `repeat` times (median, min
and max reported), with the baselines measured in the same process: SciPy's csgraph on the CPU (BFS,
CC, Dijkstra) and, on the GPU, cuSPARSE SpMV through CuPy (PageRank, BFS) and gravel's own CPU path.
Speed is reported as time, GTEPS (graph edges / time, Gunrock's definition) and the ratio of the time
to the memory floor: the bytes the primitive must move at least, over the copy bandwidth measured in
the same run; GPU rows also give gravel's kernel launches per iteration.
"""

import datetime
import json
import os
import platform
import statistics
import subprocess
import time

import numpy as np

from . import algorithms
from .algorithms.sssp import _checked_weights

DEFAULT_ALGOS = ("bfs", "sssp", "pagerank", "cc", "bc", "tc", "kcore")
BC_SOURCES = 4
PAGERANK_ITERATIONS = 20


def copy_bandwidth(device="cpu", nbytes=1 << 29, repeat=5):
    """Bytes per second of a large memory copy (read + write counted), the fastest of `repeat`: host
    memory, or device memory timed with CUDA events."""
    m = np
    if device == "cuda":
        import cupy as m
    a = m.ones(nbytes // 8)
    b = m.empty_like(a)
    return 2 * nbytes / min(run_times(lambda: m.copyto(b, a), repeat, device))


def floor_bytes(algo, G):
    """Fewest bytes a primitive must move: every input array read once, every output written once."""
    n, nnz = G.n, G.nnz
    graph = 8 * (n + 1) + 4 * nnz
    return {
        "bfs": graph + 8 * n,                         # + depth and parent
        "sssp": graph + 4 * nnz + 8 * n,              # + weights, distances
        "pagerank": graph + 3 * 8 * n,                # per iteration: contributions, rank in and out
        "cc": graph + 4 * n,
        "bc": BC_SOURCES * 2 * (graph + 8 * n),       # forward and backward sweep per source
        "tc": graph + 8 * n,
        "kcore": graph + 4 * n,
    }[algo]


def _runner(algo, G, source, device):
    fn = algorithms.ALGORITHMS[algo]
    if algo in ("bfs", "sssp"):
        return lambda: fn(G, source, device=device)
    if algo == "bc":
        sources = np.arange(BC_SOURCES) * max(G.n // BC_SOURCES, 1) % max(G.n, 1)
        return lambda: fn(G, sources=sources, device=device)
    if algo == "tc":
        return lambda: fn(G, per_vertex=False, device=device)
    if algo == "pagerank":
        # a fixed count: NetworkX's stopping rule ends after a handful of iterations on large graphs
        return lambda: fn(G, max_iter=PAGERANK_ITERATIONS, tol=0.0, device=device)
    return lambda: fn(G, device=device)


def _baseline(algo, G, source):
    """SciPy's equivalent of a primitive, or None."""
    import scipy.sparse.csgraph as cg

    if algo not in ("bfs", "cc", "sssp"):
        return None
    A = G.to_scipy()
    if algo == "sssp":
        _checked_weights(G)
        return lambda: cg.dijkstra(A, directed=True, indices=source)
    A.data[:] = 1
    if algo == "bfs":
        return lambda: cg.breadth_first_order(A, source, directed=True, return_predecessors=True)
    return lambda: cg.connected_components(A, directed=True, connection="weak")


def _cusparse_baseline(algo, G, source):
    """What a CuPy user would write with cuSPARSE SpMV (``cupyx.scipy.sparse``): PageRank's power
    iteration and a BFS whose frontier expands by one SpMV per level. None for other primitives."""
    if algo not in ("pagerank", "bfs"):
        return None
    import cupy
    import cupyx.scipy.sparse as csp

    off, idx, _ = G.csc()  # in-edges: the rows of A^T
    at = csp.csr_matrix((cupy.ones(len(idx), cupy.float32), cupy.asarray(idx), cupy.asarray(off)),
                        shape=(G.n, G.n))
    if algo == "pagerank":
        deg = cupy.asarray(G.out_degree)
        inv = cupy.where(deg > 0, 1.0 / cupy.maximum(deg, 1), 0).astype(cupy.float32)
        dangling = (deg == 0).astype(cupy.float32)

        def run():
            x = cupy.full(G.n, 1.0 / G.n, cupy.float32)
            for _ in range(PAGERANK_ITERATIONS):
                x = 0.85 * (at @ (x * inv) + cupy.dot(x, dangling) / G.n) + 0.15 / G.n
            return x
        return run

    def run():
        visited = cupy.zeros(G.n, bool)
        visited[source] = True
        f = cupy.zeros(G.n, cupy.float32)
        f[source] = 1
        while True:
            nxt = (at @ f > 0) & ~visited
            if not bool(nxt.any()):  # sync per level, as any CuPy loop must
                return visited
            visited |= nxt
            f = nxt.astype(cupy.float32)
    return run


def wall_seconds(fn):
    """Wall time of one call of fn, the device idle before and after (a one-off step: a layout's
    build, a reordering)."""
    import cupy

    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    fn()
    cupy.cuda.Device().synchronize()
    return time.perf_counter() - t


def run_times(fn, repeat, device="cpu"):
    """Seconds of each of `repeat` runs of fn after one warm-up (JIT compilation, caches, lazily built
    layouts): CUDA events around each run on "cuda", wall time on "cpu"."""
    from .algorithms._common import Timer

    fn()
    times = []
    for _ in range(repeat):
        with Timer(device) as t:
            fn()
        times.append(t.seconds)
    return times


def median_ms(fn, repeat=7, device="cuda"):
    """Milliseconds of fn: the median of run_times (`repeat` runs after a warm-up)."""
    return 1e3 * statistics.median(run_times(fn, repeat, device))


def pagerank_per_iteration(G, iterations=PAGERANK_ITERATIONS, **options):
    """Seconds per PageRank iteration on the GPU: `iterations` fixed ones (its own CUDA-event timer),
    median of 3 runs after a warm-up that also builds lazy layouts; `options` go to pagerank."""
    runs = [algorithms.ALGORITHMS["pagerank"](G, max_iter=iterations, tol=0.0, device="cuda", **options)
            for _ in range(4)]
    return statistics.median(r.time_s for r in runs[1:]) / iterations


def _time_algorithm(fn, repeat):
    """The algorithm's own times (CUDA events on the GPU, wall on the CPU) after a warm-up, and the
    gravel kernel launches of one run."""
    from .backends.cuda import runtime

    fn()
    before = runtime.launches
    results = [fn() for _ in range(repeat)]
    return [r.time_s for r in results], results[-1], (runtime.launches - before) / repeat


#: runs of gravel's CPU path when it is the baseline of a GPU run (after one warm-up): slow primitives
#: (triangles, betweenness) would otherwise dominate the benchmark's time
CPU_BASELINE_RUNS = 3


def bench_graph(G, name, algos, device, repeat, bandwidth, source=None, baselines=True):
    """Rows of results for one graph; `bandwidth(device)` gives the copy bandwidth of a device. With
    `baselines`, SciPy (BFS, CC, SSSP), cuSPARSE (PageRank, BFS; GPU runs) and gravel's CPU path (GPU
    runs) are timed in the same process."""
    if source is None:
        source = int(np.argmax(G.out_degree))
    rows = []
    for algo in algos:
        times, res, launches = _time_algorithm(_runner(algo, G, source, device), repeat)
        t = statistics.median(times)
        per = res.iterations if algo == "pagerank" else 1
        row = {"graph": name, "algo": algo, "device": res.device, "n": G.n, "edges": G.m,
               "time_s": t, "min_s": min(times), "max_s": max(times), "iterations": res.iterations,
               "gteps": (G.nnz * (2 * BC_SOURCES if algo == "bc" else per)) / t / 1e9,
               "floor_ratio": t / per / (floor_bytes(algo, G) / bandwidth(res.device))}
        if res.device == "cuda":
            row["launches"] = launches
            row["launches_per_iteration"] = launches / max(res.iterations, 1)
        if not baselines:
            rows.append(row)
            continue
        base = _baseline(algo, G, source)
        if base is not None:
            btimes = run_times(base, repeat)
            row["scipy_s"] = statistics.median(btimes)
            row["speedup_vs_scipy"] = row["scipy_s"] / t
        if res.device == "cuda":
            gpu_base = _cusparse_baseline(algo, G, source)
            if gpu_base is not None:
                row["cusparse_s"] = statistics.median(run_times(gpu_base, repeat, "cuda"))
                row["speedup_vs_cusparse"] = row["cusparse_s"] / t
            ctimes, _, _ = _time_algorithm(_runner(algo, G, source, "cpu"), CPU_BASELINE_RUNS)
            row["cpu_s"] = statistics.median(ctimes)
            row["speedup_vs_cpu"] = row["cpu_s"] / t
        rows.append(row)
    return rows


def machine():
    info = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "host": platform.node(),
            "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()}
    from .backends import cuda

    if cuda.available():
        import cupy

        from .backends.cuda.runtime import props

        info["gpu"] = props().name
        info["driver"] = cupy.cuda.runtime.driverGetVersion()
    import numba

    info["threads"] = numba.get_num_threads()
    try:
        info["git"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                     text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        info["git"] = None
    return info


def _ms(key):
    return lambda r: f"{1e3 * r[key]:.2f}" if key in r else ""


def _times(key):
    return lambda r: f"{r[key]:.1f}x" if key in r else ""


#: (heading, cell) of the table; columns that are empty in every row are left out
COLUMNS = [
    ("graph", lambda r: r["graph"]), ("algo", lambda r: r["algo"]), ("device", lambda r: r["device"]),
    ("time (ms)", _ms("time_s")), ("min..max", lambda r: f"{1e3 * r['min_s']:.1f}..{1e3 * r['max_s']:.1f}"),
    ("GTEPS", lambda r: f"{r['gteps']:.3f}"), ("x floor", lambda r: f"{r['floor_ratio']:.1f}"),
    ("launches/it", lambda r: f"{r['launches_per_iteration']:.1f}" if "launches" in r else ""),
    ("SciPy (ms)", _ms("scipy_s")), ("vs SciPy", _times("speedup_vs_scipy")),
    ("cuSPARSE (ms)", _ms("cusparse_s")), ("vs cuSPARSE", _times("speedup_vs_cusparse")),
    ("CPU path (ms)", _ms("cpu_s")), ("vs CPU", _times("speedup_vs_cpu")),
]


def print_table(rows):
    from rich.console import Console
    from rich.table import Table

    cells = [[cell(r) for _, cell in COLUMNS] for r in rows]
    keep = [j for j in range(len(COLUMNS)) if any(c[j] for c in cells)]
    table = Table(title="gravel bench")
    for j in keep:
        head = COLUMNS[j][0]
        table.add_column(head, justify="left" if head in ("graph", "algo", "device") else "right")
    for c in cells:
        table.add_row(*(c[j] for j in keep))
    Console(width=max(Console().width, 190)).print(table)


def write_json(path, rows, extra):
    with open(path, "w") as f:
        json.dump({"schema": 1, "machine": machine(), **extra, "results": rows}, f, indent=1)
