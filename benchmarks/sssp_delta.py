"""SSSP against its bucket width, on the GPU or (--device cpu) the CPU: time (the result's own:
CUDA events on the GPU; median of --repeat runs after a warm-up) and phases at multiples of the
CPU's default delta, weights 1..255 added where a graph has none, from its highest-degree vertex.
The device's default (gravel.sssp with no delta) is timed beside them. This is the benchmark for
SSSP's default delta (docs/tuning.md).

    python benchmarks/sssp_delta.py kron:22 grid:1024x1024 --json
    benchmarks/results/h200/sssp_delta.json
    python benchmarks/sssp_delta.py kron:20 --device cpu --factors 0.0625 0.125 0.25 1
"""

import statistics

import numpy as np

import gravel
from gravel.algorithms.sssp import default_delta
from gravel.bench import machine, script_parser, write_record
from gravel.cli import open_graph

#: multiples of the CPU's width: the GPU's narrow rule on dense random graphs sits near 24, its wide
#: rule near 256 (docs/tuning.md, default_delta)
FACTORS = (1, 4, 8, 16, 24, 32, 64, 256, 1024)


def weighted_graph(spec):
    """A Graph from a generator spec (kron:22, grid:RxC, ...) or a file, weighted 1..255 if it is
    not."""
    G, _ = open_graph(spec)
    return G if G.weighted else gravel.transform.add_random_weights(G, low=1, high=255, seed=0)


def timed(G, source, delta, repeat, device):
    """(median ms, steps, delta used) of SSSP runs after a warm-up."""
    runs = [gravel.sssp(G, source, delta=delta, device=device) for _ in range(repeat + 1)][1:]
    return (
        1e3 * statistics.median(r.time_s for r in runs),
        runs[-1].iterations,
        runs[-1].stats["delta"],
    )


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument(
        "--factors", type=float, nargs="*", default=FACTORS, help="multiples of the CPU's delta"
    )
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    a = p.parse_args()
    info = machine()
    where = info.get("gpu") if a.device == "cuda" else f"{info['threads']} CPU threads"
    rows = []
    for spec in a.graphs:
        G = weighted_graph(spec)
        source = int(np.argmax(G.out_degree))
        cpu_delta = default_delta(G, "cpu")
        cases = [("default", None)] + [(f"{f:g} x the CPU's", f * cpu_delta) for f in a.factors]
        for label, delta in cases:
            ms, steps, used = timed(G, source, delta, a.repeat, a.device)
            row = {"graph": spec, "device": a.device, "case": label, "delta": used, "ms": ms}
            rows.append(row | {"steps": steps})
            print(
                f"{spec} delta {used:9.1f} ({label:>17}): {ms:9.2f} ms, {steps} steps "
                f"({a.device}: {where})",
                flush=True,
            )
    if a.json:
        write_record(a.json, "benchmarks/sssp_delta.py", rows)


if __name__ == "__main__":
    main()
