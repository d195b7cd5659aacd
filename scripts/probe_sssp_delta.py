"""SSSP on the GPU against the bucket width: time (CUDA events, median of 5) and relaxation steps for
several multiples of the default delta.

    PYTHONPATH=src python scripts/probe_sssp_delta.py kron:22
"""

import statistics
import sys

import numpy as np

import gravel
from gravel.algorithms.sssp import default_delta

spec = sys.argv[1] if len(sys.argv) > 1 else "kron:22"
G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec), low=1, high=255, seed=0)
source = int(np.argmax(G.out_degree))
base = default_delta(G, G.weights)  # the CPU's width: the multiples show the GPU's
for f in (1, 4, 8, 16, 32, 64):
    runs = [gravel.sssp(G, source, delta=base * f, device="cuda") for _ in range(6)][1:]
    print(f"{spec} delta {base * f:8.1f} ({f:>5} x the CPU width): {1e3 * statistics.median(r.time_s for r in runs):8.2f} ms,"
          f" {runs[-1].iterations} steps")
