"""Where reordering pays on the GPU. For each graph: its packing factor (the thesis's Algorithm 3),
then PageRank per iteration (20 fixed iterations, median of 3 after a warm-up) and BFS from the
highest-degree vertex, as given and after each reordering; the reordering's own time on the device
(the graph already there; split into computing the order and permuting the CSR); the iterations
after which it has paid for itself; and end to end, whole runs of RUN_ITERATIONS PageRank iterations
(NetworkX's max_iter: its tolerance stops large graphs after one) on a fresh device copy, setup
included (the sweep's lazily built bins, the reordering), as given and reordered the way auto would
(auto_method: a hub sort, or a degree sort where the sweeps stage; interleaved, median of five), and
reorder="auto": its decision, told the run's sweeps (median of three), plus the run it chose.
`--scramble F...` adds, for the first graph, copies that are ordered that way and then have a
fraction F of their ids shuffled: graphs between a packing factor of 1 and the scrambled original's,
to find where the gain begins.

    PYTHONPATH=src python benchmarks/reorder.py kron:22 urand:22 grid:2048x2048 --scramble 0.05 0.2
    --json out.json
"""

import argparse
import datetime
import json
import statistics

import numpy as np

import gravel
from gravel.backends.cuda import runtime
from gravel.bench import pagerank_per_iteration, wall_seconds
from gravel.cli import open_graph
from gravel.reorder import (
    auto_method,
    packing_factor,
    permutation,
    reorder,
    worth_reordering,
)
from gravel.transform import permute_csr, relabel

METHODS = ("hub_sort", "degree", "dbg")
ITERATIONS = 20
RUN_ITERATIONS = 100


def bfs_time(G, source):
    return statistics.median(gravel.bfs(G, source, device="cuda").time_s for _ in range(4))


def scrambled(G, method, fraction, seed=0):
    """G ordered by `method` (a plain graph, not transparent), then a random `fraction` of its ids
    shuffled."""
    S = relabel(G, permutation(G, method))
    rng = np.random.default_rng(seed)
    chosen = rng.choice(S.n, int(fraction * S.n), replace=False)
    perm = np.arange(S.n, dtype=np.int32)
    perm[chosen] = rng.permutation(chosen)
    return relabel(S, perm)


def whole_runs(G, method):
    """Wall seconds of a whole run on a fresh device copy of G (the copy not timed): as given, and
    reordered by `method` first, then RUN_ITERATIONS PageRank iterations. The two interleaved,
    median of 5 after a warm-up of each that compiles what they need."""

    def run(D, method):
        gravel.pagerank(
            D if method is None else reorder(D, method),
            max_iter=RUN_ITERATIONS,
            tol=0.0,
            device="cuda",
        )

    times = {None: [], method: []}
    for _ in range(6):
        for method, samples in times.items():
            D = on_device(G)
            samples.append(wall_seconds(lambda: run(D, method)))
    return tuple(statistics.median(samples[1:]) for samples in times.values())


def decision(G):
    """(seconds, choice) of reorder="auto"'s decision for the run on a fresh device copy, median of
    3 after a warm-up. Its lazily built state (the sweep's bins) is reused by the run it chose,
    which builds it again here: auto's time comes out as an upper bound."""
    seconds, choice = [], []
    for _ in range(4):
        D = on_device(G)
        seconds.append(
            wall_seconds(lambda: choice.append(worth_reordering(D, sweeps=RUN_ITERATIONS)))
        )
    return statistics.median(seconds[1:]), choice[-1]


def on_device(G):
    """A fresh copy of G with only its device arrays warm (no relabelling state)."""
    D = gravel.Graph(G.offsets, G.indices, G.weights, directed=G.directed)
    D.to("cuda")
    return D


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graphs", nargs="+")
    p.add_argument("--undirected", action="store_true", help="read edge lists as undirected")
    p.add_argument("--scramble", type=float, nargs="*", default=[])
    p.add_argument("--json")
    a = p.parse_args()
    card = runtime.props().name
    for method in METHODS:  # compile CuPy's kernels outside the timings
        reorder(on_device(gravel.generate.kronecker(10)), method)
    graphs = [open_graph(spec, undirected=a.undirected) for spec in a.graphs]
    if a.scramble:
        first, name = graphs[0]
        method = auto_method(on_device(first))
        graphs += [
            (scrambled(first, method, f), f"{name} {method}, {f:.0%} scrambled") for f in a.scramble
        ]
    rows = []
    for G, name in graphs:
        source = int(np.argmax(G.out_degree))
        D = on_device(G)
        pf, chosen_method = packing_factor(D), auto_method(D)
        base_pr, base_bfs = pagerank_per_iteration(D, ITERATIONS), bfs_time(D, source)
        for method in METHODS:
            D = on_device(G)
            holder = {}
            reorder_s = wall_seconds(lambda: holder.setdefault("H", reorder(D, method)))
            H = holder["H"]
            order_s = wall_seconds(lambda: permutation(D, method))
            perm = permutation(D, method)
            dg = D.device_graph
            permute_s = wall_seconds(lambda: permute_csr(dg.offsets, dg.indices, None, perm))
            pr, bfs = pagerank_per_iteration(H, ITERATIONS), bfs_time(H, source)
            gain = base_pr - pr
            if method == chosen_method:
                plain_s, reordered_s = whole_runs(G, method)
                decide_s, chosen = decision(G)
                auto_s = decide_s + (reordered_s if chosen else plain_s)
            rows.append(
                {
                    "graph": name,
                    "packing_factor": pf,
                    "method": method,
                    "reorder_s": reorder_s,
                    "order_s": order_s,
                    "permute_s": permute_s,
                    "pagerank_s": base_pr,
                    "pagerank_reordered_s": pr,
                    "pagerank_iterations": RUN_ITERATIONS,
                    "bfs_s": base_bfs,
                    "bfs_reordered_s": bfs,
                    "breakeven_iterations": reorder_s / gain if gain > 0 else None,
                    **(
                        {
                            "end_to_end_plain_s": plain_s,
                            "end_to_end_reordered_s": reordered_s,
                            "end_to_end_auto_s": auto_s,
                            "auto_decision_s": decide_s,
                            "auto_reorders": chosen,
                        }
                        if method == chosen_method
                        else {}
                    ),
                }
            )
            print(
                f"{name:>34} PF {pf:5.2f} {method:>8}: "
                f"PageRank {1e3 * base_pr:6.3f} -> {1e3 * pr:6.3f} ms/it, "
                f"BFS {1e3 * base_bfs:7.3f} -> {1e3 * bfs:7.3f} ms, reordering "
                f"{1e3 * reorder_s:6.1f} ms "
                f"(order {1e3 * order_s:.1f}, permute {1e3 * permute_s:.1f})"
                + (
                    f", pays after {reorder_s / gain:.0f} iterations"
                    if gain > 0
                    else ", never pays"
                )
                + (
                    f"; {RUN_ITERATIONS} iterations end to end "
                    f"{1e3 * plain_s:.1f} / {1e3 * reordered_s:.1f} ms, "
                    f"auto {1e3 * auto_s:.1f} ms"
                    if method == chosen_method
                    else ""
                )
                + f" ({card})"
            )
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(
                {"date": datetime.date.today().isoformat(), "card": card, "rows": rows},
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()
