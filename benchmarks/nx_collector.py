"""What Python's garbage collector costs a backend call that builds a large result: NetworkX calls
through ``backend="gravel"`` (the conversion cached) with gravel's collector pause as shipped
(:func:`gravel.interop.collector_paused` around every backend function) and with the pause taken
out, taking turns, beside the NetworkX graphs the caller holds (the four that
benchmarks/nx_calls.py builds: a user's program holds one or more, and the collector's passes of
its oldest generation walk them all). Per call and mode: the median and the slowest of --repeat
calls (passes of the oldest generation come every few calls, so the slowest shows them).

    python benchmarks/nx_collector.py kron:17 --calls single_source_shortest_path bfs_tree
"""

import contextlib
import gc
import statistics
import sys
import time
from pathlib import Path

import networkx as nx

import gravel.nx._algorithm as registry
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

sys.path.insert(0, str(Path(__file__).parent))
from nx_calls import CALLS, Inputs  # noqa: E402

nx.config.warnings_to_ignore.add("cache")
MODES = {"paused": registry.collector_paused, "unpaused": contextlib.nullcontext}


def main():
    p = script_parser(__doc__, repeat=8)
    p.add_argument("graph", help="a generator spec or a file (read as undirected)")
    p.add_argument("--calls", nargs="+", default=["single_source_shortest_path"], choices=CALLS)
    a = p.parse_args()
    G, name = open_graph(a.graph, undirected=True)
    inputs = Inputs(G)
    for kind in ("undirected", "plain", "directed", "dag"):
        inputs.graph(kind)  # every graph held, as the docs' figure has them
    print(f"{name}: {G.n:,} nodes, {G.m // 2:,} edges; gc enabled: {gc.isenabled()}")
    rows = []
    for call in a.calls:
        c = CALLS[call]
        H = inputs.graph(c.kind)
        c.run(inputs, H, backend="gravel")  # converts and compiles: not timed
        times = {mode: [] for mode in MODES}
        for _ in range(a.repeat):
            for mode, pause in MODES.items():
                registry.collector_paused = pause  # what collector_paused_calls enters
                t = time.perf_counter()
                c.run(inputs, H, backend="gravel")
                times[mode].append(time.perf_counter() - t)
        registry.collector_paused = MODES["paused"]
        for mode, ts in times.items():
            row = {"graph": name, "function": call, "mode": mode, "times_s": ts}
            row |= {"median_s": statistics.median(ts), "max_s": max(ts)}
            rows.append(row)
            print(f"{call:>32} {mode:>9}: median {row['median_s']:.3f} s, slowest {max(ts):.3f} s")
    if a.json:
        write_record(a.json, "benchmarks/nx_collector.py", rows)


if __name__ == "__main__":
    main()
