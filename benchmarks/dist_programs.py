"""Distributed vertex programs on CPU workers (``gd.run_program``): 1, 2 and 3 parts (one Dask
worker each, the graph loaded on them once) beside ``gravel.programs.run`` on the single machine's
CPU, every iteration a pull on both.

Per graph, program and part count: the wall time of the distributed run on the loaded parts, its
iterations, the wall time of as many empty supersteps on the same parts (the floor the driver's
round trips set), the slowest part's own seconds (the parts run one after another in this
process, the exchange routed here, untimed), and the single machine's run. Medians of --repeat
runs after a warm-up (which compiles the kernels in every worker). Each distributed state is
checked against the single machine's before it is timed; each row keeps the machine's 1-minute
load average as it ended.

    python benchmarks/dist_programs.py kron:14 kron:16 --repeat 3 --json dist_programs.json
"""

import os

import numpy as np
from counting import idle, slowest_part, timed

import gravel
from gravel import distributed as gd
from gravel import programs
from gravel.distributed.vertex_programs import vertex_program
from gravel.programs.run import bind_params
from gravel.records import script_parser, write_record

#: the programs timed: (name, program, parameters, iterations at most)
PROGRAMS = (
    ("pagerank", programs.pagerank(tol=0.0), None, 10),
    ("bfs", programs.bfs(), "hub", 100),
)


def row(G, spec, name, prog, params, max_iter, parts, cluster, repeat):
    """One row: `prog` over `parts` parts of G, checked against the single machine's run."""
    kw = dict(params=params, max_iter=max_iter)
    ref, single_s = timed(
        lambda: programs.run(G, prog, device="cpu", direction="pull", **kw), repeat
    )
    DG = cluster.load(G, parts)
    try:
        got, dist_s = timed(lambda: gd.run_program(DG, prog, **kw), repeat)
        if got.iterations != ref.iterations or not np.allclose(got.state, ref.state, rtol=1e-12):
            raise AssertionError(f"{spec} {name}, {parts} parts: the state differs")
        floor_s = timed(lambda: DG.run(idle, got.iterations + 1), repeat)[1]
    finally:
        DG.free()
    args = (prog, bind_params(G, prog, params), None, max_iter)
    PG = gd.partition(G, parts)
    slowest_part(PG, vertex_program, *args)
    part_s = float(np.median([slowest_part(PG, vertex_program, *args) for _ in range(repeat)]))
    return {
        "graph": spec,
        "program": name,
        "parts": parts,
        "iterations": got.iterations,
        "distributed_s": dist_s,
        "floor_s": floor_s,
        "slowest_part_s": part_s,
        "single_s": single_s,
        "load_1min": os.getloadavg()[0],
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
            G = gravel.generate.from_spec(spec)
            for name, prog, params, max_iter in PROGRAMS:
                if params == "hub":
                    params = {"source": int(G.out_degree.argmax())}
                for parts in counts:
                    r = row(G, spec, name, prog, params, max_iter, parts, cluster, args.repeat)
                    print(
                        f"{spec} {name} parts={parts}: {r['distributed_s'] * 1e3:.1f} ms in "
                        f"{r['iterations']} iterations (floor {r['floor_s'] * 1e3:.1f}, slowest "
                        f"part {r['slowest_part_s'] * 1e3:.1f}, single "
                        f"{r['single_s'] * 1e3:.1f}; load {r['load_1min']:.1f})",
                        flush=True,
                    )
                    rows.append(r)
    if args.json:
        write_record(args.json, "benchmarks/dist_programs.py", rows)


if __name__ == "__main__":
    main()
