"""gravel beside the GAP Benchmark Suite (Beamer, Asanovic and Patterson) on the same graph files
and sources: BFS, SSSP, PageRank per iteration, CC, BC per source and TC, GAP's reference kernels
and gravel's CPU path on the same --threads (default: every core) and, where a GPU is present,
gravel's GPU path and cuSPARSE's SpMV forms of PageRank and BFS (`gravel bench`'s baselines,
each answer checked against gravel's CPU path before it is timed, gravel GPU / cuSPARSE beside),
in one table with gravel CPU / GAP (issue 23's table); with --gunrock DIR,
Gunrock's apps (built in DIR) on the same graphs and sources, each answer checked by gravel's
verifiers and its time shown only where it passes (benchmarks/gunrock.py; not PageRank, which
Gunrock runs to its own tolerance rather than per iteration, nor CC, which it lacks); with
--peers, NetworKit and igraph (benchmarks/gap_peers.py, `pip install '.[peers]'`) on the same
graphs and sources, their answers checked against gravel's before they are timed (BFS, SSSP, CC,
TC: their PageRank iterates to a tolerance and their BC takes every source), gravel CPU / peer
beside them; a peer's time is the median of --peer-repeat runs after its checked one (default one:
a peer's run takes seconds on a graph of scale 20), or the checked run's own where it took 10 s or
more (igraph counts triangles on one thread: at scale 22 one run may take minutes). One command
then prints the whole table: gravel GPU, cuSPARSE, Gunrock, gravel CPU, GAP, NetworKit, igraph, a
row as each primitive's cells are done (Gunrock's cells also printed as each ends).

GAP runs from a checkout of sbeamer/gapbs (--gap DIR; built with `make` there when its binaries are
missing), whose commit the table and the JSON name: DIR's git head, or the first line of a file
DIR/COMMIT in a copy made without its history (`git archive`). Both systems read the same files,
GAP's serialized graphs (.sg, and .wsg with weights 1..255 for SSSP; gravel.io.gapbs reads and
writes them): kron:S and urand:S come from GAP's own generator (`converter -g S -k 16`, `-u S -k
16`; symmetric), as issue 23 measures, unless --generator gravel; other specs and files are gravel's
graphs, symmetrised, simple and written in GAP's form. Each GAP run loads its graph with one read,
no parsing or building. Both start BFS, SSSP and BC from the same --sources highest-degree vertices,
one timed run per source after GAP's and gravel's own warm-up; PageRank runs PR_ITERATIONS
iterations (no stopping test) and reports per iteration. SSSP: GAP with -d2 (its benchmark's delta
for kron and urand) or, given --gap-delta with a list, the fastest of those deltas (graphs of other
shapes: roads, grids), gravel with its default delta, both distances only (``predecessors=False``:
GAP keeps no tree). Times are medians of GAP's trial times and of
gravel's runs (CUDA events on the GPU, compiling left out). A run stopped by SIGTERM (a time
limit) or SIGINT writes the rows it has, marked ``"cut": true``.

--threads takes a list (``--threads 1,2,4,8,16``): each primitive then runs at every thread count,
GAP's and gravel's, a scaling table from one load of each graph; the GPU column is measured once,
with the last count. The table and the JSON name Numba's threading layer (NUMBA_THREADING_LAYER
chooses it). Numba gives each thread an equal share of a parallel loop; on the "tbb" layer,
--chunksize N (a list too) has the threads take chunks of N iterations as they come free instead,
as GAP's dynamic schedules do (the other layers ignore a chunk size, so it is refused there).

    python benchmarks/gap.py kron:18 urand:18 --gap third_party/gapbs --json out.json
"""

import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

import gunrock  # benchmarks/gunrock.py, beside this script
import numba
import numpy as np
from gap_peers import GAP_PRIMITIVES, peer_cells  # benchmarks/gap_peers.py
from peers import peer_graphs, same_ranks  # benchmarks/peers.py
from stopping import Stoppable  # benchmarks/stopping.py, beside this script

import gravel
from gravel.algorithms.baselines import PAGERANK_ITERATIONS
from gravel.algorithms.catalog import CATALOG
from gravel.arrays import host
from gravel.backends import cuda
from gravel.bench import run_times
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

