"""Graphs read over the bus (EMOGI): each placement of each graph, against the bus ceilings measured
in the same run (kernel reads of mapped host memory; the copy engines).

Per case: one pass over every list (an advance over all vertices with the case's load balance, each
id counted into 4,096 bins), BFS from the --sources highest-degree vertices (top-down over the bus,
the frontier sorted each level), and on the cases that read lists in place (not the naive and
warp-aligned baselines, which differ from "host, balanced" only in the advance) SSSP from the
highest-degree vertex, connected components, and PageRank per iteration, over the bus and streamed
through the copy engines. Times are medians of CUDA-event runs after a warm-up. "lines" is the
count of 128-byte lines the line-aligned advances fetch from host memory over one pass, per byte of
ids (EMOGI's Fig. 10 metric from the kernel's own count: an upper bound, as a line two neighbouring
lists share may come from the L2 the second time).

Cases: "device" (the in-memory reference); "host, naive" (a thread per list, EMOGI's baseline);
"host, aligned" (a warp per list in whole lines, EMOGI's merged + aligned); "host, balanced" (whole
lines, LINES_PER_WARP to a warp: hubs split, short lists packed; gravel's default); "tiered" (the
lists that save the most lines in device memory up to --tiered-share of the ids, the rest over the
bus); "managed" (UVM, read-mostly, prefetched; only where the graph fits the free device memory,
so it measures device memory).

    python benchmarks/emogi.py kron:24 urand:24 --json benchmarks/results/h100/emogi.json
"""

import gc
import statistics

import cupy
import numpy as np

import gravel
from gravel.bench import bus_ceilings, median_ms
from gravel.cli import open_graph
from gravel.frontier import Frontier
from gravel.operators import advance
from gravel.placement import budget_for
from gravel.records import machine, script_parser, write_record

#: PageRank iterations per timed run
PR_ITERATIONS = 5


def placed(G, placement, share):
    """A copy of G on the GPU with `placement`; "tiered" holds `share` of the ids on the device."""
    copy = gravel.Graph.from_csr(G.offsets, G.indices, G.weights, directed=G.directed, trusted=True)
    budget = budget_for(G, share * G.nnz) if placement == "tiered" else None
    copy.to("cuda", placement=placement, budget=budget)
    return copy


def sweep(dg, strategy, lines=None):
    """Advance over every list, reading each id: an atomic count per id into 4,096 bins keeps
    every load (a functor whose value goes nowhere lets the compiler drop the load)."""
    frontier = Frontier.all(dg.n)
    params = {"bins": cupy.zeros(4096, cupy.uint32)}
    op = "(atomicAdd(&bins[dst & 4095], 1u), false)"
    return lambda: advance(
        dg, frontier, op, params=params, output=None, strategy=strategy, lines=lines
    )


def timed_ms(fn, repeat):
    """Median result time (ms) of `repeat` calls of fn after a warm-up."""
    fn()
    return 1e3 * statistics.median(fn().time_s for _ in range(repeat))


def primitives(P, source, repeat):
    """SSSP, CC and PageRank per iteration (over the bus and streamed, where the lists are in host
    memory) on the placed graph P, in ms."""
    out = {
        "sssp_ms": timed_ms(lambda: gravel.sssp(P, source, device="cuda"), 1),
        "cc_ms": timed_ms(lambda: gravel.connected_components(P, device="cuda"), repeat),
    }
    over_bus = P.to("cuda").placement in ("host", "tiered")
    for name, blocking in [("pr", "auto"), ("pr_bus", None)] if over_bus else [("pr", "auto")]:
        run = lambda b=blocking: gravel.pagerank(  # noqa: E731
            P, max_iter=PR_ITERATIONS, tol=0.0, blocking=b, device="cuda"
        )
        out[f"{name}_iter_ms"] = timed_ms(run, 1) / PR_ITERATIONS
        out[f"{name}_strategy"] = run().strategy
    return out


