"""Where a GPU primitive's time goes, kernel by kernel: `gravel bench`'s timed run of each --algo
(the same options, source and random weights 1..255), first as it runs (CUDA events around the
run), then with CUDA events around every gravel kernel launch, summed by kernel; "other" is the
rest of the instrumented run's time: CuPy's own kernels (fills, scans, masks, gathers), copies,
and the device idle while the host prepares launches or waits on a read-back (gravel's one
ElementwiseKernel, the frontier's popcount, counts there too). Medians of --repeat runs after a
warm-up. The instrumented run pays a little host time per launch for its events, and where the
device was idle, a kernel's interval includes the host's checks before its launch: small kernels
read a few microseconds long. A primitive that fails (a layout that does not fit beside the
earlier ones') gets a row with its problem, and the others run; a run stopped by SIGTERM or SIGINT
writes the rows it has, marked ``"cut": true``.

    python benchmarks/kernel_times.py kron:22 urand:22 --algo tc --algo bc --json /tmp/kt.json
"""

import collections
import statistics

import numpy as np
from stopping import Stoppable  # benchmarks/stopping.py, beside this script

from gravel.algorithms.catalog import CATALOG
from gravel.bench import _runner
from gravel.cli import open_graph
from gravel.errors import GravelError
from gravel.records import script_parser, write_record
from gravel.results import Timer
from gravel.transform import add_random_weights


class Launches:
    """While entered, every gravel kernel launch records CUDA events around itself."""

    def __enter__(self):
        import cupy

        from gravel.backends.cuda import runtime

        self.launcher, self.records = runtime.Launcher, []
        plain = self.plain = runtime.Launcher.__call__

        def timed(launcher, *args, **kwargs):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            plain(launcher, *args, **kwargs)
            end.record()
            self.records.append((launcher.name, start, end))

        self.launcher.__call__ = timed
        return self

    def __exit__(self, *exc):
        self.launcher.__call__ = self.plain

    def ms_by_kernel(self):
        """{kernel: (launches, ms)}, the events read after the device finished."""
        import cupy

        cupy.cuda.Device().synchronize()
        out = collections.defaultdict(lambda: [0, 0.0])
        for name, start, end in self.records:
            out[name][0] += 1
            out[name][1] += cupy.cuda.get_elapsed_time(start, end)
        return out


def breakdown(run, repeat):
    """(median plain ms, median instrumented ms, {kernel: (launches, median ms)})."""
    run()  # warm-up: compiles, layouts
    plain, timed, kernels = [], [], collections.defaultdict(list)
    for _ in range(repeat):
        with Timer("cuda") as t:
            run()
        plain.append(t.seconds * 1e3)
        with Launches() as launches, Timer("cuda") as t:
            run()
        timed.append(t.seconds * 1e3)
        for name, (count, ms) in launches.ms_by_kernel().items():
            kernels[name].append((count, ms))
    med = {k: (v[0][0], statistics.median(ms for _, ms in v)) for k, v in kernels.items()}
    return statistics.median(plain), statistics.median(timed), med


def main():
    p = script_parser(__doc__, repeat=3)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--algo", action="append", choices=sorted(CATALOG), required=True)
    p.add_argument("--top", type=int, default=12, help="kernels listed per primitive")
    a = p.parse_args()
    for name in a.algo:
        if "cuda" not in CATALOG[name].devices:
            p.error(f"--algo {name} has no CUDA path")
    rows = []
    with Stoppable() as run:
        for spec in a.graphs:
            G, _ = open_graph(spec)
            if not G.weighted:
                G = add_random_weights(G, 1, 255, seed=0)  # as `gravel bench` weighs it
            source = int(np.argmax(G.out_degree))
            for name in a.algo:
                rows.append(cell(spec, name, _runner(CATALOG[name], G, source, "cuda"), a))
    if a.json:
        write_record(a.json, "benchmarks/kernel_times.py", rows, cut=run.cut)


def cell(spec, name, run, a):
    """The row of one primitive on one graph, printed: its breakdown, or gravel's error that
    ended it (a GraphTooLargeError, say), after which the next primitive still runs."""
    try:
        plain, timed, kernels = breakdown(run, a.repeat)
    except GravelError as e:
        print(f"{spec} {name}: FAILED: {e}")
        return {"graph": spec, "primitive": name, "problem": str(e)}
    inside = sum(ms for _, ms in kernels.values())
    print(f"{spec} {name}: {plain:.3f} ms as run, {timed:.3f} ms instrumented")
    ranked = sorted(kernels.items(), key=lambda kv: -kv[1][1])
    for kernel, (count, ms) in ranked[: a.top]:
        print(f"  {ms:9.3f} ms {100 * ms / timed:5.1f} %  {count:6d}x  {kernel}")
    print(f"  {timed - inside:9.3f} ms {100 * (timed - inside) / timed:5.1f} %  other")
    return {"graph": spec, "primitive": name, "plain_ms": plain, "instrumented_ms": timed} | {
        "kernels": {k: {"launches": c, "ms": ms} for k, (c, ms) in ranked}
    }


if __name__ == "__main__":
    main()
