"""What does one small advance cost, and where? BFS's first step on a graph (the claim functor from
its highest-degree vertex, then from its first 1,000 neighbours): wall and CUDA-event time of the
whole call, of its degree scan and of each launch alone, then a cProfile of 50 calls.

    PYTHONPATH=src python scripts/probe_advance_call.py kron:22
"""

import cProfile
import pstats
import sys
import time

import cupy
import numpy as np

from gravel import operators as ops
from gravel.cli import open_graph
from gravel.frontier import Frontier

CLAIM = "atomicCAS(&parent[dst], -1, src) == -1 && (depth[dst] = level + step, true)"


def timed(label, fn, repeat=20):
    fn()
    cupy.cuda.Device().synchronize()
    walls, gpus = [], []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        t0 = time.perf_counter()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        walls.append(1e3 * (time.perf_counter() - t0))
        gpus.append(cupy.cuda.get_elapsed_time(start, stop))
    print(f"  {label:40s} wall {np.median(walls):7.3f} ms  events {np.median(gpus):7.3f} ms")


def main():
    for spec in sys.argv[1:]:
        G, _ = open_graph(spec)
        dg = G.to("cuda")
        source = int(np.argmax(G.out_degree))
        hub = Frontier.from_ids(G.n, [source])
        few = Frontier.from_ids(G.n, G.indices[G.offsets[source]:G.offsets[source] + 1000])
        parent = cupy.full(G.n, -1, cupy.int32)
        depth = cupy.full(G.n, -1, cupy.int32)
        params = {"parent": parent, "depth": depth, "level": np.int32(1)}

        def step(front):
            parent.fill(-1)
            return ops.advance(dg, front, CLAIM, params=params, capacity=G.n)

        print(spec)
        timed("fill parent (reference)", lambda: parent.fill(-1))
        timed("advance from the hub", lambda: step(hub))
        timed("advance from 1,000 vertices", lambda: step(few))
        timed("degree_scan (hub)", lambda: int(ops.degree_scan(dg, hub.ids)[-1]))
        timed("cupy.empty(n)", lambda: cupy.empty(G.n, cupy.int32))
        deg = cupy.asarray(G.out_degree[[source]].astype(np.int64))
        scan = cupy.zeros(2, cupy.int64)
        timed("cupy.cumsum of 1 item", lambda: cupy.cumsum(deg, out=scan[1:]))
        timed("gather the degree", lambda: dg.offsets[hub.ids + 1] - dg.offsets[hub.ids])
        timed("cupy.zeros(2)", lambda: cupy.zeros(2, cupy.int64))
        timed("read one value", lambda: int(scan[-1]))
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(50):
            step(hub)
        cupy.cuda.Device().synchronize()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
