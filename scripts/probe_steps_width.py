"""A multi-step advance (BFS claims) over a whole grid from its centre, with 1 to 4 blocks per SM: the
time per step, CUDA events, median of 5.

    PYTHONPATH=src python scripts/probe_steps_width.py 4096
"""

import statistics
import sys

import cupy

import gravel
from gravel import operators as ops
from gravel.algorithms._common import Timer
from gravel.frontier import FrontierQueue

side = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
G = gravel.generate.grid(side, side)
dg = G.to("cuda")
s = side * (side // 2) + side // 2
for blocks in (1, 2, 4):
    times = []
    for _ in range(6):
        depth = cupy.full(G.n, -1, cupy.int32)
        depth[s] = 0
        queue = FrontierQueue(G.n, G.n, [s])
        with Timer("cuda") as t:
            steps = ops.advance_steps(dg, queue, "atomicCAS(&depth[dst], -1, step + 1) == -1",
                                      params={"depth": depth}, limit=G.n, blocks_per_sm=blocks)
        times.append(1e3 * t.seconds)
    ms = statistics.median(times[1:])
    assert int(depth.max()) == steps - 1 and bool((depth >= 0).all())
    print(f"grid {side}x{side}: {blocks} blocks/SM: {ms:.2f} ms, {steps} steps, {1e3 * ms / steps:.2f} us per step")
