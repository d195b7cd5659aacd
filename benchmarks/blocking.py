"""PageRank pulling and pushing, plain and cache-blocked (GraphCage's TOCAB, and the pull staged in
shared memory), on graphs as generated and degree-sorted (on the device): time per iteration (the
algorithm's CUDA events over 20 fixed iterations, median of 3 after a warm-up that also builds the
blocked layout; gravel.bench.pagerank_per_iteration), its ratio to the memory floor (`gravel
bench`'s PageRank floor over a device copy's bandwidth, measured here), the time to build each
blocked layout and to reorder (after a warm-up on a small graph that compiles their kernels), and
the iterations after which the staged layout has paid for its build. "blocked" blocks by a quarter
of the L2, "staged" by the shared memory of a CTA. `--widths` adds blocked pulls of other block
widths (vertices).

    PYTHONPATH=src python benchmarks/blocking.py kron:24 kron:25 --widths 1966080 49152 --json
    out.json
"""

import argparse
import datetime
import json

from gravel.algorithms.catalog import CATALOG
from gravel.backends.cuda import runtime
from gravel.bench import copy_bandwidth, pagerank_per_iteration, wall_seconds
from gravel.cli import open_graph
from gravel.layouts.blocked import block_width, pull_layout, push_layout
from gravel.layouts.staged import STAGED_TILE_BYTES, shared_width, staged_layout
from gravel.reorder import reorder

ITERATIONS = 20


def per_iteration(G, direction, blocking):
    return pagerank_per_iteration(G, ITERATIONS, direction=direction, blocking=blocking)


def build_layouts(dg, width, staged):
    """Seconds to build each blocked layout of the DeviceGraph `dg`."""
    return {
        "pull_build_s": wall_seconds(lambda: pull_layout(dg, width)),
        "push_build_s": wall_seconds(lambda: push_layout(dg, width)),
        "staged_build_s": wall_seconds(lambda: staged_layout(dg, staged, STAGED_TILE_BYTES // 4)),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graphs", nargs="+")
    p.add_argument(
        "--widths", type=int, nargs="*", default=[], help="more block widths for the pull"
    )
    p.add_argument("--json")
    a = p.parse_args()
    width, staged = block_width(4), shared_width(4)
    card = runtime.props().name
    bandwidth = copy_bandwidth("cuda")
    rows = []
    warm, _ = open_graph(
        "kron:12"
    )  # compiles the layouts' and the sort's kernels before any is timed
    warm.to("cuda")
    build_layouts(reorder(warm, "degree").to("cuda"), width, staged)
    for spec in a.graphs:
        G, _ = open_graph(spec)
        G.to("cuda")
        holder = {}
        reorder_s = wall_seconds(lambda: holder.setdefault("S", reorder(G, "degree")))
        for label, H in ((spec, G), (f"{spec} degree-sorted", holder["S"])):
            dg = H.to("cuda")
            floor_s = CATALOG["pagerank"].floor_bytes(H) / bandwidth
            build = build_layouts(dg, width, staged)
            times = {
                "pull_plain_s": per_iteration(H, "pull", None),
                "pull_blocked_s": per_iteration(H, "pull", width),
                "pull_staged_s": per_iteration(H, "pull", staged),
                "push_plain_s": per_iteration(H, "push", None),
                "push_blocked_s": per_iteration(H, "push", width),
            }
            times |= {f"pull_blocked_{w}_s": per_iteration(H, "pull", w) for w in a.widths}
            layout_rows = pull_layout(dg, width).rows
            dg.clear_cache()  # the layouts of one graph at a time
            gain = times["pull_plain_s"] - times["pull_staged_s"]
            pays = build["staged_build_s"] / gain if gain > 0 else None
            rows.append(
                {
                    "graph": label,
                    "n": H.n,
                    "nnz": H.nnz,
                    "width": width,
                    "staged_width": staged,
                    "pull_rows": layout_rows,
                    "reorder_s": reorder_s,
                    "floor_s": floor_s,
                    "staged_pays_after": pays,
                }
                | build
                | times
            )
            print(
                f"{label:>24}: "
                + ", ".join(
                    f"{k[:-2]} {1e3 * v:7.3f} ms/it ({v / floor_s:4.1f}x floor)"
                    for k, v in times.items()
                )
                + f"; widths {width:,} and {staged:,} (staged) of {H.n:,}; layouts built in "
                f"{build['pull_build_s']:.2f} s (pull), {build['push_build_s']:.2f} s (push), "
                f"{build['staged_build_s']:.2f} s (staged), the staged one "
                f"{'never pays' if pays is None else f'pays after {pays:.0f} iterations'}; "
                f"degree sort "
                f"{reorder_s:.2f} s; {card}"
            )
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(
                {
                    "date": datetime.date.today().isoformat(),
                    "card": card,
                    "bandwidth_Bps": bandwidth,
                    "l2_bytes": runtime.props().l2_bytes,
                    "rows": rows,
                },
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()
