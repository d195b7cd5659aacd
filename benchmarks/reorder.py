"""Where reordering pays on the GPU: for each graph, its packing factor (the thesis's Algorithm 3), then
PageRank per iteration (pull, 20 fixed iterations, median of 3 after a warm-up) and BFS from the
highest-degree vertex, as given and after each reordering, the reordering's own time (on the device,
the graph already there), and the iterations after which it has paid for itself. The packing factor
below which no reordering gains is the GPU's threshold for reorder="auto".

    PYTHONPATH=src python benchmarks/reorder.py kron:22 urand:22 grid:2048x2048 ../shared/datasets/X --json out.json
"""

import argparse
import datetime
import json
import statistics
import time

import cupy
import numpy as np

import gravel
from gravel.backends.cuda import runtime
from gravel.cli import open_graph
from gravel.reorder import ORDERS, packing_factor, reorder
from gravel.transform import permute_csr

METHODS = ("hub_sort", "degree", "dbg")
ITERATIONS = 20


def pagerank_per_iteration(G):
    runs = [gravel.pagerank(G, max_iter=ITERATIONS, tol=0.0, device="cuda") for _ in range(4)]
    return statistics.median(r.time_s for r in runs[1:]) / ITERATIONS


def bfs_time(G, source):
    return statistics.median(gravel.bfs(G, source, device="cuda").time_s for _ in range(4))


def seconds(fn):
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    fn()
    cupy.cuda.Device().synchronize()
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graphs", nargs="+")
    p.add_argument("--undirected", action="store_true", help="read edge lists as undirected")
    p.add_argument("--json")
    a = p.parse_args()
    card = runtime.props().name
    for method in METHODS:  # compile CuPy's kernels outside the timings
        W = gravel.generate.kronecker(10)
        W.to("cuda")
        reorder(W, method)
    rows = []
    for spec in a.graphs:
        G, name = open_graph(spec, undirected=a.undirected)
        source = int(np.argmax(G.out_degree))
        pf = packing_factor(G)
        base_pr, base_bfs = pagerank_per_iteration(G), bfs_time(G, source)
        for method in METHODS:
            D = gravel.Graph(G.offsets, G.indices, G.weights, directed=G.directed)
            D.to("cuda")  # reordered where the graph lives
            holder = {}
            reorder_s = seconds(lambda: holder.setdefault("H", reorder(D, method)))
            H = holder["H"]
            # where the time goes: computing the order, permuting the CSR on the device (the rest is the
            # copy back to the host and the host Graph's checks)
            order_s = seconds(lambda: ORDERS[method](D))
            perm = ORDERS[method](D)
            permute_s = seconds(lambda: permute_csr(D._device.offsets, D._device.indices, None, perm))
            pr, bfs = pagerank_per_iteration(H), bfs_time(H, source)
            gain = base_pr - pr
            breakeven = reorder_s / gain if gain > 0 else None
            rows.append({"graph": name, "packing_factor": pf, "method": method, "reorder_s": reorder_s,
                         "order_s": order_s, "permute_s": permute_s, "pagerank_s": base_pr,
                         "pagerank_reordered_s": pr, "bfs_s": base_bfs, "bfs_reordered_s": bfs,
                         "pagerank_breakeven_iterations": breakeven})
            print(f"{name:>24} PF {pf:6.2f} {method:>9}: PageRank {1e3 * base_pr:7.3f} -> {1e3 * pr:7.3f} ms/it, "
                  f"BFS {1e3 * base_bfs:7.3f} -> {1e3 * bfs:7.3f} ms, reordering {reorder_s:.3f} s "
                  f"(order {order_s:.3f}, permute {permute_s:.3f})"
                  + (f", pays after {breakeven:.0f} iterations" if breakeven else ", never pays") + f" ({card})")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"date": datetime.date.today().isoformat(), "card": card, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
