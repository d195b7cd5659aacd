"""PageRank pulling and pushing, plain and cache-blocked (GraphCage's TOCAB), on graphs as generated and
degree-sorted: time per iteration (the algorithm's CUDA events over 20 fixed iterations, median of 3
after a warm-up) and the time to build the blocked pull layout and to reorder.

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


def per_iteration(G, direction, blocking):
    runs = [gravel.pagerank(G, max_iter=ITERATIONS, tol=0.0, direction=direction, blocking=blocking, device="cuda")
            for _ in range(4)]
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
            times = {f"{d}_{b}_s": per_iteration(H, d, None if b == "plain" else width)
                     for d in ("pull", "push") for b in ("plain", "blocked")}
            rows.append({"graph": label, "n": H.n, "nnz": H.nnz, "width": width, "build_s": build_s,
                         "reorder_s": reorder_s} | times)
            print(f"{label:>28}: " + ", ".join(f"{k[:-2]} {1e3 * v:7.3f} ms/it" for k, v in times.items())
                  + f"; width {width:,} of {H.n:,}, pull layout built in {build_s:.2f} s, card {card}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"date": datetime.date.today().isoformat(), "card": card,
                       "l2_bytes": runtime.props().l2_bytes, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
