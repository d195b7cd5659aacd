"""The CPU's triangle count with degree ranks (the oriented graph built first) and with id ranks
(the sorted rows read as they are), taking turns on each graph, and which one
:func:`gravel.algorithms.triangles.ranks_by_degree` picks: the figures behind DEGREE_RANK_MEAN
and DEGREE_RANK_SKEW (docs/tuning.md). Totals only; both counts checked equal.

    python benchmarks/tc_ranks.py urand:20 kron:20 grid:2048x2048 --repeat 3
"""

import importlib
import statistics
import time

from gravel.cli import open_graph
from gravel.records import script_parser, write_record

triangles = importlib.import_module("gravel.algorithms.triangles")
RANKS = {"degree": True, "id": False}


def timed_count(S, by_degree):
    """Seconds and total of one count of the simple graph S with the ranks forced."""
    chosen = triangles.ranks_by_degree
    triangles.ranks_by_degree = lambda degree: by_degree
    try:
        t = time.perf_counter()
        total = triangles.triangles(S, per_vertex=False, device="cpu").total
        return time.perf_counter() - t, total
    finally:
        triangles.ranks_by_degree = chosen


def main():
    p = script_parser(__doc__, repeat=3)
    p.add_argument("graphs", nargs="+", help="generator specs or files (counted symmetrised)")
    a = p.parse_args()
    rows = []
    for spec in a.graphs:
        G, name = open_graph(spec)
        S = G.simple_undirected()
        picked = "degree" if triangles.ranks_by_degree(S.out_degree) else "id"
        times = {rank: [] for rank in RANKS}
        totals = {rank: timed_count(S, by)[1] for rank, by in RANKS.items()}  # warm-up
        if totals["degree"] != totals["id"]:
            raise SystemExit(f"{name}: the two counts differ: {totals}")
        for _ in range(a.repeat):
            for rank, by in RANKS.items():
                times[rank].append(timed_count(S, by)[0])
        row = {"graph": name, "n": S.n, "arcs": S.nnz, "triangles": totals["id"], "picked": picked}
        row |= {f"{rank}_s": statistics.median(ts) for rank, ts in times.items()}
        row |= {f"{rank}_times_s": ts for rank, ts in times.items()}
        rows.append(row)
        print(
            f"{name}: degree ranks {row['degree_s'] * 1e3:,.1f} ms, id ranks "
            f"{row['id_s'] * 1e3:,.1f} ms; the rule picks {picked} ranks"
        )
    if a.json:
        write_record(a.json, "benchmarks/tc_ranks.py", rows)


if __name__ == "__main__":
    main()
