"""What the stop checks of issue 51 cost: each kernel that got one against its version at REV (a
commit before them), on the same inputs, calls interleaved in one process; median CPU seconds
(time.process_time, all threads) of --repeat calls each, the flag down. The kernels at REV are
read with git into a temporary folder and imported from there (their relative imports pointed at
gravel's modules of today). kron:SCALE, Louvain on kron:SCALE-2.

    python benchmarks/stop_checks.py b1e5e73 --scale 20 --repeat 7
"""

import argparse
import importlib
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numba
import numpy as np

import gravel
from gravel.algorithms.coloring import colour_classes, jones_plassmann
from gravel.backends.cpu import chunks, coloring, csr, kcore, louvain, lpa, scc, tc

MODULES = ("kcore", "lpa", "scc", "louvain", "coloring", "csr", "tc")


def kernels_at(rev, folder):
    """The kernel modules of MODULES as they were at `rev`, imported from `folder`."""
    sys.path.insert(0, str(folder))
    out = {}
    for m in MODULES:
        text = subprocess.run(
            ["git", "show", f"{rev}:src/gravel/backends/cpu/{m}.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        text = re.sub(r"^from \. import ", "from gravel.backends.cpu import ", text, flags=re.M)
        text = re.sub(
            r"^from \.(\w+) import ", r"from gravel.backends.cpu.\1 import ", text, flags=re.M
        )
        (Path(folder) / f"before_{m}.py").write_text(text)
        out[m] = importlib.import_module(f"before_{m}")
    return SimpleNamespace(**out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rev")
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--only", help="comma-separated parts of kernel names")
    args = p.parse_args()
    folder = tempfile.mkdtemp(prefix="gravel-stop-checks-")
    base = kernels_at(args.rev, folder)
    G = gravel.generate.kronecker(args.scale, seed=0, device="cpu", progress=False)
    D = gravel.generate.kronecker(args.scale, seed=0, directed=True, device="cpu", progress=False)
    S = gravel.generate.kronecker(args.scale - 2, seed=0, device="cpu", progress=False)
    n, off, idx = G.n, G.offsets, G.indices
    down = np.zeros(1, np.uint8)
    deg = np.diff(off)
    count = np.bincount(deg, minlength=1)
    bins = np.zeros(count.shape[0] + 1, np.int64)
    np.cumsum(count[:-1], out=bins[2:])
    order = np.lexsort((np.arange(n), -deg))
    colour = np.full(n, -1, np.int32)
    lpa.greedy_colour(off, idx, order, colour, np.full(n, -1, np.int32), down)
    members, starts = colour_classes(colour)
    rank = np.argsort(np.random.default_rng(0).permutation(n)).astype(np.int32)
    most = int(deg.max())
    sorder = np.random.default_rng(1).permutation(S.n)
    scol, _ = jones_plassmann(S.offsets, S.indices, sorder.astype(np.int32))
    smem, sst = colour_classes(scol)
    sgraph = (S.offsets, S.indices, np.ones(S.nnz), np.zeros(S.n))
    cases = {
        "kcore peel": (
            lambda: (deg.copy(), bins.copy(), np.empty(n, np.int64), np.empty(n, np.int64)),
            lambda a: base.kcore._peel(off, idx, *a),
            lambda a: kcore._peel(off, idx, *a, down),
        ),
        "lpa greedy_colour": (
            lambda: (np.full(n, -1, np.int32), np.full(n, -1, np.int32)),
            lambda a: base.lpa.greedy_colour(off, idx, order, *a),
            lambda a: lpa.greedy_colour(off, idx, order, *a, down),
        ),
        "lpa propagate": (
            lambda: (np.arange(n),),
            lambda a: base.lpa.propagate(off, idx, members, starts, a[0], chunks()),
            lambda a: lpa.propagate(off, idx, members, starts, a[0], chunks(), down),
        ),
        "scc tarjan (directed, whole)": (
            lambda: (
                np.full(n, -1, np.int32),
                np.empty(n, np.int32),
                np.full(n, -1, np.int64),
                np.empty(n, np.int32),
                np.empty(n, np.int32),
                np.empty(n, np.int64),
            ),
            lambda a: base.scc.tarjan(D.offsets, D.indices, *a, n),
            lambda a: scc.tarjan(D.offsets, D.indices, *a, n, down),
        ),
        "coloring colour_round (first)": (
            lambda: (
                np.full(n, -1, np.int32),
                np.full((numba.get_num_threads(), most + 1), -1, np.int32),
            ),
            lambda a: base.coloring.colour_round(
                off, idx, rank, np.argsort(rank).astype(np.int32), *a
            ),
            lambda a: coloring.colour_round(
                off, idx, rank, np.argsort(rank).astype(np.int32), *a, down
            ),
        ),
        "tc orient": (
            lambda: (),
            lambda a: base.tc._orient_parallel(off, idx, deg),
            lambda a: tc._orient_parallel(off, idx, deg, down),
        ),
        "csr sort_rows (rows reversed)": (
            lambda: (idx[::-1].copy(),),
            lambda a: base.csr._sort_rows(
                off, a[0], np.empty(0, np.float32), numba.get_num_threads()
            ),
            lambda a: csr._sort_rows(
                off, a[0], np.empty(0, np.float32), numba.get_num_threads(), down
            ),
        ),
        "louvain local_moves_parallel (kron:18)": (
            lambda: (np.arange(S.n),),
            lambda a: base.louvain.local_moves_parallel(
                *sgraph, smem, sst, a[0], 1.0, 1e-7, chunks()
            ),
            lambda a: louvain.local_moves_parallel(
                *sgraph, smem, sst, a[0], 1.0, 1e-7, chunks(), down
            ),
        ),
    }
    for name, (make, before, after) in cases.items():
        if args.only and not any(o in name for o in args.only.split(",")):
            continue
        before(make())
        after(make())  # compiled
        times = {before: [], after: []}
        for r in range(args.repeat):
            for f in (before, after) if r % 2 == 0 else (after, before):
                a = make()
                t = time.process_time()
                f(a)
                times[f].append(time.process_time() - t)
        b, a = statistics.median(times[before]), statistics.median(times[after])
        print(f"{name:42s} before {b:8.4f} s  after {a:8.4f} s  {100 * (a / b - 1):+6.2f} %")


if __name__ == "__main__":
    main()
