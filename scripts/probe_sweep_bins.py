"""How should a pull sweep over every vertex bin its lists by length (operators.BINS)? PageRank
milliseconds per iteration (20 iterations, tol=0, CUDA events, median of 5 after a warm-up) for each
binning, unblocked and with the default blocking, and cuSPARSE's SpMV in the same run; every binning's
ranks must agree with the first.

    PYTHONPATH=src python scripts/probe_sweep_bins.py kron:22 urand:22 grid:2048x2048
"""

import statistics
import sys

import cupy
import numpy as np

import gravel
from gravel import operators as ops
from gravel.bench import _cusparse_baseline, run_times
from gravel.cli import open_graph

SCHEMES = [("one bin", ()), ("long lists", (2048,)), ("8 | long", (8, 2048)), ("4 | 32 | long", (4, 32, 2048)),
           ("2|4|8|16|32|long", (2, 4, 8, 16, 32, 2048)), ("8 | 256", (8, 256))]
ITERATIONS = 20


def per_iteration_ms(fn):
    return 1e3 * statistics.median(run_times(fn, 5, "cuda")) / ITERATIONS


def main():
    for spec in sys.argv[1:]:
        G, _ = open_graph(spec)
        print(f"{spec}: n={G.n:,} nnz={G.nnz:,} max in-degree {int(np.diff(G.csc()[0]).max()):,}", flush=True)
        cusparse = _cusparse_baseline("pagerank", G, 0)
        print(f"  {'cuSPARSE SpMV':20s} {per_iteration_ms(cusparse):7.3f} ms/it", flush=True)
        first = None
        for label, bins in SCHEMES:
            ops.BINS = bins
            for blocking in (None, "auto"):
                run = lambda: gravel.pagerank(G, tol=0, max_iter=ITERATIONS, blocking=blocking, device="cuda")  # noqa: E731
                rank = run().rank
                first = rank if first is None else first
                assert float(cupy.abs(rank - first).max()) < 1e-6, (label, blocking)
                print(f"  {label:20s} {str(blocking):5s} {per_iteration_ms(run):7.3f} ms/it", flush=True)


if __name__ == "__main__":
    main()
