"""How long Ctrl-C could wait: the longest stretches the main thread spends without running Python
bytecode (a compiled kernel that holds it) while gravel generates GRAPH and runs each algorithm on
the CPU. A sampler thread reads the main thread's frame every 2 ms; a stretch is the time its frame
and instruction stay the same. A kernel run on the shares' pool (backends/cpu/shares.py) leaves the
main thread waiting in 50 ms slices, so it shows no stretch. A Python loop that calls one kernel
per iteration reads as one stretch over all its iterations (the same instruction each time): look
at the kernel's own time before blaming it. Compilation (LLVM, first use) shows as stretches too.

    python benchmarks/interrupt_latency.py kron:20 --algo lpa --algo scc --min 0.25
"""

import argparse
import os
import sys
import threading
import time

import gravel
from gravel.algorithms.catalog import CATALOG


def _where(frame):
    out = []
    while frame is not None and len(out) < 3:
        out.append(f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}")
        frame = frame.f_back
    return " < ".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graph")
    p.add_argument("--algo", action="append", help="repeatable (default: every algorithm)")
    p.add_argument("--min", type=float, default=0.25, help="report stretches from this long (s)")
    args = p.parse_args()
    main_id, phase, stretches, running = threading.main_thread().ident, ["generate"], [], [True]

    def sample():
        last, since, where = None, time.perf_counter(), ""
        while running[0]:
            frame = sys._current_frames().get(main_id)
            now = time.perf_counter()
            key = (id(frame), frame.f_lasti if frame else None)
            if key != last:
                if now - since >= args.min:
                    stretches.append((now - since, phase[0], where))
                last, since, where = key, now, _where(frame)
            time.sleep(0.002)

    threading.Thread(target=sample, daemon=True).start()
    G = gravel.generate.from_spec(args.graph)
    for name in args.algo or CATALOG:
        algo = CATALOG[name]
        phase[0] = name
        source = [int(G.out_degree.argmax())] if algo.takes_source else []
        algo.function(G, *source, device="cpu", **algo.timed(G))  # compiled, warm
        algo.function(G, *source, device="cpu", **algo.timed(G))
    running[0] = False
    for seconds, name, where in sorted(stretches, reverse=True):
        print(f"{seconds:7.3f} s  {name:10s} {where}")


if __name__ == "__main__":
    main()
