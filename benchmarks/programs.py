"""Vertex programs (gravel.programs) on the GPU, on the CPU and on both, and against the built-in
primitives.

Hybrid: the per-iteration time of PageRank and BFS as programs, run on the GPU alone ("gpu",
as ``G.to("cuda")`` places the graph: "tiered" past the budget), hybrid as the seed
("hybrid-seed": state, send and apply on the CPU, every SpMV on the GPU, compressed vectors
across the bus), hybrid split ("hybrid": the edges split three ways, the GPU's device rows, the
rows it reads over the bus, and the CPU's, by their measured throughput, both at once) and on
the CPU alone ("cpu"), on each graph as it fits the device and under device-memory budgets. Under
a budget the GPU alone also runs with its placement named ("gpu-tiered": the hot lists on the
device, the rest read over the bus; "gpu-host": every list read over the bus), each on its own
host copy of the graph placed before its runs, so that one run holds the CPU alone, the GPU
tiered, the GPU host and the hybrid; a line after each program gives the hybrid's time over the
best of those three (issue 53's target: 1.2x faster). The budgets: --budget-fractions F...,
each the budget under which a tiered plan keeps F of the graph's arc ids on the device
(``gravel.placement.budget_for(G, F * G.nnz)``: the offsets, the tier's offsets and the vertex
state, then F of the ids; "a device budget of a third of its ids" is 0.333), or
--device-memory SIZE; default: a half. PageRank runs --iterations iterations (no tolerance); its
time per iteration is the median iteration (the steady split) and the run's mean (with the
split's moves). BFS runs from the highest-degree vertex; its time per iteration is the run's over
its iterations. A hybrid row also gives the GPU's share of the arcs in its last pull iteration
(and the bus rows' part of it), each side's median seconds of SpMV work, and the split each
iteration chose (device/bus/CPU shares of its arcs, printed, and "splits" in the JSON).

Primitives: each library program (PageRank per iteration, BFS, SSSP, CC) against its built-in
primitive on --primitives-device (default cuda) in the same run, on --primitives (default kron:22;
the issue's target is a program within 1.3x of its primitive on the GPU), on each of --engines:
"fused" (the whole loop in one cooperative launch, gravel.programs.fused), "operators" (the
loop on the operators, a launch per phase and a read-back per iteration) and "auto" (the
default: the fused loop where only the active vertices send, else the operators);
--primitives-only skips the hybrid section (`--primitives kron:20 --primitives-device cpu
--primitives-only` needs no GPU).

Times are medians of --repeat runs after a warm-up (compiles, lazy layouts): the results' own
clocks, compiling left out (CUDA events on the GPU; wall time around a hybrid iteration, whose end
waits for the GPU). The CPU alone runs once after its warm-up (--cpu-repeat).

CPU push (--cpu-push; no GPU needed): the CPU's push with propagation blocking ("blocked") against
without ("unblocked"), and as `gravel.programs.push`'s rule chooses ("auto"), run one after the
other in each of --repeat rounds after a warm-up round, medians. Whole runs, every iteration
pushed: PageRank (--iterations, every vertex sends: a dense frontier) and BFS from the
highest-degree vertex (sparse frontiers, then dense ones). Then single pushes from random
frontiers of --fractions of the vertices, of a BFS program (int32 min) and of a sum program
(float64). --bin-bytes adds a blocked row per bin size (PUSH_BIN_BYTES).

    python benchmarks/programs.py kron:24 --json benchmarks/results/h100/programs.json
    python benchmarks/programs.py kron:20 urand:20 --cpu-push --repeat 5
"""

import gc
import statistics
from contextlib import contextmanager

import numpy as np

import gravel
from gravel import programs
from gravel.cli import open_graph
from gravel.placement import budget_for, format_bytes, parse_bytes
from gravel.programs import cpu, push
from gravel.records import machine, script_parser, write_record
from gravel.results import Timer
from gravel.transform import add_random_weights

#: how each mode runs a program: programs.run's device and execution, and the placement the
#: graph goes to the GPU with first (the modes that name one run under a budget only)
MODES = {
    "gpu": {"device": "cuda"},
    "gpu-tiered": {"device": "cuda", "placement": "tiered"},
    "gpu-host": {"device": "cuda", "placement": "host"},
    "hybrid-seed": {"device": "cuda", "execution": "hybrid-seed"},
    "hybrid": {"device": "cuda", "execution": "hybrid"},
    "cpu": {"device": "cpu"},
}
#: the modes the hybrid is set against under a budget (the target: 1.2x faster than the best)
BASELINES = ("cpu", "gpu-tiered", "gpu-host")


