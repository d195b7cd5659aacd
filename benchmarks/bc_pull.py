"""The GPU's per-source Brandes against BC_PULL_ABOVE (algorithms/betweenness/cuda.py): ms per
source (CUDA events, median of --repeat runs after a warm-up) from `gravel bench`'s spread
sources, at each value (infinity: the push-only forward), the default first and last to show the
drift, every run's centrality checked against the default's. This is the benchmark for
BC_PULL_ABOVE (docs/tuning.md).

    python benchmarks/bc_pull.py kron:22 urand:22 --json benchmarks/results/h200/bc_pull.json
"""

import math
import statistics

import numpy as np

import gravel
from gravel.algorithms.betweenness import cuda
from gravel.algorithms.catalog import CATALOG
from gravel.bench import run_times
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

VALUES = (math.inf, 1.0, 0.25, 1 / 16, 1 / 32, 1 / 128, 0.0)


def main():
    p = script_parser(__doc__, repeat=7)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--values", type=float, nargs="*", default=VALUES, help="BC_PULL_ABOVE values")
    a = p.parse_args()
    default = cuda.BC_PULL_ABOVE
    rows = []
    for spec in a.graphs:
        G, _ = open_graph(spec)
        sources = CATALOG["bc"].timed(G)["sources"]
        expect = None
        for above in (default, *a.values, default):
            cuda.BC_PULL_ABOVE = above

            def run():
                return gravel.betweenness_centrality(G, sources=sources, device="cuda")

            r = run()
            expect = r.centrality if expect is None else expect
            if not np.allclose(r.centrality, expect, rtol=1e-9, atol=1e-12, equal_nan=True):
                raise AssertionError(f"{spec}: BC_PULL_ABOVE={above} changed the centrality")
            ms = 1e3 * statistics.median(run_times(run, a.repeat, "cuda")) / len(sources)
            pulled = r.stats["pulled_levels"]
            rows.append(
                {
                    "graph": spec,
                    "bc_pull_above": above if math.isfinite(above) else "inf",
                    "ms_per_source": ms,
                    "pulled_levels": pulled,
                }
            )
            tag = " (default)" if above == default else ""
            print(
                f"{spec} BC_PULL_ABOVE={above:g}{tag}: {ms:.2f} ms/source, {pulled} levels pulled",
                flush=True,
            )
        cuda.BC_PULL_ABOVE = default
    if a.json:
        write_record(a.json, "benchmarks/bc_pull.py", rows)


if __name__ == "__main__":
    main()
