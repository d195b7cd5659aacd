"""Should BFS and BC use multi-step launches on graphs with hubs, now that a step spreads long
lists over every block? Each primitive as the library runs it (operators.steps_fit gating multi-step
launches by the largest degree) and with the gate open, CUDA-event times, median of 5 after a warm-up.

    PYTHONPATH=src python scripts/probe_steps_gate.py kron:22
"""

import statistics
import sys

import numpy as np

import gravel
from gravel import operators as ops
from gravel.cli import open_graph


def median_ms(fn):
    fn()
    return 1e3 * statistics.median(fn().time_s for _ in range(5))


def main():
    gated = ops.steps_fit
    for spec in sys.argv[1:]:
        G, _ = open_graph(spec)
        G = gravel.transform.add_random_weights(G, 1, 255, seed=1) if G.weights is None else G
        s = int(np.argmax(G.out_degree))
        runs = {"bfs": lambda: gravel.bfs(G, s, device="cuda"),
                "sssp": lambda: gravel.sssp(G, s, device="cuda"),
                "bc (4 sources)": lambda: gravel.betweenness_centrality(G, k=4, seed=1, device="cuda")}
        for name, fn in runs.items():
            ops.steps_fit = gated
            as_is = median_ms(fn)
            ops.steps_fit = lambda G: True
            opened = median_ms(fn)
            print(f"{spec} {name:15s} gated {as_is:8.2f} ms   always multi-step {opened:8.2f} ms", flush=True)
        ops.steps_fit = gated


if __name__ == "__main__":
    main()
