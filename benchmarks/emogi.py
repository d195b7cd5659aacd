"""Graphs read over the bus (EMOGI): one pass over every list (an advance over all vertices, by
a given load balance) and BFS from the --sources highest-degree vertices, on each placement,
against the bus ceiling measured in the same run. Per case: median times (CUDA events, after a
warm-up), GB/s of ids swept and its ratio to the ceiling, BFS GTEPS, and for the warp-aligned
sweeps the bytes of 128-byte lines fetched over the bus per byte of ids (EMOGI's Fig. 10 metric,
from the kernel's own count).

Cases: "device" (the in-memory reference); "host, naive" (a thread per list reading pinned host
memory, EMOGI's baseline); "host, aligned" (a warp per list in whole lines, EMOGI's merged +
aligned); "host, balanced" (whole lines, 8 to a warp: hubs split, short lists packed; gravel's
default); "tiered" (the lists that save the most lines in device memory, --tiered-share of the ids,
the rest over the bus, balanced); "managed" (UVM, read-mostly, prefetched; only where the graph
fits the free device memory). BFS reads over the bus top-down, with the case's load balance.

    python benchmarks/emogi.py kron:24 urand:24 --json benchmarks/results/h100/emogi.json
"""

import gc
import statistics

import cupy
import numpy as np

import gravel
from gravel.bench import machine, median_ms, script_parser, write_record
from gravel.cli import open_graph
from gravel.frontier import Frontier
from gravel.operators import advance
from gravel.placement import budget_for


def bus_ceiling(nbytes=1 << 30, repeat=5):
    """Bytes per second a kernel reads from pinned, mapped host memory (a sum over it)."""
    from gravel.backends.cuda.pinned import mapped

    host = np.ones(nbytes // 4, np.int32)
    view = mapped(host)  # unpinned when the function returns
    return nbytes / (median_ms(lambda: view.sum(dtype=cupy.int64), repeat) / 1e3)


def placed(G, placement, share):
    """A copy of G on the GPU with `placement`; "tiered" holds `share` of the ids on the device."""
    copy = gravel.Graph(
        G.offsets, G.indices, G.weights, directed=G.directed, _sorted=True, _checked=True
    )
    budget = None
    if placement == "tiered":
        budget = budget_for(G, share * G.nnz)
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


#: (label, placement, load balance of the sweep); BFS picks its own
CASES = [
    ("device", "device", "auto"),
    ("host, naive", "host", "thread_mapped"),
    ("host, aligned", "host", "warp_aligned"),
    ("host, balanced", "host", "line_balanced"),
    ("tiered", "tiered", "line_balanced"),
    ("managed", "managed", "auto"),
]


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--sources", type=int, default=4, help="BFS sources per case")
    p.add_argument("--tiered-share", type=float, default=0.5, help="ids on the device when tiered")
    a = p.parse_args()
    info = machine()
    ceiling = bus_ceiling()
    print(f"bus ceiling: {ceiling / 1e9:.1f} GB/s (mapped host reads, {info.get('gpu')})")
    rows = []
    for spec in a.graphs:
        G, _ = open_graph(spec)
        ids = 4 * G.nnz
        sources = np.argsort(G.out_degree)[-a.sources :].astype(int).tolist()
        for label, placement, strategy in CASES:
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
                "sweep_ms": ms,
                "sweep_gbs": ids / ms / 1e6,
                "of_ceiling": ids / (ms / 1e3) / ceiling,
                "bus_bytes_per_id_byte": over_bus,
                "device_ids_share": (dg.hot.indices.size / G.nnz) if dg.hot is not None else None,
                "bfs_ms": bfs_ms,
                "bfs_gteps": G.nnz / bfs_ms / 1e6,
                "bfs_gbs": ids / bfs_ms / 1e6,
                "bfs_strategy": runs[0].strategy,
            }
            rows.append(row)
            print(
                f"{spec} {label:>14}: sweep {ms:8.2f} ms {row['sweep_gbs']:7.1f} GB/s "
                f"({row['of_ceiling']:.0%} of the bus)"
                + (f", {over_bus:.2f} bus B per id B" if over_bus is not None else "")
                + f"; bfs {bfs_ms:8.2f} ms ({runs[0].strategy})",
                flush=True,
            )
            del P, dg, runs
            gc.collect()
    if a.json:
        write_record(a.json, "benchmarks/emogi.py", rows, bus_ceiling_gbs=ceiling / 1e9)


if __name__ == "__main__":
    main()
