"""Where does a GPU BFS spend its time? Each operator call of one BFS (after a warm-up run) with its
frontier sizes, GPU time (CUDA events) and host time, then the run's total: the gap between the two
sums is host work and synchronisation.

    PYTHONPATH=src python scripts/probe_bfs_levels.py kron:22
"""

import sys
import time

import cupy
import numpy as np

import gravel
from gravel import operators as ops
from gravel.cli import open_graph

CALLS = []


def timed(name, fn):
    def wrapper(graph, frontier, *args, **kwargs):
        before = len(frontier.last if hasattr(frontier, "last") else frontier)
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        t0 = time.perf_counter()
        start.record()
        out = fn(graph, frontier, *args, **kwargs)
        stop.record()
        host = time.perf_counter() - t0
        stop.synchronize()
        after = len(out) if hasattr(out, "__len__") else out
        CALLS.append((name, before, after, cupy.cuda.get_elapsed_time(start, stop), 1e3 * host))
        return out
    return wrapper


def main():
    for spec in sys.argv[1:]:
        G, _ = open_graph(spec)
        source = int(np.argmax(G.out_degree))
        gravel.bfs(G, source, device="cuda")
        plain = {name: getattr(ops, name) for name in ("advance", "advance_pull", "advance_steps")}
        for name, fn in plain.items():
            setattr(ops, name, timed(name, fn))
        CALLS.clear()
        res = gravel.bfs(G, source, device="cuda")
        for name, fn in plain.items():
            setattr(ops, name, fn)
        print(f"{spec}: BFS {1e3 * res.time_s:.3f} ms (with the probe's syncs), {res.iterations} levels")
        for name, before, after, gpu, host in CALLS:
            print(f"  {name:14s} {before:>10,} -> {after:>10,}  gpu {gpu:7.3f} ms  host {host:7.3f} ms")
        print(f"  sum of GPU times {sum(c[3] for c in CALLS):.3f} ms")
        times = [1e3 * gravel.bfs(G, source, device="cuda").time_s for _ in range(5)]
        print(f"  unprobed BFS: median {sorted(times)[2]:.3f} ms")


if __name__ == "__main__":
    main()
