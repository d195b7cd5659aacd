"""gravel's GPU path beside Gunrock (gunrock/gunrock's example apps: bfs, sssp, pr, bc, tc) on the
same graphs and sources, each Gunrock answer checked by gravel's verifier before its time counts.

Gunrock's apps are built outside this repository, for the GPU they run on, into one folder (--bin,
default third_party/gunrock-bin) with a file COMMIT naming the Gunrock commit built. Five patches
go on Gunrock's sources before the build (scripts/build-gunrock.sh): its device code is chosen by
``__HIP_DEVICE_COMPILE__``, which nvcc does not define (its atomics ran as plain host code on the
GPU; ``__CUDA_ARCH__`` now chooses it too); BC advanced with the merge-path (v2) advance, which
reads its frontier at tile-relative positions and prints whole frontiers at every step, and added
each of its -n runs into the same centralities (it now advances block-mapped, as BFS and SSSP do
by default, from zeroed centralities each run); ``print::head``, which prints the first 40 values of
a result, prints all of them, to round-trip precision, when GUNROCK_PRINT_ALL is set, so that
every value can be checked; and its binary CSR reader, which refused every file it read whole and
which the apps reached only after parsing the file as Matrix Market text, now reads one, so that a
run loads its graph in one read instead of parsing text; and TC, whose advance ran over the
enactor's frontier, which TC never fills (no triangle counted), advances over every vertex again,
as it did before Gunrock's d6ba041.

Each graph is gravel's (a generator spec or a file, symmetrised and simple; SSSP on it with weights
1..255, gravel's ``add_random_weights`` seed 1), or with --gap DIR GAP's own kron and urand, as
benchmarks/gap.py makes them. It is written as Gunrock's binary CSR (every arc, with SSSP's weights
for SSSP, ones for the others).
BFS, SSSP and BC start from the --sources highest-degree vertices, as gap.py's do. Gunrock runs
--repeat times in one process (``-n``) and prints its last run's time (its own GPU timer, loading
left out); gravel's cell is the median of --repeat runs after a warm-up (CUDA events). SSSP
computes distances on both sides (gravel's ``predecessors=False``: Gunrock's SSSP fills no
predecessors). PageRank runs to each side's stopping test: Gunrock's largest change below 1e-6,
gravel's L1 change below n * 1e-6 (``stopping="networkx"``), alpha 0.85 both; TC counts per vertex
on both sides. A Gunrock cell that fails its check is printed as FAILED with the verifier's
sentence, and left out of the JSON's times.
A run stopped by SIGTERM (a time limit) or SIGINT writes the rows it has, marked ``"cut": true``.

    python benchmarks/gunrock.py kron:18 urand:18 --bin third_party/gunrock-bin --json out.json
"""

import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from stopping import Stoppable  # benchmarks/stopping.py, beside this script

import gravel
from gravel.algorithms.betweenness import rescale, verify_betweenness
from gravel.algorithms.bfs import verify_bfs
from gravel.algorithms.pagerank import verify_pagerank
from gravel.algorithms.sssp.verify import verify_sssp
from gravel.algorithms.triangles import verify_triangles
from gravel.bench import run_times
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

ALGOS = ("bfs", "sssp", "pagerank", "bc", "tc")
#: Gunrock's app for each primitive
APPS = {"bfs": "bfs", "sssp": "sssp", "pagerank": "pr", "bc": "bc", "tc": "tc"}
#: the label Gunrock's app prints before its per-vertex result
LABELS = {
    "bfs": "GPU distances",
    "sssp": "GPU distances",
    "pagerank": "GPU rank",
    "bc": "GPU bc values",
    "tc": "Per-vertex triangle count",
}
ALPHA, TOL = 0.85, 1e-6  # Gunrock's pr example's, fixed in its source
UNREACHED_DEPTH = 2**31 - 1  # Gunrock's BFS: numeric_limits<int>::max()
UNREACHED_DISTANCE = 3.4e38  # Gunrock's SSSP: numeric_limits<float>::max() and above
#: Gunrock's BC sums paths and dependencies in float32 (gravel's verifier expects float64's 1e-6):
#: the first vertex off on kron:20 was 2.5e-6 from the exact value; a wrong value is far outside
BC_RTOL = 1e-4
#: apps whose whole result, printed at an integer's precision (0 digits), leaves the stream there
#: for the time printed after it (the print::head patch): their time comes from a second run that
#: prints the default head
WHOLE_RESULTS = ("bfs", "tc")
_TIME = re.compile(r"^GPU Elapsed Time : (\S+) \(ms\)", re.M)
_HEAD = re.compile(r"^(?P<label>[^\n\[]+)\[:(?P<k>\d+)\] = (?P<values>[^\n]*)$", re.M)
_TOTAL = re.compile(r"^Total Graph Traingles : (\d+)", re.M)  # (sic) Gunrock's spelling