def host_copy(G):
    """G with its arrays on the host and no device copy yet, so that a budget decides where its
    lists go on the GPU."""
    return gravel.Graph.from_csr(G.offsets, G.indices, G.weights, directed=G.directed, trusted=True)


def free_device_memory():
    import cupy  # here: the CPU push section runs without a GPU

    cupy.get_default_memory_pool().free_all_blocks()


def timed(fn, repeat):
    """The results of `repeat` calls of fn after a warm-up call."""
    fn()
    return [fn() for _ in range(repeat)]


def program_row(G, name, mode, iterations, repeat):
    """Per-iteration figures of the program `name` ("pagerank", "bfs") run as `mode` on G (placed
    on the GPU first where the mode names a placement)."""
    if name == "pagerank":
        prog, kw = programs.pagerank(tol=0.0), {"max_iter": iterations}
    else:
        prog, kw = programs.bfs(), {"params": {"source": int(G.out_degree.argmax())}}
    how = dict(MODES[mode])
    placement = how.pop("placement", None)
    if placement is not None:
        G.to("cuda", placement=placement)
    runs = timed(lambda: programs.run(G, prog, **kw, **how), repeat)
    steps = [s for r in runs for s in r.steps]
    row = {
        "iterations": runs[0].iterations,
        "iter_ms": 1e3
        * statistics.median(statistics.median(s.time_s for s in r.steps) for r in runs),
        "mean_iter_ms": 1e3 * statistics.median(r.time_s / max(r.iterations, 1) for r in runs),
        "run_ms": 1e3 * statistics.median(r.time_s for r in runs),
    }
    if mode.startswith("hybrid"):
        pulls = [s for s in runs[-1].steps if s.direction == "pull"]
        row |= {
            "gpu_share": pulls[-1].gpu_share if pulls else None,
            "bus_share": pulls[-1].bus_share if pulls else None,
            "state_side": runs[-1].stats["state_side"],
            "gpu_ms": 1e3 * statistics.median(s.gpu_s for s in steps),
            "bus_ms": 1e3 * statistics.median(s.bus_s for s in steps),
            "cpu_ms": 1e3 * statistics.median(s.cpu_s for s in steps),
            # the split each iteration of the last run chose: device, bus and CPU shares
            "splits": [
                (s.gpu_share - s.bus_share, s.bus_share, 1 - s.gpu_share) for s in runs[-1].steps
            ],
        }
    return row


def budgets(G, args):
    """(label, bytes) of each budget the hybrid section runs under: --device-memory, else each of
    --budget-fractions as the bytes that keep that fraction of G's arc ids on the device."""
    if args.device_memory:
        limit = parse_bytes(args.device_memory)
        return [(format_bytes(limit), limit)]
    out = []
    for f in args.budget_fractions:
        limit = budget_for(G, int(f * G.nnz))
        out.append((f"{f:g} of ids, {format_bytes(limit)}", limit))
    return out


def hybrid_rows(spec, G, args):
    """Every program and mode on G as it fits the device, then under each budget (the CPU's
    figures, which no budget changes, measured once; the modes that name a placement, under a
    budget only, each on a host copy of its own)."""
    rows, cpu = [], {}
    for label, limit in [("fits", None), *budgets(G, args)]:
        P = G if limit is None else host_copy(G)
        for name in ("pagerank", "bfs"):
            got = {}
            for mode in args.modes:
                placed = "placement" in MODES[mode]
                if placed and limit is None:
                    continue
                if mode == "cpu" and name in cpu:
                    row = cpu[name]
                else:
                    repeat = args.cpu_repeat if mode == "cpu" else args.repeat
                    Q = host_copy(G) if placed else P
                    with gravel.config.using(device_memory=limit):
                        row = program_row(Q, name, mode, args.iterations, repeat)
                    if placed:  # its device copy goes before the next mode runs
                        del Q
                        gc.collect()
                        free_device_memory()
                    if mode == "cpu":
                        cpu[name] = row
                rows.append({"graph": spec, "budget": label, "program": name, "mode": mode} | row)
                got[mode] = rows[-1]  # the JSON's row: against_best adds to the hybrid's
                report(spec, label, name, mode, row)
            if limit is not None:
                against_best(got)
        del P
        gc.collect()
        free_device_memory()
    return rows


def report(spec, label, name, mode, row):
    """Print a row: its time per iteration, and a hybrid's shares and split each iteration."""
    share = ""
    if row.get("gpu_share") is not None:
        share = f", GPU share {row['gpu_share']:.2f} (bus {row['bus_share']:.2f})"
        share += f", state on the {row['state_side'].upper()}"
    print(
        f"{spec} [{label}] {name:>8} {mode:>11}: {row['iter_ms']:9.2f} ms/iter "
        f"(mean {row['mean_iter_ms']:9.2f}, {row['iterations']} iter){share}",
        flush=True,
    )
    if "splits" in row:
        chosen = " ".join(f"{d:.2f}/{b:.2f}/{c:.2f}" for d, b, c in row["splits"])
        print(f"{'':>12} split each iteration (device/bus/CPU): {chosen}", flush=True)


