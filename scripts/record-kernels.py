"""Record the CUDA kernel instances the built-in algorithms launch, into
src/gravel/backends/cuda/kernels/instances.json (what gravel.prebuild builds ahead of time). Run
on a GPU machine from the repo root after changing an algorithm, an operator's functor or a
kernel's template arguments:

    PYTHONPATH=src python3 scripts/record-kernels.py

Each algorithm runs on each graph of gravel.prebuild.exercise in a process of its own (NVRTC
compiles one kernel at a time), on small and larger graphs. What those launches pick on other graphs
is added (prebuild.complete: every lane width of a pull, both load balancings of an advance), so the
list covers any graph. Without a GPU,

    PYTHONPATH=src python3 scripts/record-kernels.py --complete

only adds those to the list as it is (after a change to prebuild.complete's rules).
"""

import argparse
import itertools
import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from gravel import prebuild
from gravel.algorithms.catalog import CUDA_CATALOG
from gravel.backends.cuda import runtime


def record(task):
    name, graph = task
    with runtime.recording() as seen:
        prebuild.exercise([name], [graph], large=True)
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--complete",
        action="store_true",
        help="no GPU: only add to the recorded list what its launches pick on other graphs",
    )
    if parser.parse_args().complete:
        seen = prebuild.instances()
    else:
        graphs = range(len(prebuild.graph_builders(large=True)))
        tasks = list(itertools.product(CUDA_CATALOG, graphs))
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(os.cpu_count(), mp_context=spawn) as pool:
            seen = set().union(*pool.map(record, tasks))
    records = sorted([list(i) for i in prebuild.complete(seen)])
    prebuild.INSTANCES.write_text(json.dumps(records, indent=1) + "\n")
    print(f"{len(records)} kernel instances -> {prebuild.INSTANCES}")


if __name__ == "__main__":
    main()
