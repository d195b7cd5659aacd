"""SSSP against its bucket width, on the GPU or (--device cpu) the CPU: time (the result's own:
CUDA events on the GPU; median of --repeat runs after a warm-up) and phases at multiples of the
CPU's default delta, weights 1..255 added where a graph has none, from its highest-degree vertex.
The device's default (gravel.sssp with no delta) is timed beside them. This is the benchmark for
SSSP's default delta (docs/tuning.md). --shares times the default delta again at other shares of
the vertices that hand a bucket to pull sweeps and back (PULL_SHARE, PUSH_SHARE: 64:16 is 1/64 and
1/16; a third, 64:16:8, sets PULL_ARCS to 1/8 of the arcs; "off" never pulls). --serial-arcs
times the CPU's default delta again with SERIAL_ARCS (the frontiers' size below which its phases run
serially) at each value given. Steps count push steps and sweeps alike.

    python benchmarks/sssp_delta.py kron:22 grid:1024x1024 --json
    benchmarks/results/h200/sssp_delta.json
    python benchmarks/sssp_delta.py kron:20 --device cpu --factors 0.0625 0.125 0.25 1
    python benchmarks/sssp_delta.py kron:22 urand:22 --factors --shares off 64:16 128:4 64:4:8
    python benchmarks/sssp_delta.py grid:1024x1024 --device cpu --factors --serial-arcs 512 4096
"""

import importlib
import statistics

import numpy as np

import gravel
from gravel.algorithms.sssp import default_delta
from gravel.cli import open_graph
from gravel.records import machine, script_parser, write_record

#: multiples of the CPU's width: the GPU's narrow rule on dense random graphs sits near 24, its wide
#: rule near 256 (docs/tuning.md, default_delta)
FACTORS = (1, 4, 8, 16, 24, 32, 64, 256, 1024)


def weighted_graph(spec):
    """A Graph from a generator spec (kron:22, grid:RxC, ...) or a file, weighted 1..255 if it is
    not."""
    G, _ = open_graph(spec)
    return G if G.weighted else gravel.transform.add_random_weights(G, low=1, high=255, seed=0)


def timed(G, source, delta, repeat, device):
    """(median ms, steps, pull sweeps, delta used) of SSSP runs after a warm-up."""
    runs = [gravel.sssp(G, source, delta=delta, device=device) for _ in range(repeat + 1)][1:]
    return (
        1e3 * statistics.median(r.time_s for r in runs),
        runs[-1].iterations,
        runs[-1].stats.get("pull_sweeps", 0),
        runs[-1].stats["delta"],
    )


def shared(text):
    """(label, {name: share}) of a --shares entry: "P:Q" sets PULL_SHARE and PUSH_SHARE to 1/P and
    1/Q, "P:Q:A" PULL_ARCS to 1/A too, "off" a pull share that no step's output reaches."""
    if text == "off":
        return text, {"PULL_SHARE": 2.0, "PUSH_SHARE": 0.0}
    parts = [float(x) for x in text.split(":")]
    if len(parts) not in (2, 3) or min(parts) <= 0:
        raise ValueError(f"shares are P:Q or P:Q:A, positive numbers, not {text!r}")
    names = ("PULL_SHARE", "PUSH_SHARE", "PULL_ARCS")
    return f"shares {' '.join(f'1/{x:g}' for x in parts)}", {
        name: 1 / x for name, x in zip(names, parts)
    }


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument(
        "--factors", type=float, nargs="*", default=FACTORS, help="multiples of the CPU's delta"
    )
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument(
        "--shares",
        nargs="*",
        default=(),
        type=shared,
        help='"P:Q" pull and push shares (1/P, 1/Q), "P:Q:A" and PULL_ARCS 1/A, or "off"',
    )
    p.add_argument(
        "--serial-arcs",
        nargs="*",
        default=(),
        type=int,
        help="SERIAL_ARCS values for the CPU's default delta",
    )
    a = p.parse_args()
    gpu = importlib.import_module("gravel.algorithms.sssp.cuda")  # the shares are the GPU's
    cpu = importlib.import_module("gravel.algorithms.sssp.cpu")
    info = machine()
    where = info.get("gpu") if a.device == "cuda" else f"{info['threads']} CPU threads"
    rows = []
    for spec in a.graphs:
        G = weighted_graph(spec)
        source = int(np.argmax(G.out_degree))
        cpu_delta = default_delta(G, "cpu")
        cases = [("default", None, gpu, {})]
        cases += [(f"{f:g} x the CPU's", f * cpu_delta, gpu, {}) for f in a.factors]
        cases += [(label, None, gpu, shares) for label, shares in a.shares]
        cases += [(f"SERIAL_ARCS {k}", None, cpu, {"SERIAL_ARCS": k}) for k in a.serial_arcs]
        for label, delta, module, values in cases:
            chosen = {name: getattr(module, name) for name in values}
            for name, value in values.items():
                setattr(module, name, value)
            ms, steps, sweeps, used = timed(G, source, delta, a.repeat, a.device)
            for name, value in chosen.items():
                setattr(module, name, value)
            row = {"graph": spec, "device": a.device, "case": label, "delta": used, "ms": ms}
            rows.append(row | {"steps": steps, "pull_sweeps": sweeps})
            print(
                f"{spec} delta {used:9.1f} ({label:>20}): {ms:9.2f} ms, {steps} steps "
                f"({sweeps} sweeps) "
                f"({a.device}: {where})",
                flush=True,
            )
    if a.json:
        write_record(a.json, "benchmarks/sssp_delta.py", rows)


if __name__ == "__main__":
    main()
