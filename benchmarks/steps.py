"""Multi-step advance against its blocks per SM: a BFS (claims by compare-and-swap) over a whole
SIDE x SIDE grid from its centre, in ``advance_steps`` launches of 1 to STEPS_BLOCKS_PER_SM blocks
per SM. Time per step (CUDA events, median of --repeat runs after a warm-up): the grid-wide barrier
and a chain of dependent loads, what every thin level of a road graph or mesh costs. This is the
benchmark for THIN_BLOCKS_PER_SM (docs/tuning.md).

    python benchmarks/steps.py 4096 --json benchmarks/results/h200/steps.json
"""

import statistics

import cupy

import gravel
from gravel import operators as ops
from gravel.bench import machine, script_parser, write_record
from gravel.frontier import FrontierQueue
from gravel.operators.steps import STEPS_BLOCKS_PER_SM

CLAIM = "atomicCAS(&depth[dst], -1, step + 1) == -1"


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


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("sides", type=int, nargs="*", default=[4096], help="grid sides (default 4096)")
    a = p.parse_args()
    info = machine()
    rows = []
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
