"""A graph larger than the GPU: generated on the GPU into host memory, then BFS from --sources
random sources and connected components on it with the lists read over the bus (each --placements
entry), every answer checked against the CPU path on the same graph.

Per graph: the build's time and peak host memory (against the CSR's bytes); per placement: the time
to place it and where its bytes went; per CC and BFS: the GPU time, GTEPS, the rate at which it read
the graph's ids over the bus (the ids not on the device, read once, per second; against the bus
ceiling measured in the same run) and the CPU path's time. The CPU path runs on every core; BFS
sources are vertices with at least one arc, drawn from --seed. Rows are written to --json as they
are measured, so a run stopped midway keeps them.

    python benchmarks/beyond_memory.py kron:30:13 --json /tmp/beyond.json
"""

import gc
import resource
import time

import cupy
import numpy as np

import gravel
from gravel.arrays import host
from gravel.bench import bus_ceilings
from gravel.generate import from_spec
from gravel.records import machine, script_parser, write_record


def peak_rss():
    """Peak resident memory of this process so far, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def checked(name, gpu, cpu, same):
    """A row of a GPU run beside its CPU run; raises if the answers differ."""
    if not same:
        raise AssertionError(f"{name}: the GPU's answer differs from the CPU path's")
    return {"gpu_ms": 1e3 * gpu.time_s, "cpu_ms": 1e3 * cpu.time_s, "strategy": gpu.strategy}


def main():
    p = script_parser(__doc__, repeat=1)
    p.add_argument("graph", help="a generator spec (kron:30:13 holds about 110 GB of ids)")
    p.add_argument("--sources", type=int, default=4, help="BFS sources")
    p.add_argument("--placements", nargs="+", default=["auto"], help="placements to run")
    p.add_argument("--seed", type=int, default=1, help="seed of the sources")
    a = p.parse_args()
    record = {"machine": machine()}
    rows = []

    def save():
        if a.json:
            write_record(a.json, "benchmarks/beyond_memory.py", rows, **record)

    ceilings = bus_ceilings()
    record["bus_ceiling_gbs"] = ceilings["mapped_reads"] / 1e9
    record["copy_engine_gbs"] = ceilings["copy_engine"] / 1e9
    gravel.bfs(from_spec("kron:12"), 0, device="cuda")  # the CUDA context and first kernels
    start = time.perf_counter()
    G = from_spec(a.graph, device="cuda")
    csr_bytes = G.offsets.nbytes + G.indices.nbytes
    record["build"] = {
        "graph": a.graph,
        "n": G.n,
        "arcs": G.nnz,
        "ids_bytes": G.indices.nbytes,
        "csr_bytes": csr_bytes,
        "seconds": time.perf_counter() - start,
        "peak_rss_bytes": peak_rss(),
        "peak_rss_per_csr_byte": peak_rss() / csr_bytes,
        "device_bytes": cupy.cuda.Device().mem_info[1],
    }
    print(f"built {record['build']}", flush=True)
    save()
    rng = np.random.default_rng(a.seed)
    candidates = np.flatnonzero(np.diff(G.offsets) > 0)
    sources = rng.choice(candidates, a.sources, replace=False).tolist()
    del candidates
    ids = G.indices.nbytes
    for placement in a.placements:
        # a graph of the same arrays per placement: dropping it unpins them and frees the device
        P = gravel.Graph.from_csr(G.offsets, G.indices, directed=G.directed, trusted=True)
        start = time.perf_counter()
        dg = P.to("cuda", placement=placement)
        place_s = time.perf_counter() - start
        where = {
            "placement": dg.placement,
            "place_s": place_s,
            "device_ids_share": dg.hot.indices.size / G.nnz if dg.hot is not None else None,
        }
        print(f"placed {where}", flush=True)
        over_bus = 1 - (where["device_ids_share"] or 0) if dg.placement != "device" else 0

        def record_row(row):
            """Rates from the GPU time (every arc counted; the ids not on the device read once),
            then the row kept, saved and printed."""
            row["gteps"] = G.nnz / row["gpu_ms"] / 1e6
            row["ids_gbs"] = ids / row["gpu_ms"] / 1e6
            row["bus_gbs"] = over_bus * row["ids_gbs"]
            row["of_bus_ceiling"] = row["bus_gbs"] / record["bus_ceiling_gbs"]
            rows.append(row)
            print(row, flush=True)
            save()

        # components first: the longest runs, so that a time limit cuts BFS sources instead
        gpu = gravel.connected_components(P, device="cuda")
        cpu = gravel.connected_components(G, device="cpu")
        row = {"primitive": "cc", **where}
        record_row(row | checked("cc", gpu, cpu, np.array_equal(host(gpu.labels), cpu.labels)))
        del gpu, cpu
        gravel.bfs(P, sources[0], device="cuda")  # warm-up: this placement's BFS kernels
        for s in sources:
            gpu = gravel.bfs(P, s, device="cuda")
            cpu = gravel.bfs(G, s, device="cpu")
            row = {"primitive": "bfs", "source": s, **where, "reached": int((cpu.depth >= 0).sum())}
            same = np.array_equal(host(gpu.depth), cpu.depth)
            record_row(row | checked(f"bfs from {s}", gpu, cpu, same))
            del gpu, cpu
        del P, dg
        gc.collect()
        cupy.get_default_memory_pool().free_all_blocks()
    print(
        f"{'primitive':>9} {'placement':>9} {'gpu ms':>9} {'cpu ms':>9} {'bus GB/s':>9} "
        f"{'of ceiling':>10}"
    )
    for r in rows:
        print(
            f"{r['primitive']:>9} {r['placement']:>9} {r['gpu_ms']:9.1f} {r['cpu_ms']:9.1f} "
            f"{r['bus_gbs']:9.1f} {r['of_bus_ceiling']:10.0%}"
        )


if __name__ == "__main__":
    main()