def against_best(got):
    """Print the hybrid's mean time per iteration over the best of BASELINES measured."""
    best = [(got[m]["mean_iter_ms"], m) for m in BASELINES if m in got]
    if "hybrid" in got and best:
        ms, mode = min(best)
        ratio = ms / got["hybrid"]["mean_iter_ms"]
        got["hybrid"] |= {"best_baseline": mode, "speedup": ratio}
        against = "/".join(BASELINES)
        print(f"{'':>12} hybrid: {ratio:.2f}x the best of {against} ({mode}; target 1.2x)")


#: a program pushing sums of float64 from its active vertices (the frontier sweep's sum)
SUMS = programs.Program(
    "float64", "float64", send="state", process="message", reduce="sum", apply="total"
)


@contextmanager
def pushing(mode, bin_bytes=None):
    """The CPU push forced to `mode` ("auto", "blocked", "unblocked"), bins of `bin_bytes`."""
    old = push.push_blocking, push.PUSH_BIN_BYTES
    push.push_blocking = mode
    push.PUSH_BIN_BYTES = bin_bytes or old[1]
    try:
        yield
    finally:
        push.push_blocking, push.PUSH_BIN_BYTES = old


def alternated(variants, fn, repeat):
    """{variant: [fn(...) of each round]}: a warm-up round, then `repeat` rounds, each running
    every variant (a (mode, bin bytes) pair) once in turn."""
    out = {v: [] for v in variants}
    for round_ in range(repeat + 1):
        for v in variants:
            with pushing(*v):
                got = fn()
            if round_:
                out[v].append(got)
    return out


def cpu_push_rows(spec, args):
    """Blocked against unblocked CPU pushes on `spec`: whole PageRank and BFS runs pushed every
    iteration, then single pushes from random frontiers."""
    G, _ = open_graph(spec)
    variants = [("unblocked", None), ("blocked", None), ("auto", None)]
    variants += [("blocked", b) for b in args.bin_bytes]
    label = {v: v[0] if v[1] is None else f"blocked@{v[1] // 1024}K" for v in variants}
    hub = int(G.out_degree.argmax())
    cases = {
        "pagerank": (programs.pagerank(tol=0.0), {"max_iter": args.iterations}),
        "bfs": (programs.bfs(), {"params": {"source": hub}}),
    }
    rows = []
    for name, (prog, kw) in cases.items():
        runs = alternated(
            variants,
            lambda: programs.run(G, prog, direction="push", device="cpu", **kw),  # noqa: B023
            args.repeat,
        )
        for v, rs in runs.items():
            row = {"graph": spec, "program": name, "push": label[v], "bin_bytes": v[1]}
            row |= {
                "iterations": rs[0].iterations,
                "arcs": G.nnz,
                "run_ms": 1e3 * statistics.median(r.time_s for r in rs),
                "iter_ms": 1e3 * statistics.median(r.time_s / r.iterations for r in rs),
            }
            rows.append(row)
            print(
                f"{spec} {name:>8} {label[v]:>14}: {row['run_ms']:9.1f} ms "
                f"({row['iter_ms']:8.2f} ms/iter, {row['iterations']} iter)",
                flush=True,
            )
    rng = np.random.default_rng(1)
    for name, prog in (("bfs", programs.bfs()), ("sums", SUMS)):
        engine = cpu.CpuEngine(G, prog, prog.bind(None))
        for fraction in args.fractions:
            ids = np.sort(rng.choice(G.n, max(1, int(fraction * G.n)), replace=False))
            ids = ids.astype(np.int32)
            arcs = int(np.sum(G.out_degree[ids]))

            def push(ids=ids, engine=engine):
                with Timer("cpu") as t:
                    reached = engine.reduce(ids, "push")
                engine.received[reached] = False
                return t.seconds

            times = alternated(variants, push, args.repeat)
            for v, ts in times.items():
                row = {"graph": spec, "program": name, "push": label[v], "bin_bytes": v[1]}
                row |= {"fraction": fraction, "arcs": arcs, "push_ms": 1e3 * statistics.median(ts)}
                rows.append(row)
                print(
                    f"{spec} {name:>8} frontier {fraction:<8g} ({arcs:>10} arcs) "
                    f"{label[v]:>14}: {row['push_ms']:9.3f} ms",
                    flush=True,
                )
    return rows


