"""PageRank's pull sweep, plain and cache-blocked (GraphCage's TOCAB), on graphs as generated and
degree-sorted: time per iteration (the algorithm's CUDA events over 20 fixed iterations, median of 3
after a warm-up) and the time to build the blocked layout and to reorder.

    PYTHONPATH=src python benchmarks/blocking.py kron:24 kron:25 --json out.json
"""

import argparse
import datetime
import json
import statistics
import time

import cupy

import gravel
from gravel.backends.cuda import runtime
from gravel.blocking import block_width, blocked_pull
from gravel.reorder import reorder

ITERATIONS = 20


def per_iteration(G, blocking):
    runs = [gravel.pagerank(G, max_iter=ITERATIONS, tol=0.0, blocking=blocking, device="cuda") for _ in range(4)]
    return statistics.median(r.time_s for r in runs[1:]) / ITERATIONS


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graphs", nargs="+")
    p.add_argument("--json")
    a = p.parse_args()
    width = block_width(4)
    card = runtime.props().name
    rows = []
    for spec in a.graphs:
        G = gravel.generate.from_spec(spec)
        t = time.perf_counter()
        S = reorder(G, "degree")
        reorder_s = time.perf_counter() - t
        for label, H in ((spec, G), (f"{spec} degree-sorted", S)):
            dg = H.to("cuda")
            t = time.perf_counter()
            blocked_pull(*dg.csc()[:2], dg.n, width)
            cupy.cuda.Device().synchronize()
            build_s = time.perf_counter() - t
            plain, blocked = per_iteration(H, None), per_iteration(H, width)
            rows.append({"graph": label, "n": H.n, "nnz": H.nnz, "width": width, "plain_s": plain,
                         "blocked_s": blocked, "build_s": build_s, "reorder_s": reorder_s})
            print(f"{label:>28}: plain {1e3 * plain:7.3f} ms/it, blocked {1e3 * blocked:7.3f} ms/it "
                  f"({plain / blocked:.2f}x), width {width:,} of {H.n:,}, layout built in {build_s:.2f} s, "
                  f"card {card}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"date": datetime.date.today().isoformat(), "card": card,
                       "l2_bytes": runtime.props().l2_bytes, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