#: (label, placement, load balance of the sweep and of BFS over the bus, all primitives?)
CASES = [
    ("device", "device", "auto", True),
    ("host, naive", "host", "thread_mapped", False),
    ("host, aligned", "host", "warp_aligned", False),
    ("host, balanced", "host", "line_balanced", True),
    ("tiered", "tiered", "line_balanced", True),
    ("managed", "managed", "auto", True),
]


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--sources", type=int, default=4, help="BFS sources per case")
    p.add_argument("--tiered-share", type=float, default=0.5, help="ids on the device when tiered")
    p.add_argument("--cases", nargs="+", help="labels of the cases to run (default: all)")
    a = p.parse_args()
    info = machine()
    ceilings = bus_ceilings()
    ceiling = ceilings["mapped_reads"]
    print(
        f"bus ceilings: {ceiling / 1e9:.1f} GB/s mapped reads, "
        f"{ceilings['copy_engine'] / 1e9:.1f} GB/s copy engine ({info.get('gpu')})"
    )
    rows = []
    for spec in a.graphs:
        G, _ = open_graph(spec)
        ids = 4 * G.nnz
        sources = np.argsort(G.out_degree)[-a.sources :].astype(int).tolist()
        for label, placement, strategy, every in CASES:
            if a.cases and label not in a.cases:
                continue
            free = cupy.cuda.Device().mem_info[0]
            if placement == "managed" and ids + 8 * G.n > 0.8 * free:
                print(f"{spec} managed: skipped, the graph does not fit the free device memory")
                continue
            P = placed(G, placement, a.tiered_share)
            dg = P.to("cuda")
            lines = cupy.zeros(1, cupy.uint64)
            sweep(dg, strategy, lines)()
            aligned = strategy in ("warp_aligned", "line_balanced")
            over_bus = int(lines.get()[0]) * 128 / ids if aligned else None
            ms = median_ms(sweep(dg, strategy), a.repeat)
            with gravel.config.using(bus_load_balance=strategy):
                runs = [gravel.bfs(P, s, device="cuda") for s in [sources[0], *sources]][1:]
            bfs_ms = 1e3 * statistics.median(r.time_s for r in runs)
            row = {
                "graph": spec,
                "case": label,
                "ids_bytes": ids,
                "sweep_ms": ms,
                "sweep_ids_gbs": ids / ms / 1e6,
                "sweep_of_ceiling": ids / (ms / 1e3) / ceiling,
                "lines_per_id_byte": over_bus,
                "device_ids_share": (dg.hot.indices.size / G.nnz) if dg.hot is not None else None,
                "bfs_ms": bfs_ms,
                "bfs_gteps": G.nnz / bfs_ms / 1e6,
                "bfs_ids_gbs": ids / bfs_ms / 1e6,
                "bfs_strategy": runs[0].strategy,
            }
            if every:
                row |= primitives(P, sources[-1], a.repeat)
            rows.append(row)
            print(
                f"{spec} {label:>14}: sweep {ms:8.2f} ms {row['sweep_ids_gbs']:6.1f} GB/s of ids "
                f"({row['sweep_of_ceiling']:.0%})"
                + (f", {over_bus:.2f} lines/B" if over_bus is not None else "")
                + f"; bfs {bfs_ms:8.2f} ms {row['bfs_ids_gbs']:6.1f} GB/s"
                + (
                    f"; sssp {row['sssp_ms']:8.1f} ms; cc {row['cc_ms']:7.1f} ms; "
                    f"pr/iter {row['pr_iter_ms']:7.2f} ms"
                    + (f" (bus {row['pr_bus_iter_ms']:7.2f})" if "pr_bus_iter_ms" in row else "")
                    if every
                    else ""
                ),
                flush=True,
            )
            del P, dg, runs
            gc.collect()
            cupy.get_default_memory_pool().free_all_blocks()  # free for the next case's check
    if a.json:
        write_record(
            a.json,
            "benchmarks/emogi.py",
            rows,
            bus_ceiling_gbs=ceiling / 1e9,
            copy_engine_gbs=ceilings["copy_engine"] / 1e9,
        )


if __name__ == "__main__":
    main()
