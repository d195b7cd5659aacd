"""Where a GPU primitive's time goes: every gravel kernel launch is bracketed by CUDA events and its time
summed by kernel name; the rest of the run (CuPy's own kernels, host round trips, Python) is the
remainder. Launch-by-launch events add a little time of their own.

    PYTHONPATH=src python scripts/probe_kernels.py kron:22 bfs pagerank cc
"""

import collections
import sys

import cupy
import numpy as np

import gravel
from gravel.backends.cuda import runtime

spec, algos = sys.argv[1], sys.argv[2:]
G = gravel.generate.from_spec(spec)
if "sssp" in algos:
    G = gravel.transform.add_random_weights(G, low=1, high=255, seed=0)
source = int(np.argmax(G.out_degree))
calls = {"bfs": lambda: gravel.bfs(G, source, device="cuda"),
         "sssp": lambda: gravel.sssp(G, source, device="cuda"),
         "pagerank": lambda: gravel.pagerank(G, max_iter=20, tol=0.0, device="cuda"),
         "cc": lambda: gravel.connected_components(G, device="cuda"),
         "bc": lambda: gravel.betweenness_centrality(G, sources=[source], device="cuda")}
records = []
plain = runtime.Launcher.__call__


def timed(self, grid, block, args, shared_mem=0):
    a, b = cupy.cuda.Event(), cupy.cuda.Event()
    a.record()
    plain(self, grid, block, args, shared_mem)
    b.record()
    records.append((self.name.split("<")[0], a, b))


for algo in algos:
    calls[algo]()  # warm-up: compilation, lazy layouts
    runtime.Launcher.__call__ = timed
    records.clear()
    res = calls[algo]()
    runtime.Launcher.__call__ = plain
    cupy.cuda.Device().synchronize()
    per = collections.defaultdict(lambda: [0, 0.0])
    for name, a, b in records:
        per[name][0] += 1
        per[name][1] += cupy.cuda.get_elapsed_time(a, b)
    total = 1e3 * res.time_s
    print(f"{spec} {algo}: {total:.3f} ms in all, {res.iterations} iterations")
    for name, (count, ms) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        print(f"    {name:<40} {count:>6} launches {ms:9.3f} ms")
    print(f"    {'(other: CuPy kernels, syncs, Python)':<40} {'':>6}          {total - sum(v[1] for v in per.values()):9.3f} ms")