#: PageRank's iterations a run, gravel's, GAP's and cuSPARSE's (`gravel bench`'s count)
PR_ITERATIONS = PAGERANK_ITERATIONS
GAP_DELTA = 2
#: the primitives Gunrock's cells join (not PageRank, run to its own tolerance; Gunrock has no CC)
GUNROCK_ALGOS = ("bfs", "sssp", "bc", "tc")
_TRIAL = re.compile(r"Trial Time:\s+([0-9.]+)")


def graph_files(spec, gap, folder, generator):
    """(g.sg, g.wsg, G, W): the graph of `spec` in GAP's serialized form, unweighted and with
    weights 1..255, and gravel's Graph of each file. kron:S[:K] and urand:S[:K] come from GAP's
    own generator (``converter -g S -k K``, K 16 by default) unless `generator` is "gravel";
    other specs and files from gravel, symmetrised and simple, with gravel's weights 1..255."""
    sg, wsg = Path(folder) / "g.sg", Path(folder) / "g.wsg"
    kind, *numbers = spec.split(":")
    if generator == "gap" and kind in ("kron", "urand") and 1 <= len(numbers) <= 2:
        scale, degree = (int(x) for x in (numbers[0], (numbers[1:] or ["16"])[0]))  # GAP: atoi
        flag = "-g" if kind == "kron" else "-u"
        make = [str(gap / "converter"), flag, str(scale), "-k", str(degree)]
        for out, weighted in ((sg, []), (wsg, ["-w"])):
            run = subprocess.run([*make, *weighted, "-b", str(out)], capture_output=True, text=True)
            if run.returncode != 0:  # GAP prints its errors to stdout
                raise RuntimeError(f"GAP's converter failed on {spec}:\n{run.stdout}{run.stderr}")
        return sg, wsg, gravel.load(sg), gravel.load(wsg)
    G = open_graph(spec)[0].simple_undirected()  # symmetrised whatever the file says
    W = gravel.transform.add_random_weights(G, 1, 255, seed=1)
    return gravel.save(G, sg), gravel.save(W, wsg), G, W