def write_csr(path, G, weights=None):
    """Write G as the binary CSR that Gunrock's apps read from a file ending in ".csr"
    (``format::csr_t::read_binary``, with scripts/gunrock.patch): the vertices twice (rows and
    columns) and the arcs, as int32, then the int32 offsets, the int32 targets and float32 values.

    Parameters
    ----------
    path : str or Path
        The file written; its name must end in ".csr".
    G : Graph
        The graph; every arc is written, each row's targets ascending (TC intersects them).
    weights : numpy.ndarray, optional
        One weight per arc, in G's arc order (float32 values); 1 for every arc if None.

    Returns
    -------
    Path
        `path`.

    Raises
    ------
    ValueError
        A name not ending in ".csr", weights of the wrong length, or more arcs than Gunrock's
        int32 offsets hold.
    """
    path = Path(path)
    if path.suffix != ".csr":
        raise ValueError(f"{path}: Gunrock reads a binary CSR from a file ending in .csr")
    if G.nnz >= 2**31:
        raise ValueError(f"{G.nnz:,} arcs: Gunrock's apps hold offsets as int32 (2^31 - 1 at most)")
    if weights is not None and len(weights) != G.nnz:
        raise ValueError(f"weights: {len(weights)} values for {G.nnz} arcs")
    values = np.ones(G.nnz, np.float32) if weights is None else np.asarray(weights, np.float32)
    indices = np.asarray(G.indices, np.int32)
    rows = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.offsets))
    if np.any((np.diff(rows) == 0) & (np.diff(indices) < 0)):  # TC intersects sorted rows
        order = np.lexsort((indices, rows))
        indices, values = indices[order], values[order]
    with open(path, "wb") as f:
        np.array([G.n, G.n, G.nnz], np.int32).tofile(f)
        np.asarray(G.offsets, np.int32).tofile(f)
        indices.tofile(f)
        values.tofile(f)
    return path


def parse_output(text, label, timed=True):
    """Read a Gunrock app's output: its timed run's milliseconds and the result printed after
    `label` (whole with GUNROCK_PRINT_ALL set).

    Parameters
    ----------
    text : str
        The app's standard output.
    label : str
        The label before the values, as ``print::head`` prints it (:data:`LABELS`).
    timed : bool, default True
        Whether to read the time (else ``ms`` is None).

    Returns
    -------
    dict
        ``ms`` (float, the last "GPU Elapsed Time"), ``values`` (float64 array) and ``total`` (int,
        TC's "Total Graph Traingles", or None where not printed).

    Raises
    ------
    RuntimeError
        No time, a time of one significant digit, no values under `label`, or fewer values
        than its count says.
    """
    times = _TIME.findall(text) if timed else [None]
    heads = [m for m in _HEAD.finditer(text) if m["label"].strip() == label]
    if not times or not heads:
        raise RuntimeError(f"no time or no {label!r} in Gunrock's output:\n{text[-2000:]}")
    if timed and len(re.sub(r"[eE].*|[-+.]", "", times[-1]).lstrip("0")) < 2:
        # what a stream left at precision 0 prints (%.0g: 12.27 ms as 1e+01): the print::head
        # patch sets max_digits10, 0 for an integer result (BFS's depths, TC's counts)
        raise RuntimeError(f"time {times[-1]} ms printed to one significant digit")
    head = heads[-1]
    values = np.array(head["values"].split(), np.float64)
    if len(values) != int(head["k"]):
        raise RuntimeError(f"{label}: {int(head['k'])} values announced, {len(values)} printed")
    total = _TOTAL.search(text)
    ms = float(times[-1]) if timed else None
    return {"ms": ms, "values": values, "total": total and int(total[1])}


def check(name, G, W, source, out):
    """gravel's verifier on a Gunrock answer, moved to gravel's conventions.

    Parameters
    ----------
    name : str
        The primitive (:data:`ALGOS`).
    G, W : Graph
        The undirected graph and its weighted twin (SSSP's).
    source : int
        BFS's, SSSP's or BC's source.
    out : dict
        :func:`parse_output`'s answer.

    Returns
    -------
    list of str
        The problems found; empty if the answer passes.
    """
    values = out["values"]
    if len(values) != G.n:
        return [f"{len(values)} values for {G.n} vertices"]
    if name == "bfs":
        depth = np.where(values >= UNREACHED_DEPTH, -1, values).astype(np.int64)
        return verify_bfs(G, source, depth, _parents(G, source, depth))
    if name == "sssp":
        return verify_sssp(W, source, np.where(values >= UNREACHED_DISTANCE, np.inf, values))
    if name == "pagerank":
        return verify_pagerank(G, values, alpha=ALPHA, tol=TOL, weight=None)
    if name == "bc":  # Gunrock halves each dependency on its undirected graphs
        sources = np.array([source])
        centrality = rescale(2 * values, G.n, sources, 1, False, G.directed)
        return verify_betweenness(G, centrality, sources, normalized=False, rtol=BC_RTOL)
    counts = values.astype(np.int64)
    problems = verify_triangles(G, counts)
    if out["total"] is not None and out["total"] != counts.sum():  # its total sums the counts
        problems.append(f"total {out['total']} is not the counts' sum {counts.sum()}")
    return problems


