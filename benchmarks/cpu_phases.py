"""Where the CPU BFS, SSSP and CC spend their time on 1 and on --threads Numba threads: each kernel
their drivers call, timed around the call, and how often it is called ("rest": the drivers' own
Python and NumPy). Each call of a parallel kernel starts and joins the threads, a fixed cost that
grows with their number. A kernel as
slow on several threads as on one is serial and bounds the speed-up on many cores (Amdahl). The
thread counts alternate run by run; medians. SSSP with weights 1..255 (seed 1), BFS and SSSP from
the highest-degree vertex.

    python benchmarks/cpu_phases.py kron:20 urand:20 --threads 2 --json
    benchmarks/results/cpu-2core/cpu_phases.json
"""

import collections
import importlib
import statistics
import time
import types

import numba
import numpy as np

import gravel
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

#: each primitive's CPU driver: the module whose kernels (its `_k`) are timed
DRIVERS = {
    "bfs": "gravel.algorithms.bfs",
    "sssp": "gravel.algorithms.sssp.cpu",
    "cc": "gravel.algorithms.cc",
}
PRIMITIVES = tuple(DRIVERS)


class Timed:
    """A kernel module (or a namespace of kernels) whose functions add their wall time to
    `spent` and count their calls in `spent.calls`, by name."""

    def __init__(self, inner, spent):
        self._inner, self._spent = inner, spent

    def __getattr__(self, name):
        f = getattr(self._inner, name)
        if not callable(f):
            return f

        def timed(*args, **kwargs):
            t = time.perf_counter()
            out = f(*args, **kwargs)
            if hasattr(f, "py_func"):  # a Numba kernel, not a Python helper such as bucket_pool
                self._spent[name] += time.perf_counter() - t
                self._spent.calls[name] += 1
            return Timed(out, self._spent) if isinstance(out, types.SimpleNamespace) else out

        return timed


def calls(spec):
    """The CPU run of each primitive on the graph of `spec`."""
    G = open_graph(spec)[0].simple_undirected()
    W = gravel.transform.add_random_weights(G, 1, 255, seed=1)
    source = int(np.argmax(G.out_degree))
    return {
        "bfs": lambda: gravel.bfs(G, source, device="cpu"),
        "sssp": lambda: gravel.sssp(W, source, device="cpu"),
        "cc": lambda: gravel.connected_components(G, device="cpu"),
    }


def phases(run, threads, repeat, spent):
    """{threads: {kernel or "total" or "rest": median ms}} of `run`, thread counts alternating."""
    times = {t: collections.defaultdict(list) for t in threads}
    for t in threads:  # warm-up: compiles
        numba.set_num_threads(t)
        run()
    for _ in range(repeat):
        for t in threads:
            numba.set_num_threads(t)
            spent.clear()
            spent.calls.clear()
            total = run().time_s
            times[t]["total"].append(total)
            times[t]["rest"].append(total - sum(spent.values()))
            for name, s in spent.items():
                times[t][name].append(s)
    ms = {t: {k: statistics.median(v) * 1e3 for k, v in times[t].items()} for t in threads}
    return ms, dict(spent.calls)


class Spent(collections.defaultdict):
    """Seconds by kernel name, with the calls of the last run by name (`calls`)."""

    def __init__(self):
        super().__init__(float)
        self.calls = collections.Counter()


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    p.add_argument("--algo", action="append", choices=PRIMITIVES, help="default: all three")
    a = p.parse_args()
    threads = (1, a.threads)
    spent = Spent()
    algos = a.algo or PRIMITIVES
    drivers = [importlib.import_module(DRIVERS[name]) for name in algos]
    kernels, before = [driver._k for driver in drivers], numba.get_num_threads()
    for driver in drivers:
        driver._k = Timed(driver._k, spent)
    try:
        rows = measure(a, threads, algos, spent)
    finally:  # the drivers' own kernels and the thread count back
        for driver, k in zip(drivers, kernels):
            driver._k = k
        numba.set_num_threads(before)
    if a.json:
        write_record(a.json, "benchmarks/cpu_phases.py", rows, threads=list(threads))


def measure(a, threads, algos, spent):
    """The rows of every graph and primitive asked for, printed as they come."""
    rows = []
    for spec in a.graphs:
        for name, run in calls(spec).items():
            if name not in algos:
                continue
            ms, counts = phases(run, threads, a.repeat, spent)
            print(f"{spec} {name}: ms on {threads[0]} / {threads[1]} threads (ratio), calls")
            for kernel in ms[1]:
                one, many = ms[1][kernel], ms[a.threads].get(kernel, 0.0)
                ratio = one / many if many > 0 else float("nan")
                n = counts.get(kernel, "")
                print(f"  {kernel:16s} {one:9.2f} / {many:9.2f}  ({ratio:.2f})  {n}")
                rows.append(
                    {"graph": spec, "primitive": name, "kernel": kernel, "ms_1": one, "ms_n": many}
                    | ({"calls": n} if n != "" else {})
                )
    return rows


if __name__ == "__main__":
    main()
