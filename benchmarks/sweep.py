"""One pull sweep over every vertex: ``neighbor_reduce(dg, None, x)``, the sum of x[u] over each
vertex's in-edges, for a float32 array x. Four variants on each graph, as given and degree-sorted:
plain (the library's binned sweep and launch shape), blocked through the L2 (blocks of a quarter of
it), staged in shared memory (blocks of one CTA's shared memory) and ``blocking="auto"`` (what the
library picks for a value array). ``--widths`` adds blocked sweeps of other block widths (vertices).

Times: CUDA events, median of --repeat runs after a warm-up that also builds the layouts. Every
variant's sums are checked against the plain sweep's. This is the benchmark for the sweep's tuned
constants (docs/tuning.md: BINS, STRIDING/ONE_PASS/ROWS_SHAPE, L2_FRACTION, AUTO_L2_SHARE,
STAGED_*): change one, run this before and after on the same card, in one session.

    python benchmarks/sweep.py kron:22 kron:25 --json benchmarks/results/h200/sweep.json
"""

import cupy

from gravel import operators as ops
from gravel.bench import median_ms
from gravel.cli import open_graph
from gravel.layouts import block_width, shared_width
from gravel.records import machine, script_parser, write_record
from gravel.reorder import reorder


def sweep_times(H, widths, repeat):
    """{variant: ms} of one sweep over H (put on the device), each checked against the plain
    sweep."""
    dg = H.to("cuda")
    cupy.random.seed(0)
    x = cupy.random.random(H.n, dtype=cupy.float32)
    expect = ops.neighbor_reduce(dg, None, x)
    times = {}
    for name, blocking in [
        ("plain", None),
        ("L2-blocked", block_width(4)),
        ("staged", shared_width(4)),
        ("auto", "auto"),
    ] + [(f"blocked {w}", w) for w in widths]:

        def run(blocking=blocking):
            return ops.neighbor_reduce(dg, None, x, blocking=blocking)

        if not cupy.allclose(run(), expect, rtol=1e-4, atol=1e-3):
            raise AssertionError(f"{name}: the sums differ from the plain sweep's")
        times[name] = median_ms(run, repeat, "cuda")
    return times


def main():
    p = script_parser(__doc__, repeat=7)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--widths", type=int, nargs="*", default=[], help="more block widths (vertices)")
    a = p.parse_args()
    info = machine()
    rows = []
    for spec in a.graphs:
        G, _ = open_graph(spec)
        G.to("cuda")
        for label, H in ((spec, G), (f"{spec} degree-sorted", reorder(G, "degree"))):
            times = sweep_times(H, a.widths, a.repeat)
            rows.append(
                {"graph": label, "n": H.n, "nnz": H.nnz} | {f"{k}_ms": v for k, v in times.items()}
            )
            print(
                f"{label:>28}: "
                + ", ".join(f"{k} {v:7.3f} ms" for k, v in times.items())
                + f" ({info.get('gpu')})",
                flush=True,
            )
    if a.json:
        write_record(
            a.json,
            "benchmarks/sweep.py",
            rows,
            widths={"L2-blocked": block_width(4), "staged": shared_width(4)},
        )


if __name__ == "__main__":
    main()
