"""Distributed triangle counts and core numbers on CPU workers: 1, 2 and 3 parts (one Dask worker
each, the graph loaded on them once) beside single-machine gravel on the CPU.

Per graph and part count: the wall time of ``gd.triangles`` (per vertex) and ``gd.core_number``
on the loaded parts, their supersteps and the wall time of as many empty supersteps on the same
parts (the floor that the driver's round trips set: each superstep is a task per worker, its
yield gathered to the driver and routed), and the single-machine ``gravel.triangles`` and
``gravel.core_number``. Then each part's own seconds (its program's steps, the parts run one
after another in this process and the exchange routed here, untimed): the slowest part's, the
figure to set beside the single machine's divided by the parts. Medians of --repeat runs after a
warm-up (which compiles the kernels in every worker). Each distributed answer is checked against
the single machine's before it is timed. Each row keeps the machine's 1-minute load average as
it ended (a shared machine's figures are only as steady as its load).

    python benchmarks/counting.py kron:13 kron:16 --repeat 3 --json counting.json
"""

import os
import statistics
import time

import numpy as np

import gravel
from gravel import distributed as gd
from gravel.distributed.counting import core_program, triangles_program
from gravel.distributed.exchange import Finished, allreduce, route, step
from gravel.records import script_parser, write_record


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


def slowest_part(PG, program, *args):
    """The seconds of the slowest part inside its own steps, the parts run one after another
    here and each collective routed between them."""
    programs = [program(part, *args) for part in PG.parts]
    seconds, replies = [0.0] * len(programs), [None] * len(programs)
    while True:
        requests = []
        for k, (g, reply) in enumerate(zip(programs, replies)):
            start = time.perf_counter()
            requests.append(step(g, reply))
            seconds[k] += time.perf_counter() - start
        if all(isinstance(r, Finished) for r in requests):
            return max(seconds)
        replies = route(requests)


def parts_alone(G, parts, repeat):
    """The slowest part's seconds (median) of triangles and of core numbers."""
    PG = gd.partition(G, parts)
    slowest = []
    for program, args in ((triangles_program, (True,)), (core_program, ())):
        slowest_part(PG, program, *args)
        runs = [slowest_part(PG, program, *args) for _ in range(repeat)]
        slowest.append(statistics.median(runs))
    return slowest


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
    t_part, c_part = parts_alone(G, parts, repeat)
    return {
        "graph": spec,
        "parts": parts,
        "triangles_s": t_s,
        "triangles_supersteps": steps[0],
        "triangles_floor_s": floor[0],
        "triangles_slowest_part_s": t_part,
        "single_triangles_s": tc_s,
        "core_s": c_s,
        "core_rounds": cores.iterations,
        "core_supersteps": steps[1],
        "core_floor_s": floor[1],
        "core_slowest_part_s": c_part,
        "single_core_s": core_s,
        "load_1min": os.getloadavg()[0],
    }


def ms(row, key):
    return f"{row[key] * 1e3:.1f} ms"


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
                    f"{spec} parts={parts}: triangles {ms(row, 'triangles_s')} (floor "
                    f"{ms(row, 'triangles_floor_s')}, slowest part "
                    f"{ms(row, 'triangles_slowest_part_s')}, single "
                    f"{ms(row, 'single_triangles_s')}); core {ms(row, 'core_s')} in "
                    f"{row['core_rounds']} rounds (floor {ms(row, 'core_floor_s')}, slowest part "
                    f"{ms(row, 'core_slowest_part_s')}, single {ms(row, 'single_core_s')})",
                    flush=True,
                )
                rows.append(row)
    if args.json:
        write_record(args.json, "benchmarks/counting.py", rows)


if __name__ == "__main__":
    main()
