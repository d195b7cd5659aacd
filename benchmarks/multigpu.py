"""Several GPUs: BFS, SSSP, PageRank per iteration and CC on 1, 2 and 4 GPUs (those present) in one
run, one Dask worker per GPU, each building its own part of each graph, frontiers over NCCL.

Per graph and GPU count: the time of each algorithm (the slowest worker's, synchronized, from the
program's start to its result on the device), the part of it spent inside collectives and the bytes
the parts exchanged, medians of --repeat runs after a warm-up. PageRank runs a fixed 20 iterations
and is reported per iteration; SSSP runs on random integer weights 1..--weights, the other three
ignore them (one build serves all four). BFS is direction-optimizing unless --bfs-direction says
otherwise. The speedup is against 1 GPU in the same run. --validate GRAPH checks BFS and CC on the
most GPUs against gravel's single-process CPU path; with --only-validate it runs alone (a graph
larger than one card, spread over 4 GPUs: the host builds it once more for the CPU path).

    python benchmarks/multigpu.py kron:26 urand:26 --validate kron:20 --json multigpu.json
    python benchmarks/multigpu.py --gpus 4 --validate kron:30:13 --only-validate --json big.json
"""

import time

import numpy as np

import gravel
from gravel import distributed
from gravel.distributed import timing
from gravel.distributed.gpu import check_gpus, device_count
from gravel.distributed.programs import DIRECTIONS
from gravel.records import script_parser, write_record


def validate(cluster, spec):
    """BFS from the busiest vertex and CC of `spec` on the cluster against the CPU path, each
    step's seconds printed as it ends."""
    start = time.perf_counter()

    def done(step):
        print(f"validate {spec}: {step} at {time.perf_counter() - start:.1f} s", flush=True)

    G = gravel.generate.from_spec(spec) if gravel.generate.is_spec(spec) else gravel.load(spec)
    done("host graph built")
    dg = cluster.load(spec)
    done(f"parts built on {cluster.gpus} GPUs")
    try:
        s = dg.hub
        got = distributed.bfs(dg, s)
        done("distributed BFS")
        ref = gravel.bfs(G, s, device="cpu")
        done("CPU BFS")
        reached = np.flatnonzero(got.depth > 0)
        parents = got.parent[reached]
        bfs_ok = bool(
            np.array_equal(got.depth, ref.depth)
            and np.all((parents >= 0) & (parents < G.n))
            and np.all(got.depth[parents] == got.depth[reached] - 1)
            and np.all(G.has_arcs(parents, reached))
        )
        cc = distributed.connected_components(dg).labels
        done("distributed CC")
        cc_ok = bool(np.array_equal(cc, gravel.connected_components(G, device="cpu").labels))
        done("CPU CC")
    finally:
        dg.free()
    return {"graph": spec, "gpus": cluster.gpus, "arcs": G.nnz, "bfs": bfs_ok, "cc": cc_ok}


def table(rows):
    """The short table: per graph and algorithm, ms (exchange ms) on each GPU count, speedup."""
    counts = sorted({r["parts"] for r in rows})
    head = f"{'graph':<12}{'algo':<20}" + "".join(f"{f'{g} GPU ms (exch)':>24}" for g in counts)
    print(head + "  speedup")
    for key in dict.fromkeys((r["graph"], r["algo"]) for r in rows):
        mine = {r["parts"]: r for r in rows if (r["graph"], r["algo"]) == key}
        cells = "".join(
            f"{1e3 * mine[g]['time_s']:>14.2f} ({1e3 * mine[g]['exchange_s']:7.2f})"
            if g in mine
            else f"{'':>24}"
            for g in counts
        )
        speed = " ".join(f"{r.get('speedup_vs_1', float('nan')):.2f}x" for r in mine.values())
        print(f"{key[0]:<12}{key[1]:<20}{cells}  {speed}")


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="*", help="generator specs (default: kron:26 urand:26)")
    p.add_argument("--gpus", type=int, nargs="+", help="GPU counts (default: 1 2 4, those present)")
    p.add_argument("--algo", nargs="+", choices=timing.ALGOS, default=list(timing.DEFAULT_ALGOS))
    p.add_argument("--weights", type=int, default=255, help="SSSP's weights are 1..WEIGHTS")
    p.add_argument("--validate", metavar="GRAPH", help="check BFS and CC of GRAPH on the most GPUs")
    p.add_argument("--only-validate", action="store_true", help="no timings: --validate alone")
    p.add_argument("--bfs-direction", choices=DIRECTIONS, default="auto")
    a = p.parse_args()
    if a.only_validate and not a.validate:
        p.error("--only-validate needs --validate GRAPH")
    graphs = [] if a.only_validate else a.graphs or ["kron:26", "urand:26"]
    present = device_count()
    counts = a.gpus or [g for g in (1, 2, 4) if g <= present]
    if not counts:
        p.error("this machine has no usable GPU")
    for g in counts:
        check_gpus(g, present)
    rows, checks = [], []
    for g in counts:
        with distributed.GPUCluster(g) as cluster:
            for spec in graphs:
                # one build serves all four: BFS, CC and PageRank (weight=None) ignore the weights
                weights = a.weights if "sssp" in a.algo else None
                start = time.perf_counter()
                dg = cluster.load(spec, weights=weights)
                print(f"{spec} built on {g} GPU in {time.perf_counter() - start:.1f} s", flush=True)
                delta = timing.delta_for(dg, weights)
                for algo in a.algo:
                    row = timing.measure(
                        dg,
                        algo,
                        name=spec,
                        repeat=a.repeat,
                        source=dg.hub,
                        delta=delta,
                        direction=a.bfs_direction,
                    )
                    rows.append(row)
                    print(
                        f"{spec} {row['algo']} on {g} GPU: {1e3 * row['time_s']:.2f} ms, "
                        f"exchange {1e3 * row['exchange_s']:.2f} ms, "
                        f"{row['exchange_bytes'] / 1e6:.1f} MB ({row['strategy']})",
                        flush=True,
                    )
                dg.free()
            if a.validate and g == max(counts):
                checks.append(validate(cluster, a.validate))
                print(f"validate {checks[-1]}", flush=True)
    one = {(r["graph"], r["algo"]): r["time_s"] for r in rows if r["parts"] == 1}
    for r in rows:
        if (r["graph"], r["algo"]) in one:
            r["speedup_vs_1"] = one[r["graph"], r["algo"]] / r["time_s"]
    if a.json:
        write_record(a.json, "benchmarks/multigpu.py", rows, validation=checks, gpus=counts)
    table(rows)
    for c in checks:
        print(f"validation on {c['gpus']} GPUs, {c['graph']}: bfs {c['bfs']}, cc {c['cc']}")


if __name__ == "__main__":
    main()
