"""Multi-step advance against its blocks per SM: a BFS (claims by compare-and-swap) over a whole
SIDE x SIDE grid from its centre, in ``advance_steps`` launches of 1 to STEPS_BLOCKS_PER_SM blocks
per SM. Time per step (CUDA events, median of --repeat runs after a warm-up): the grid-wide barrier
and a chain of dependent loads, what every thin level of a road graph or mesh costs. This is the
benchmark for THIN_BLOCKS_PER_SM (docs/tuning.md). Beside each, the floor of a step: a cooperative
launch of the same blocks doing nothing but grid-wide barriers, and barriers with one counter
added to and read back per block, as a step's output count is.

    python benchmarks/steps.py 4096 --json benchmarks/results/h200/steps.json
"""

import statistics

import cupy

import gravel
from gravel import operators as ops
from gravel.frontier import FrontierQueue
from gravel.operators.steps import STEPS_BLOCKS_PER_SM
from gravel.records import machine, script_parser, write_record

CLAIM = "atomicCAS(&depth[dst], -1, step + 1) == -1"
BARRIERS = r"""
#include <cooperative_groups.h>
extern "C" __global__ void barriers(int steps, int counted, unsigned long long* counts) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    unsigned long long seen = 0;
    for (int s = 0; s < steps; ++s) {
        if (counted && threadIdx.x == 0) atomicAdd(&counts[s % 3], 1ULL);
        grid.sync();
        if (counted) seen += *(volatile unsigned long long*)&counts[s % 3];
    }
    if (seen == 1) counts[0] = 0;  // keeps the reads
}
"""


def bfs_steps(dg, n, source, blocks_per_sm):
    """(ms, steps) of one whole-graph BFS in multi-step launches; the depths checked."""
    depth = cupy.full(n, -1, cupy.int32)
    depth[source] = 0
    queue = FrontierQueue(n, n, [source])
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    steps = ops.advance_steps(
        dg, queue, CLAIM, params={"depth": depth}, limit=n, blocks_per_sm=blocks_per_sm
    )
    stop.record()
    stop.synchronize()
    if int(depth.max()) != steps - 1 or not bool((depth >= 0).all()):
        raise AssertionError(f"{blocks_per_sm} blocks per SM: the depths are wrong")
    return cupy.cuda.get_elapsed_time(start, stop), steps


def barrier_us(blocks_per_sm, counted, steps=10000):
    """Microseconds per grid-wide barrier of a cooperative launch of blocks_per_sm blocks of
    STEPS_BLOCK threads per SM (median of 5 launches after a warm-up)."""
    from gravel.operators.steps import STEPS_BLOCK

    k = cupy.RawModule(code=BARRIERS, enable_cooperative_groups=True).get_function("barriers")
    grid = blocks_per_sm * cupy.cuda.Device().attributes["MultiProcessorCount"]
    counts = cupy.zeros(3, cupy.uint64)
    times = []
    for _ in range(6):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        k((grid,), (STEPS_BLOCK,), (cupy.int32(steps), cupy.int32(counted), counts))
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return 1e3 * statistics.median(times[1:]) / steps


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("sides", type=int, nargs="*", default=[4096], help="grid sides (default 4096)")
    a = p.parse_args()
    info = machine()
    rows = []
    for blocks in range(1, STEPS_BLOCKS_PER_SM + 1):
        for counted in (0, 1):
            us = barrier_us(blocks, counted)
            what = "barriers, a counter read" if counted else "barriers alone"
            rows.append({"graph": what, "blocks_per_sm": blocks, "us_per_step": us})
            print(f"{what}, {blocks} blocks per SM: {us:.2f} us per step", flush=True)
    for side in a.sides:
        G = gravel.generate.grid(side, side)
        dg = G.to("cuda")
        source = side * (side // 2) + side // 2
        for blocks in range(1, STEPS_BLOCKS_PER_SM + 1):
            runs = [bfs_steps(dg, G.n, source, blocks) for _ in range(a.repeat + 1)][1:]
            ms, steps = statistics.median(r[0] for r in runs), runs[-1][1]
            rows.append(
                {
                    "graph": f"grid:{side}x{side}",
                    "blocks_per_sm": blocks,
                    "ms": ms,
                    "steps": steps,
                    "us_per_step": 1e3 * ms / steps,
                }
            )
            print(
                f"grid {side}x{side}, {blocks} blocks per SM: {ms:8.2f} ms, {steps} steps, "
                f"{1e3 * ms / steps:.2f} us per step ({info.get('gpu')})",
                flush=True,
            )
    if a.json:
        write_record(a.json, "benchmarks/steps.py", rows)


if __name__ == "__main__":
    main()
