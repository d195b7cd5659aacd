"""Bytes the GPU really fetched over the bus per byte of ids (EMOGI's Fig. 10 metric), counted by
Nsight Compute: the L2's sectors read from system memory during one pass over every list of a graph
in pinned host memory, for each advance (thread_mapped: EMOGI's naive baseline; warp_aligned: its
merged + aligned; line_balanced: gravel's default), beside the kernels' own count of 128-byte lines.

    python benchmarks/bus_bytes.py kron:24 urand:24 --json /tmp/bus_bytes.json

runs itself under `ncu` (on PATH; --clock-control none, as the GPU's clocks are not ours to set)
with --inner, which makes the passes; the outer run sums the counters per kernel.
"""

import argparse
import csv
import io
import subprocess
import sys

from gravel.records import script_parser, write_record

METRIC = "lts__t_sectors_aperture_sysmem_op_read.sum"
STRATEGIES = ("thread_mapped", "warp_aligned", "line_balanced")


def inner(specs):
    """One pass over every list per strategy, the graph in host memory; prints ids bytes and the
    lines each line-aligned pass counted, one line per (graph, strategy)."""
    import cupy

    sys.path.insert(0, "benchmarks")
    from emogi import placed, sweep

    from gravel.cli import open_graph

    for spec in specs:
        G, _ = open_graph(spec)
        P = placed(G, "host", 0.0)
        for strategy in STRATEGIES:
            lines = cupy.zeros(1, cupy.uint64)
            sweep(P.to("cuda"), strategy, lines)()
            print(f"PASS {spec} {strategy} {4 * G.nnz} {int(lines.get()[0])}", flush=True)


def counters(text):
    """Sum of METRIC per kernel launch, in launch order, from ncu's CSV."""
    rows = csv.DictReader(io.StringIO(text[text.index('"ID"') :]))
    return [
        (r["Kernel Name"], float(r["Metric Value"].replace(",", "")))
        for r in rows
        if r["Metric Name"] == METRIC
    ]


def main():
    p = script_parser(__doc__, repeat=1)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.inner:
        return inner(a.graphs)
    cmd = ["ncu", "--csv", "--clock-control", "none", "--metrics", METRIC]
    cmd += ["-k", "regex:gravel_advance", sys.executable, __file__, "--inner", *a.graphs]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"ncu failed ({done.returncode}):\n{done.stderr[-2000:]}")
    passes = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("PASS")]
    launches = counters(done.stdout)
    if len(launches) != len(passes):
        sys.exit(f"{len(launches)} profiled advances for {len(passes)} passes")
    rows = []
    for (spec, strategy, ids, lines), (kernel, sectors) in zip(passes, launches):
        assert strategy in kernel, (strategy, kernel)
        ids, lines = int(ids), int(lines)
        row = {
            "graph": spec,
            "strategy": strategy,
            "ids_bytes": ids,
            "bus_bytes": 32 * sectors,
            "bus_per_id_byte": 32 * sectors / ids,
            "counted_lines_per_id_byte": 128 * lines / ids if lines else None,
        }
        rows.append(row)
        print(
            f"{spec:>10} {strategy:>14}: {row['bus_per_id_byte']:.2f} bytes over the bus per id "
            f"byte" + (f" (lines counted: {row['counted_lines_per_id_byte']:.2f})" if lines else "")
        )
    if a.json:
        write_record(a.json, "benchmarks/bus_bytes.py", rows, metric=METRIC)


if __name__ == "__main__":
    main()
