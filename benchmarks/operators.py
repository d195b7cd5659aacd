"""Advance benchmark: every load-balancing strategy on a Kronecker and a grid graph, frontiers of
0.1 %, 10 % and 100 % of the vertices.

    PYTHONPATH=src python benchmarks/operators.py --scale 24 --grid 4096 --json out.json

The functor reads one 4-byte value per destination (``x[dst] < 0``, never true; the atomic behind it
never runs but keeps the compiler from deleting the loads). The memory floor moves every 4-byte
neighbour id, each gathered value once (the rest may hit L2), and each frontier item's id and
offsets pair. Bandwidth is a device-to-device copy measured in the same run (gravel bench's). Times:
CUDA events, one warm-up, median of --repeat runs."""

import argparse
import datetime
import json
import statistics

import cupy
import numpy as np

import gravel
from gravel import operators as ops
from gravel.backends.cuda import runtime
from gravel.bench import copy_bandwidth, run_times
from gravel.frontier import Frontier
from gravel.operators import LoadBalance
from gravel.reorder import packing_factor, reorder

STRATEGIES = [lb for lb in LoadBalance if lb is not LoadBalance.MERGE_PATH_CULL] + [
    "auto"
]  # no bitmap
FRACTIONS = (0.001, 0.01, 0.1, 1.0)
FUNCTOR = "x[dst] < 0.0f && (atomicAdd(&sink[0], 1), true)"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--grid", type=int, default=4096)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--json")
    a = p.parse_args()
    bw = copy_bandwidth("cuda")
    kron = gravel.generate.kronecker(a.scale, 16)
    # the same graph with hubs first (reorder="auto" hub-sorts it: its packing factor is above 4)
    graphs = [
        (f"kron:{a.scale}:16", kron),
        (f"kron:{a.scale}:16 degree-sorted", reorder(kron, "degree")),
        (f"grid:{a.grid}x{a.grid}", gravel.generate.grid(a.grid, a.grid)),
    ]
    print(f"kron packing factor {packing_factor(kron):.1f}")
    rows = []
    rng = np.random.default_rng(0)
    for name, G in graphs:
        dg = G.to("cuda")
        x = cupy.ones(G.n, cupy.float32)
        sink = cupy.zeros(1, cupy.int32)
        for frac in FRACTIONS:
            k = max(1, int(frac * G.n))
            ids = (
                np.arange(G.n, dtype=np.int32)
                if frac == 1.0
                else np.sort(rng.choice(G.n, k, replace=False)).astype(np.int32)
            )
            f = Frontier.from_ids(G.n, ids)
            edges = int(G.out_degree[ids].sum())
            # at least: every neighbour id, each gathered value once, offsets and id per item
            floor = (4 * edges + 4 * min(edges, G.n) + 20 * k) / bw
            cells = {}
            for lb in STRATEGIES:
                t = statistics.median(
                    run_times(
                        lambda: ops.advance(
                            dg, f, FUNCTOR, params={"x": x, "sink": sink}, output=None, strategy=lb
                        ),
                        a.repeat,
                        "cuda",
                    )
                )
                label = lb if isinstance(lb, str) else lb.value
                cells[label] = t
                rows.append(
                    {
                        "graph": name,
                        "fraction": frac,
                        "strategy": label,
                        "time_s": t,
                        "gteps": edges / t / 1e9,
                        "floor_fraction": floor / t,
                        "edges": edges,
                    }
                )
            assert int(sink[0]) == 0
            best = min(v for s, v in cells.items() if s != "auto")
            print(
                f"{name:>16} {frac:>6.1%} "
                + " ".join(f"{s}={1e3 * v:.3f}ms" for s, v in cells.items())
                + f"  best floor {floor / best:.0%}  auto/best {cells['auto'] / best:.2f}"
            )
    card = runtime.props().name
    out = {
        "date": datetime.date.today().isoformat(),
        "card": card,
        "bandwidth_Bps": bw,
        "rows": rows,
    }
    print(f"card {card}, copy bandwidth {bw / 1e12:.2f} TB/s")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