def _parents(G, source, depth):
    """A BFS parent for each reached vertex: an in-neighbour one level closer (Gunrock's example
    prints depths only, so the parent check adds nothing to the depths')."""
    src = np.repeat(np.arange(G.n, dtype=np.int64), np.diff(G.offsets))
    dst = np.asarray(G.indices, np.int64)
    parent = np.full(G.n, -1, np.int64)
    step = (depth[src] >= 0) & (depth[dst] == depth[src] + 1)
    parent[dst[step]] = src[step]
    parent[source] = source
    return parent


def gunrock_args(name, path, source, repeat):
    """The app's arguments after its path: the file, the source where it takes one, the runs."""
    if name == "tc":  # one run, no source; -r prints the total
        return ["-m", str(path), "-r"]
    runs = ["-n", str(repeat)]
    return ["-m", str(path), *runs] + ([] if name == "pagerank" else ["-s", str(source)])


def sources_of(name, sources):
    """The sources a primitive's cell runs from: every one for BFS, SSSP and BC, the first (any
    one) for PageRank and TC, which take none."""
    return sources if name in ("bfs", "sssp", "bc") else sources[:1]


def run_gunrock(bin_dir, name, path, source, repeat, timeout=600):
    """Run Gunrock's app for `name` on the graph file `path` and read its output
    (:func:`parse_output`).

    Parameters
    ----------
    bin_dir : Path
        The folder of Gunrock's binaries.
    name : str
        The primitive (:data:`ALGOS`).
    path : Path
        The graph's binary CSR (:func:`write_csr`).
    source : int
        The source (ignored by PageRank and TC).
    repeat : int
        Runs in the process; the last one's time is reported.
    timeout : float, default 600
        Seconds before the app is stopped.

    Returns
    -------
    dict
        :func:`parse_output`'s answer; for :data:`WHOLE_RESULTS`, the time of a second run.

    Raises
    ------
    RuntimeError
        The app could not be started (missing, not executable), failed or printed no result.
    """
    cmd = [str(Path(bin_dir) / APPS[name]), *gunrock_args(name, path, source, repeat)]
    whole = name in WHOLE_RESULTS
    out = parse_output(_run(cmd, {"GUNROCK_PRINT_ALL": "1"}, timeout), LABELS[name], not whole)
    if whole:
        out["ms"] = parse_output(_run(cmd, {}, timeout), LABELS[name])["ms"]
    return out


def _run(cmd, env, timeout):
    """An app's standard output, run with `env` added to this process's environment."""
    try:
        run = subprocess.run(
            cmd, capture_output=True, text=True, env=os.environ | env, timeout=timeout
        )
    except OSError as e:  # an app not built, or carried without its mode: a failed run too
        raise RuntimeError(f"{cmd[0]} cannot run: {e}") from e
    if run.returncode != 0:
        tail = (run.stdout + run.stderr)[-2000:]
        raise RuntimeError(f"{' '.join(cmd)} exited {run.returncode}:\n{tail}")
    return run.stdout


def gravel_call(name, G, W, source):
    """gravel's call on the GPU for the cell Gunrock's app fills."""
    return {
        "bfs": lambda: gravel.bfs(G, source, device="cuda"),
        "sssp": lambda: gravel.sssp(W, source, predecessors=False, device="cuda"),  # as Gunrock's
        "pagerank": lambda: gravel.pagerank(G, tol=TOL, stopping="networkx", device="cuda"),
        "bc": lambda: gravel.betweenness_centrality(G, sources=[source], device="cuda"),
        "tc": lambda: gravel.triangles(G, device="cuda"),
    }[name]


def graph_files(G, W, folder):
    """The files Gunrock's apps read, written into `folder` (:func:`write_csr`): G's arcs
    ("pattern": BFS, PageRank, BC, TC) and W's with their weights ("real": SSSP).

    Parameters
    ----------
    G, W : Graph
        The simple undirected graph and its weighted twin.
    folder : str or Path
        An existing folder.

    Returns
    -------
    dict
        kind -> Path.
    """
    return {
        "pattern": write_csr(Path(folder) / "g.csr", G),
        "real": write_csr(Path(folder) / "w.csr", W, weights=W.weights),
    }