def gap_commit(gap):
    """The gapbs commit in the folder `gap`: the first line of gap/COMMIT where that file exists
    (a copy without its history), else the folder's git head; None if neither tells."""
    stamp = Path(gap) / "COMMIT"
    if stamp.exists():
        return stamp.read_text().split("\n", 1)[0].strip() or None
    head = subprocess.run(
        ["git", "-C", str(gap), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return head.stdout.strip() if head.returncode == 0 else None


def gap_seconds(gap, args, trials, threads):
    """Median of GAP's trial times for `args` (the binary and its flags) over `trials` trials on
    `threads` OpenMP threads."""
    env = os.environ | {"OMP_NUM_THREADS": str(threads)}
    out = subprocess.run(
        [str(gap / args[0]), *args[1:], "-n", str(trials)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    times = [float(t) for t in _TRIAL.findall(out)]
    if not times:
        raise RuntimeError(f"no trial times in GAP's output of {args}:\n{out[-2000:]}")
    return statistics.median(times)


def gravel_seconds(fn, repeat, device):
    return statistics.median(run_times(fn, repeat, device))


def cases(G, W):
    """(name, GAP's arguments for a file, a source and SSSP's delta, the file's kind, gravel's
    call on a device and a source, the units a run counts: PageRank's iterations)."""
    return [
        (
            "bfs",
            lambda f, v, delta: ["bfs", "-f", f, "-r", str(v)],
            "sg",
            lambda d, v: gravel.bfs(G, v, device=d),
            1,
        ),
        (
            "sssp",
            lambda f, v, delta: ["sssp", "-f", f, "-r", str(v), "-d", str(delta)],
            "wsg",
            lambda d, v: gravel.sssp(W, v, predecessors=False, device=d),  # GAP's: distances
            1,
        ),
        (
            "pagerank",
            lambda f, v, delta: ["pr", "-f", f, "-i", str(PR_ITERATIONS), "-t", "0"],
            "sg",
            lambda d, v: gravel.pagerank(G, max_iter=PR_ITERATIONS, tol=0.0, device=d),
            PR_ITERATIONS,
        ),
        (
            "cc",
            lambda f, v, delta: ["cc", "-f", f],
            "sg",
            lambda d, v: gravel.connected_components(G, device=d),
            1,
        ),
        (
            "bc",
            lambda f, v, delta: ["bc", "-f", f, "-r", str(v), "-i", "1"],
            "sg",
            lambda d, v: gravel.betweenness_centrality(G, sources=[v], device=d),
            1,
        ),
        (
            "tc",
            lambda f, v, delta: ["tc", "-f", f],
            "sg",
            lambda d, v: gravel.triangles(G, per_vertex=False, device=d),
            1,
        ),
    ]


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files (undirected)")
    p.add_argument("--gap", required=True, type=Path, help="a checkout of sbeamer/gapbs")
    p.add_argument("--sources", type=int, default=2, help="BFS / SSSP / BC sources")
    p.add_argument("--algo", action="append", help="repeatable; default: all six")
    p.add_argument("--gunrock", type=Path, help="Gunrock's built apps (benchmarks/gunrock.py)")
    p.add_argument(
        "--gunrock-timeout",
        type=float,
        default=180.0,
        help="seconds before a Gunrock app's run is stopped and its cell failed (default 180)",
    )
    p.add_argument("--peers", action="store_true", help="NetworKit and igraph beside (peers.py)")
    p.add_argument(
        "--peer-repeat",
        type=int,
        default=1,
        help="the peers' timed runs per source, after the checked one (default 1: they run 10-100x"
        " gravel's times, which one run tells apart); none after a checked run of 10 s or more",
    )
    p.add_argument(
        "--threads",
        type=_counts,
        default=[os.cpu_count()],
        help="CPU threads, both sides; a list (1,2,4) runs each (default: every core)",
    )
    p.add_argument(
        "--chunksize",
        type=_counts,
        default=[0],
        help="gravel's parallel loops in chunks of N iterations taken as threads come free (the"
        " tbb threading layer only; 0: equal shares); a list runs each",
    )
    p.add_argument(
        "--gap-delta",
        type=_counts,
        default=[GAP_DELTA],
        help=f"GAP's SSSP delta (default {GAP_DELTA}); a list (2,32,512): GAP's fastest of them,"
        " which its row names",
    )
    p.add_argument(
        "--generator",
        choices=("gap", "gravel"),
        default="gap",
        help="who generates kron and urand specs (default: GAP's converter, as issue 23 measures)",
    )
    a = p.parse_args()
    if not all((a.gap / b).exists() for b in ("bfs", "sssp", "pr", "cc", "bc", "tc", "converter")):
        subprocess.run(["make", f"-j{os.cpu_count()}"], cwd=a.gap, check=True)
    if min(a.threads) < 1 or max(a.threads) > numba.config.NUMBA_NUM_THREADS:
        p.error(f"--threads: from 1 to {numba.config.NUMBA_NUM_THREADS} here (NUMBA_NUM_THREADS)")
    if a.peer_repeat < 1:
        p.error(f"--peer-repeat: at least 1 (got {a.peer_repeat})")
    devices = ["cpu"] + (["cuda"] if cuda.available() else [])
    rows = []
    layer = _threading_layer()
    print(f"Numba threading layer: {layer}")
    commit = gap_commit(a.gap)
    print(f"GAP {commit or '(commit unknown: no git head, no COMMIT file)'}")
    if max(a.chunksize) > 0 and layer != "tbb":
        p.error(f"--chunksize needs Numba's tbb threading layer (this run has {layer})")
    if a.gunrock:
        print(f"Gunrock {(a.gunrock / 'COMMIT').read_text().strip()}")
    versions = {}
    if a.peers:
        import igraph
        import networkit

        versions = {"networkit": networkit.__version__, "igraph": igraph.__version__}
        print(", ".join(f"{k} {v}" for k, v in versions.items()) + " (igraph on one thread)")
    print(
        f"{'graph':>10} {'primitive':>9} {'threads':>7} {'chunk':>5} "
        + " ".join(f"{'gravel ' + d:>12}" for d in devices)
        + f" {'GAP':>10} {'cpu / GAP':>9}"
        + (f" {'NetworKit':>10} {'cpu / NK':>8} {'igraph':>10} {'cpu / ig':>8}" if a.peers else "")
        + (f" {'cuSPARSE':>12}" if "cuda" in devices else "")
        + (f" {'Gunrock':>12}" if a.gunrock else "")
    )
    with Stoppable() as run:  # a time limit's SIGTERM keeps the rows so far
        for spec in a.graphs:
            measure_graph(a, spec, devices, rows)
    if a.json:
        write_record(
            a.json,
            "benchmarks/gap.py",
            rows,
            gap=str(a.gap),
            gap_commit=commit,
            gunrock_commit=a.gunrock and (a.gunrock / "COMMIT").read_text().strip(),
            peers=versions,
            threads=a.threads,
            chunksize=a.chunksize,
            threading_layer=layer,
            cut=run.cut,
        )


def measure_graph(a, spec, devices, rows):
    """Every asked primitive on the graph `spec` (main's arguments `a`): GAP's, gravel's on
    `devices` and, as asked, Gunrock's and the CPU peers' cells, a row appended to `rows` and
    printed as each primitive's cells end (so that a run cut short keeps the rows it printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        sg, wsg, G, W = graph_files(spec, a.gap, tmp, a.generator)
        sources = np.argsort(G.out_degree)[-a.sources :].astype(int).tolist()
        files = {"sg": str(sg), "wsg": str(wsg)}
        # each peer's graph made once for all the primitives
        files_gunrock = gunrock.graph_files(G, W, tmp) if a.gunrock else None
        graphs = peer_graphs(G, W) if a.peers else None
        for name, gap_args, kind, call, units in cases(G, W):
            if a.algo and name not in a.algo:
                continue
            extra = {}  # the peers' cells of the row
            if a.gunrock and name in GUNROCK_ALGOS:
                cells = gunrock.gunrock_cells(
                    G,
                    W,
                    sources,
                    a.gunrock,
                    a.repeat,
                    [name],
                    files=files_gunrock,
                    timeout=a.gunrock_timeout,
                )
                extra |= cells[name]
            if a.peers and name in GAP_PRIMITIVES:
                extra |= peer_cells(
                    G, W, sources, a.peer_repeat, a.threads[-1], [name], graphs=graphs
                )[name]
            each = gunrock.sources_of(name, sources)
            deltas = a.gap_delta if name == "sssp" else [None]
            for k, threads in enumerate(a.threads):
                gap_s, delta = min(
                    (
                        statistics.median(
                            gap_seconds(a.gap, gap_args(files[kind], v, d), a.repeat, threads)
                            for v in each
                        ),
                        d,
                    )
                    for d in deltas
                )
                numba.set_num_threads(threads)
                for j, chunk in enumerate(a.chunksize):
                    numba.set_parallel_chunksize(chunk)
                    last = (k, j) == (len(a.threads) - 1, len(a.chunksize) - 1)
                    row = {"graph": spec, "primitive": name, "threads": threads}
                    row |= {"chunksize": chunk, "gap_s": gap_s / units}
                    if delta is not None:
                        row["gap_delta"] = delta
                    for d in devices if last else ["cpu"]:
                        t = statistics.median(
                            gravel_seconds(lambda v=v: call(d, v), a.repeat, d) for v in each
                        )
                        row[f"gravel_{d}_s"] = t / units
                    row["cpu_over_gap"] = row["gravel_cpu_s"] / row["gap_s"]
                    if last:  # the peers' cells join the row of the last count
                        row |= extra
                        if "cuda" in devices:
                            row |= spmv_cells(name, G, each, a.repeat, units)
                    rows.append(row)
                    _print(row, devices)


def spmv_cells(name, G, sources, repeat, units, device="cuda"):
    """cuSPARSE's cells of a primitive that `gravel bench` times against SpMV (PageRank's power
    iteration; BFS by one SpMV a level, :mod:`gravel.algorithms.baselines`): each source's answer
    checked against gravel's CPU path before its runs are timed (on `device`), the median a unit
    as ``cusparse_s``, None where a check failed (named in ``cusparse_problems``); no cells for
    the other primitives."""
    base = next((b for b in CATALOG[name].baselines if b.name == "cusparse"), None)
    if base is None:
        return {}
    ours, same = SPMV_CHECKS[name]
    times, problems = [], []
    for v in sources:
        run = base.build(G, v)
        if same(ours(G, v), host(run())):
            times.append(statistics.median(run_times(run, repeat, device)))
        else:
            problems.append(f"source {v}: cuSPARSE's answer differs from gravel's")
    seconds = None if problems else statistics.median(times) / units
    return {"cusparse_s": seconds, "cusparse_problems": problems}


#: each cuSPARSE baseline's check: (gravel's answer on the CPU for (G, source), whether a
#: cuSPARSE answer, on the host, agrees with it); BFS's baseline answers the reached vertices
SPMV_CHECKS = {
    "pagerank": (
        lambda G, v: gravel.pagerank(G, max_iter=PR_ITERATIONS, tol=0.0, device="cpu").rank,
        same_ranks,
    ),
    "bfs": (lambda G, v: gravel.bfs(G, v, device="cpu").depth >= 0, np.array_equal),
}


def _counts(text):
    """A comma-separated list of counts (threads: at least 1; chunk sizes: 0 or more)."""
    counts = [int(x) for x in text.split(",")]
    if min(counts) < 0:
        raise ValueError(f"counts must not be negative: {text}")
    return counts


def _threading_layer():
    """The threading layer Numba's parallel loops run on (known once one has run)."""

    @numba.njit(parallel=True)
    def touch(x):
        for i in numba.prange(x.shape[0]):
            x[i] = i

    touch(np.zeros(2))
    return numba.threading_layer()


def _print(row, devices):
    cells = " ".join(
        f"{1e3 * row[f'gravel_{d}_s']:10.2f}ms" if f"gravel_{d}_s" in row else f"{'':>12}"
        for d in devices
    )
    print(
        f"{row['graph']:>10} {row['primitive']:>9} {row['threads']:>7} {row['chunksize']:>5} "
        f"{cells} {1e3 * row['gap_s']:8.2f}ms {row['cpu_over_gap']:8.2f}x{_peer_cells(row)}"
        f"{_cusparse_cell(row, devices)} {_gunrock_cell(row)}"
        + (f" (GAP's delta {row['gap_delta']})" if "gap_delta" in row else ""),
        flush=True,
    )
    for problem in row.get("peer_problems", []):
        print(f"{'':>10} {problem}: not timed")
    for problem in row.get("cusparse_problems", []):
        print(f"{'':>10} {problem}: not timed")


def _peer_cells(row):
    """NetworKit's and igraph's times and gravel CPU over each, where the row has them."""
    if "peer_problems" not in row:
        return ""
    cells = ""
    for k in ("networkit", "igraph"):
        t = row[f"{k}_s"]
        ratio = f"{row['gravel_cpu_s'] / t:7.2f}x" if t else f"{'-':>8}"
        cells += f" {1e3 * t:8.2f}ms {ratio}" if t else f" {'FAILED':>10} {ratio}"
    return cells


def _cusparse_cell(row, devices):
    """cuSPARSE's time and gravel GPU over it, FAILED (its problems follow the row), or blanks
    where the row has no such cell; nothing without a GPU."""
    if "cuda" not in devices:
        return ""
    if "cusparse_s" not in row:
        return f" {'':>12}"
    t = row["cusparse_s"]
    if t is None:
        return f" {'FAILED':>12}"
    return f" {1e3 * t:10.3f}ms ({row['gravel_cuda_s'] / t:.2f}x)"


def _gunrock_cell(row):
    """Gunrock's time where its answer passed gravel's check; FAILED with the check's sentence."""
    if "gunrock_s" not in row:
        return ""
    if row["gunrock_s"] is None:
        return f"{'FAILED':>12} {'; '.join(row['problems'])}"
    cell = f"{1e3 * row['gunrock_s']:10.3f}ms"
    if "gravel_cuda_s" in row:  # no GPU column where gravel's GPU path is not available
        cell += f" (GPU / Gunrock {row['gravel_cuda_s'] / row['gunrock_s']:.2f}x)"
    return cell


if __name__ == "__main__":
    main()