def primitive_rows(spec, repeat, iterations, device, engines=("fused",)):
    """Each library program against its built-in primitive on `device`, on each of `engines`
    (gravel.config.program_engine's values: "fused", the fused GPU loop where it takes the
    program; "operators", the loop on the operators; "auto", as the default chooses)."""
    G, _ = open_graph(spec)
    W = add_random_weights(G, seed=1)
    hub = int(G.out_degree.argmax())
    cases = {
        "pagerank": (
            lambda: programs.run(G, programs.pagerank(tol=0.0), max_iter=iterations, device=device),
            lambda: gravel.pagerank(G, max_iter=iterations, tol=0.0, device=device),
        ),
        "bfs": (
            lambda: programs.run(G, programs.bfs(), params={"source": hub}, device=device),
            lambda: gravel.bfs(G, hub, device=device),
        ),
        "sssp": (
            lambda: programs.run(W, programs.sssp(), params={"source": hub}, device=device),
            lambda: gravel.sssp(W, hub, device=device),
        ),
        "cc": (
            lambda: programs.run(G, programs.connected_components(), device=device),
            lambda: gravel.connected_components(G, device=device),
        ),
    }
    rows = []
    engines = engines if device == "cuda" else ("cpu",)  # the engines are the GPU's
    for name, (program, builtin) in cases.items():
        per = name == "pagerank"  # per iteration
        what = "ms/iter" if per else "ms"

        def ms(fn, per=per):
            runs = timed(fn, repeat)
            return 1e3 * statistics.median(r.time_s / (r.iterations if per else 1) for r in runs)

        base = ms(builtin)
        for engine in engines:
            with fused_engine(engine):
                took = ms(program)
            row = {"graph": spec, "algorithm": name, "engine": engine}
            row |= {"program_ms": took, "builtin_ms": base, "ratio": took / base}
            rows.append(row)
            print(
                f"{spec} {name:>8} [{engine:>9}]: program {took:9.2f} {what}, "
                f"built-in {base:9.2f} {what}: {row['ratio']:.2f}x (target 1.3x)",
                flush=True,
            )
    return rows


@contextmanager
def fused_engine(engine):
    """Programs on the GPU run on the fused loop ("fused"), on the operators ("operators"), or
    as the default chooses ("auto")."""
    with gravel.config.using(program_engine=engine):
        yield


def main():
    p = script_parser(__doc__, repeat=3)
    p.add_argument("graphs", nargs="*", default=["kron:24"], help="generator specs or files")
    p.add_argument(
        "--device-memory", help="the budget of the over-budget case (over --budget-fractions)"
    )
    p.add_argument(
        "--budget-fractions",
        nargs="+",
        type=float,
        default=[0.5],
        help="budgets that keep these fractions of each graph's arc ids on the device",
    )
    p.add_argument("--iterations", type=int, default=5, help="PageRank iterations per run")
    p.add_argument("--cpu-repeat", type=int, default=1, help="timed runs of the CPU alone")
    p.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES))
    p.add_argument(
        "--primitives", default="kron:22", help="graph of programs vs primitives ('' to skip)"
    )
    p.add_argument("--primitives-device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--primitives-only", action="store_true", help="skip the hybrid section")
    p.add_argument(
        "--engines",
        nargs="+",
        choices=["auto", "fused", "operators"],
        default=["fused", "operators"],
        help="the GPU engines programs run on against the built-ins",
    )
    p.add_argument("--cpu-push", action="store_true", help="only the CPU push section")
    p.add_argument(
        "--fractions",
        nargs="+",
        type=float,
        default=[2**-12, 2**-8, 2**-4, 1.0],
        help="frontiers of the CPU push section, as fractions of the vertices",
    )
    p.add_argument(
        "--bin-bytes", nargs="*", type=int, default=[], help="bin sizes to add (bytes of totals)"
    )
    a = p.parse_args()
    info = machine()
    print(f"{info.get('gpu')}, {info['cores']} cores, {info['threads']} Numba threads")
    rows = []
    if a.cpu_push:
        for spec in a.graphs:
            rows += [{"section": "cpu-push"} | r for r in cpu_push_rows(spec, a)]
        if a.json:
            write_record(a.json, "benchmarks/programs.py", rows)
        return
    for spec in [] if a.primitives_only else a.graphs:
        G, _ = open_graph(spec)
        rows += [{"section": "hybrid"} | r for r in hybrid_rows(spec, G, a)]
        del G
        gc.collect()
        free_device_memory()
    if a.primitives:
        rows += [
            {"section": "primitives"} | r
            for r in primitive_rows(
                a.primitives, a.repeat, a.iterations, a.primitives_device, a.engines
            )
        ]
    if a.json:
        write_record(a.json, "benchmarks/programs.py", rows)


if __name__ == "__main__":
    main()
