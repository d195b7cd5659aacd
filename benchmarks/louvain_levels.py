"""The CPU's Louvain time by level: each call of the local moves timed (a level's, and the pass
after the levels over the first graph), its vertices and moves, and the rest of the run
(aggregation, colourings, modularity), after a warm-up; with --repeat, the run of median time.
What bounds Louvain beside NetworKit's PLM (docs/performance.md).

    python benchmarks/louvain_levels.py kron:20 --repeat 1
"""

import importlib
import time

import gravel
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

louvain = importlib.import_module("gravel.algorithms.louvain")


def timed_run(S, seed):
    """Seconds of one CPU run on S, its modularity, and (vertices, seconds, moves) per call of the
    local moves, in order."""
    moves, plain = [], louvain._move

    def timed(graph, *args):
        t = time.perf_counter()
        moved = plain(graph, *args)
        moves.append((graph[0].size - 1, time.perf_counter() - t, int(moved)))
        return moved

    louvain._move = timed
    try:
        t = time.perf_counter()
        r = gravel.louvain_communities(S, seed=seed, device="cpu")
        return time.perf_counter() - t, r.modularity, moves
    finally:
        louvain._move = plain


def main():
    p = script_parser(__doc__, repeat=1)
    p.add_argument("graphs", nargs="+", help="generator specs or files (symmetrised, simple)")
    p.add_argument("--seed", type=int, default=1, help="Louvain's seed (default 1)")
    a = p.parse_args()
    rows = []
    for spec in a.graphs:
        S = open_graph(spec)[0].simple_undirected()
        gravel.louvain_communities(S, seed=a.seed, device="cpu")  # warm-up: compiles
        runs = sorted((timed_run(S, a.seed) for _ in range(a.repeat)), key=lambda run: run[0])
        total, modularity, moves = runs[len(runs) // 2]  # the median run, with its levels
        rows.append(
            {
                "graph": spec,
                "total_s": total,
                "modularity": modularity,
                "moves": [{"vertices": n, "seconds": s, "moved": m} for n, s, m in moves],
                "rest_s": total - sum(s for _, s, _ in moves),
            }
        )
        print(f"{spec}: {total:.2f} s, modularity {modularity:.5f}")
        for n, s, m in moves:
            print(f"  moves over {n:>10,} vertices: {s:6.2f} s, {m:>9,} moved")
        print(f"  the rest: {rows[-1]['rest_s']:.2f} s")
    if a.json:
        write_record(a.json, "benchmarks/louvain_levels.py", rows)


if __name__ == "__main__":
    main()
