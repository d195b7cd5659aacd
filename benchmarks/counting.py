"""Distributed triangle counts and core numbers on CPU workers: 1, 2 and 3 parts (one Dask worker
each, the graph loaded on them once) beside single-machine gravel on the CPU.

Per graph and part count: the wall time of ``gd.triangles`` (per vertex) and ``gd.core_number``
on the loaded parts, their supersteps and the wall time of as many empty supersteps on the same
parts (the floor that the driver's round trips set: each superstep is a task per worker, its
yield gathered to the driver and routed), and the single-machine ``gravel.triangles`` and
``gravel.core_number``; medians of --repeat runs after a warm-up (which compiles the kernels in
every worker). Each distributed answer is checked against the single machine's before it is
timed.

    python benchmarks/counting.py kron:13 kron:16 --repeat 3 --json counting.json
"""

import statistics
import time

import numpy as np

import gravel
from gravel import distributed as gd
from gravel.bench import script_parser, write_record
from gravel.distributed.exchange import allreduce


def timed(call, repeat):
    """The result of a warm-up call of `call`, and the median wall seconds of `repeat` more."""
    result = call()
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return result, statistics.median(seconds)


def idle(part, steps):
    """A distributed program of `steps` empty collectives."""
    for _ in range(steps):
        yield allreduce(np.int64(0))


def single(G, repeat):
    """Single-machine triangles and core numbers: (results, median seconds) of each."""
    tc = timed(lambda: gravel.triangles(G, device="cpu"), repeat)
    core = timed(lambda: gravel.core_number(G, device="cpu"), repeat)
    return tc, core


def run(spec, parts, cluster, repeat, ref):
    """One row: the distributed counts of `spec` over `parts` parts, checked against `ref`."""
    G = gravel.generate.from_spec(spec)
    (tc, tc_s), (core, core_s) = ref
    DG = cluster.load(G, parts)
    try:
        got, t_s = timed(lambda: gd.triangles(DG), repeat)
        if got.total != tc.total or not np.array_equal(got.triangles, tc.triangles):
            raise AssertionError(f"{spec}, {parts} parts: triangles differ")
        cores, c_s = timed(lambda: gd.core_number(DG), repeat)
        if not np.array_equal(cores.core, core.core):
            raise AssertionError(f"{spec}, {parts} parts: core numbers differ")
        steps = got.stats["supersteps"], cores.stats["supersteps"]
        floor = [timed(lambda k=k: DG.run(idle, k), repeat)[1] for k in steps]
    finally:
        DG.free()
    return {
        "graph": spec,
        "parts": parts,
        "triangles_s": t_s,
        "triangles_supersteps": steps[0],
        "triangles_floor_s": floor[0],
        "single_triangles_s": tc_s,
        "core_s": c_s,
        "core_rounds": cores.iterations,
        "core_supersteps": steps[1],
        "core_floor_s": floor[1],
        "single_core_s": core_s,
    }


def main():
    p = script_parser(__doc__, repeat=3)
    p.add_argument("graphs", nargs="+", help="generator specs")
    p.add_argument("--parts", default="1,2,3", help="part counts, comma-separated")
    args = p.parse_args()
    counts = [int(k) for k in args.parts.split(",")]
    rows = []
    with gd.Cluster(parts=max(counts)) as cluster:
        for spec in args.graphs:
            ref = single(gravel.generate.from_spec(spec), args.repeat)
            for parts in counts:
                row = run(spec, parts, cluster, args.repeat, ref)
                print(
                    f"{spec} parts={parts}: triangles {row['triangles_s'] * 1e3:.0f} ms "
                    f"(floor {row['triangles_floor_s'] * 1e3:.0f} ms, single "
                    f"{row['single_triangles_s'] * 1e3:.1f} ms), core {row['core_s'] * 1e3:.0f} "
                    f"ms in {row['core_rounds']} rounds (floor {row['core_floor_s'] * 1e3:.0f} "
                    f"ms, single {row['single_core_s'] * 1e3:.1f} ms)",
                    flush=True,
                )
                rows.append(row)
    if args.json:
        write_record(args.json, "benchmarks/counting.py", rows)


if __name__ == "__main__":
    main()