def gunrock_cells(
    G, W, sources, bin_dir, repeat, algos=ALGOS, folder=None, timeout=600, files=None
):
    """Gunrock's validated time for each primitive on G (W for SSSP), the median over `sources`
    (one for PageRank and TC).

    Parameters
    ----------
    G, W : Graph
        The simple undirected graph and its weighted twin.
    sources : list of int
        BFS's, SSSP's and BC's sources.
    bin_dir : Path
        Gunrock's binaries.
    repeat : int
        Runs per source.
    algos : iterable of str
        The primitives.
    folder : str, optional
        Where the temporary folder of the graph's files goes when `files` is None (the system's
        temporary folder if None).
    timeout : float, default 600
        Seconds before an app's run is stopped and its cell counted as failed.
    files : dict, optional
        :func:`graph_files` written already (for several calls on one graph); None writes them.

    Returns
    -------
    dict
        name -> {"gunrock_s": seconds, or None where a run or a check failed, "problems": the
        verifier's sentences (or the failed run's output's end), first source that failed}.
    """
    if files is None:  # written for this call only
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            files = graph_files(G, W, tmp)
            return gunrock_cells(
                G, W, sources, bin_dir, repeat, algos, timeout=timeout, files=files
            )
    kinds = {"sssp": "real"}
    cells = {}
    for name in algos:
        each = sources_of(name, sources)
        path = files[kinds.get(name, "pattern")]
        times, problems = [], []
        for v in each:
            try:
                out = run_gunrock(bin_dir, name, path, v, repeat, timeout)
            except (RuntimeError, subprocess.TimeoutExpired) as e:  # a failed run: no cell
                problems = [f"source {v}: {' '.join(str(e).split())[-300:]}"]
                break
            problems = check(name, G, W, v, out)
            if problems:
                problems = [f"source {v}: {p}" for p in problems]
                break
            times.append(out["ms"] / 1e3)
        cells[name] = {
            "gunrock_s": None if problems else statistics.median(times),
            "problems": problems,
        }
    return cells


def graph_pair(spec, gap, folder):
    """(G, W) for `spec`: gravel's simple undirected graph and its weights 1..255, or with `gap`
    (a gapbs checkout) benchmarks/gap.py's graphs, GAP's own kron and urand."""
    if gap is not None:
        from gap import graph_files  # benchmarks/gap.py, beside this script

        return graph_files(spec, gap, folder, "gap")[2:]
    G = open_graph(spec)[0].simple_undirected()
    return G, gravel.transform.add_random_weights(G, 1, 255, seed=1)


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files (undirected)")
    p.add_argument("--bin", type=Path, default=Path("third_party/gunrock-bin"))
    p.add_argument("--gap", type=Path, help="a gapbs checkout: GAP's kron and urand, as gap.py")
    p.add_argument("--sources", type=int, default=2, help="BFS / SSSP / BC sources")
    p.add_argument("--algo", action="append", choices=ALGOS, help="repeatable; default: all")
    a = p.parse_args()
    commit = (a.bin / "COMMIT").read_text().strip()
    print(f"Gunrock {commit}")
    head = f"{'graph':>10} {'primitive':>9} {'gravel GPU':>12} {'Gunrock':>12}"
    print(f"{head} {'gravel/Gunrock':>14}")
    rows = []
    with Stoppable() as run:  # a time limit's SIGTERM keeps the rows so far
        for spec in a.graphs:
            with tempfile.TemporaryDirectory() as tmp:
                G, W = graph_pair(spec, a.gap, tmp)
                sources = np.argsort(G.out_degree)[-a.sources :].astype(int).tolist()
                files = graph_files(G, W, tmp)
                for name in a.algo or ALGOS:  # a row as each primitive's cells end
                    cell = gunrock_cells(G, W, sources, a.bin, a.repeat, [name], files=files)[name]
                    each = sources_of(name, sources)
                    ours = statistics.median(
                        statistics.median(run_times(gravel_call(name, G, W, v), a.repeat, "cuda"))
                        for v in each
                    )
                    rows.append({"graph": spec, "primitive": name, "gravel_cuda_s": ours} | cell)
                    _print(rows[-1])
    if a.json:
        write_record(a.json, "benchmarks/gunrock.py", rows, gunrock_commit=commit, cut=run.cut)


def _print(row):
    theirs = row["gunrock_s"]
    cells = f"{1e3 * row['gravel_cuda_s']:10.3f}ms "
    if theirs is None:
        cells += f"{'FAILED':>12}  {'; '.join(row['problems'])}"
    else:
        cells += f"{1e3 * theirs:10.3f}ms {row['gravel_cuda_s'] / theirs:13.2f}x"
    print(f"{row['graph']:>10} {row['primitive']:>9} {cells}", flush=True)


if __name__ == "__main__":
    main()
