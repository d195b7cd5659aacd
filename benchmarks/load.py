"""From a file to an answer (issue 55): text read and written per format, and file -> BFS and
PageRank end to end, beside NetworkX's read_edgelist and the same algorithm on the same files.

Each GRAPH (a generator spec: kron:20, urand:20) is generated once and written as Matrix Market
(.mtx), an edge list (.txt), DIMACS (.gr), gravel's .gravel and (with pyarrow) a Parquet edge
table into a scratch folder: write time and MB/s per format. Then, each in a fresh process (so
that its peak memory is its own, and compiled kernels come from Numba's disk cache, loaded by a
warm-up load of a small file first):

- the disk: each file read whole into memory, from the disk (its pages evicted from the page
  cache first: fsync, then ``posix_fadvise(DONTNEED)``) and from the page cache, in MB/s, and the
  folder's file system (a tmpfs keeps its pages: there every read is from memory);
- load: each file read without gravel's binary cache, from the page cache ("warm") and from the
  disk ("cold", its pages evicted as above): seconds, MB/s of text, peak RSS over the RSS
  before the load, against the CSR's bytes (offsets, indices, weights); where a GPU is present,
  each text also parsed and built on it (``device="cuda"``: io/device_text.py), in GB/s, with
  the most device memory it held at once from CuPy's pool, against the same bytes. Its two
  phases apart: the parse (the format's reader, the file's lines into edges, the file read while
  it runs) and the build (the edges into the sorted, deduplicated CSR), each up to the device's
  work done;
- end to end, for BFS (from the smallest vertex with an edge) and PageRank: load the edge list,
  build, run, write the answer (.npy): seconds of each phase and in all, on the CPU and (where a
  GPU is present) on the GPU, its load included;
- pyarrow: its multi-threaded CSV reader (``pyarrow.csv.read_csv``, space-delimited, int64
  columns) on the edge list, into NumPy arrays, beside the parse above (skipped with a line saying
  so where pyarrow is absent);
- NetworkX: ``nx.read_edgelist`` of the same edge list, then ``nx.bfs_edges`` or ``nx.pagerank``,
  in a child process with a time limit (--nx-limit; NetworkX is skipped with a line saying so
  where it is absent, as are graphs beyond --nx-scale);
- GAP: where --gap DIR holds a built GAP Benchmark Suite (converter, bfs, pr), its converter
  reads the edge list (``converter -f g.el -b g.sg``) and its kernels run on the result; skipped
  with a line saying so otherwise.

    python benchmarks/load.py kron:20 urand:20 --json benchmarks/results/cpu-2core/load.json

--folder DIR writes the files there instead of a temporary folder (a folder on the disk to be
measured, where the temporary one is a tmpfs).
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gravel
from gravel.records import script_parser, write_record

TEXTS = (".mtx", ".txt", ".gr")
BINARIES = (".gravel", ".parquet")  # mapped or read by pyarrow, not parsed: no GPU path
HAVE_ARROW = importlib.util.find_spec("pyarrow") is not None
FORMATS = (*TEXTS, *BINARIES) if HAVE_ARROW else (*TEXTS, ".gravel")

_PROCESS = """
import json, os, sys, time
import gravel

def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))
"""

LOAD = (
    _PROCESS
    + """
from gravel.backends.cpu import csr
from gravel.io import _parse
path, small = {path!r}, {small!r}
limits = _parse.SMALL_TEXT_BYTES, csr.SMALL_ARCS
_parse.SMALL_TEXT_BYTES = csr.SMALL_ARCS = -1  # the warm-up loads every kernel of a large load
gravel.load(small, cache=False, progress=False, device={device!r})
_parse.SMALL_TEXT_BYTES, csr.SMALL_ARCS = limits
phases = {{"parse_s": 0.0, "build_s": 0.0}}

def timed(fn, key):  # fn, its seconds (the device's work done) added to phases[key]
    def call(*args, **kwargs):
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            if {device!r} == "cuda":
                import cupy
                cupy.cuda.Device().synchronize()
            phases[key] += time.perf_counter() - t
    return call

gio = sys.modules["gravel.io"]
for module in set(gio.FORMATS.values()):
    module.read = timed(module.read, "parse_s")  # the file's lines into edges
gio._build = timed(gio._build, "build_s")  # the edges into the CSR
hook = None
if {device!r} == "cuda":  # the device memory the load takes from CuPy's pool at most
    import cupy

    class Peak(cupy.cuda.MemoryHook):
        name = "peak"

        def __init__(self):
            self.used = self.peak = cupy.get_default_memory_pool().used_bytes()
            self.before = self.used

        def malloc_postprocess(self, **kw):
            self.used += kw["mem_size"]
            self.peak = max(self.peak, self.used)

        def free_postprocess(self, **kw):
            self.used -= kw["mem_size"]

    hook = Peak()
    hook.__enter__()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak RSS starts again from the RSS now
before = status("VmRSS:")
t = time.perf_counter()
G = gravel.load(path, cache=False, progress=False, device={device!r})
seconds = time.perf_counter() - t
peak = status("VmHWM:")
csr = sum(a.nbytes for a in (G.offsets, G.indices, G.weights) if a is not None)
got = {{"seconds": seconds, "csr_bytes": csr, "peak_over_csr": (peak - before) / csr}}
if hook is not None:
    hook.__exit__()
    got["device_peak_over_csr"] = (hook.peak - hook.before) / csr
print(json.dumps(got | phases))
"""
)

END_TO_END = (
    _PROCESS
    + """
import numpy as np
from gravel.cli.output import write_output
path, algorithm, out, device = {path!r}, {algorithm!r}, {out!r}, {device!r}
# BFS from the smallest vertex with an edge, as NetworkX's graph of the same file has it
def first(G):
    return int(np.flatnonzero(np.diff(G.offsets))[0])
run = {{"bfs": lambda G: gravel.bfs(G, first(G), device=device),
        "pagerank": lambda G: gravel.pagerank(G, device=device)}}[algorithm]
run(gravel.load(path, cache=False, progress=False, device=device))  # warm-up: compiled kernels
t0 = time.perf_counter()
G = gravel.load(path, cache=False, progress=False, device=device)
t1 = time.perf_counter()
res = run(G)
t2 = time.perf_counter()
first = [c for c in res.columns(G) if c != "vertex"][0]
write_output(out, first, res, G)
t3 = time.perf_counter()
print(json.dumps({{"load_s": t1 - t0, "run_s": t2 - t1, "write_s": t3 - t2, "total_s": t3 - t0}}))
"""
)

PYARROW = """
import json, time
import pyarrow as pa
from pyarrow import csv
path, small = {path!r}, {small!r}
def parse(p):  # an edge list of gravel's: its header line, then "source target" lines
    read = csv.ReadOptions(skip_rows=1, column_names=["source", "target"])
    types = csv.ConvertOptions(column_types={{"source": pa.int64(), "target": pa.int64()}})
    table = csv.read_csv(p, read_options=read, parse_options=csv.ParseOptions(delimiter=" "),
                         convert_options=types)
    return table.column(0).to_numpy(), table.column(1).to_numpy()
parse(small)  # warm-up: its threads started
t = time.perf_counter()
src, dst = parse(path)
print(json.dumps({{"seconds": time.perf_counter() - t, "edges": len(src)}}))
"""

NETWORKX = """
import json, time
import networkx as nx
path, algorithm = {path!r}, {algorithm!r}
t0 = time.perf_counter()
G = nx.read_edgelist(path, nodetype=int, create_using=nx.Graph)
t1 = time.perf_counter()
if algorithm == "bfs":
    list(nx.bfs_edges(G, min(G)))
else:
    nx.pagerank(G)
t2 = time.perf_counter()
print(json.dumps({{"load_s": t1 - t0, "run_s": t2 - t1, "total_s": t2 - t0}}))
"""


def child(code, timeout=None):
    """The JSON line a child process prints last, or None past `timeout` seconds."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    return json.loads(out.stdout.strip().splitlines()[-1])


def evict(path):
    """Drop `path`'s pages from the page cache (written back first), so that its next read is
    from the disk; a tmpfs keeps them."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def read_seconds(path, cold, block=1 << 23):
    """Seconds to read `path` whole in `block`-byte reads, from the disk if `cold`."""
    if cold:
        evict(path)
    buf = bytearray(block)
    t = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        while f.readinto(buf):
            pass
    return time.perf_counter() - t


def file_system(folder):
    """The type of the file system holding `folder` (the longest mount point above it)."""
    folder, best = os.path.realpath(folder), ("", "?")
    with open("/proc/mounts") as f:
        for line in f:
            mount, kind = line.split()[1:3]
            if (folder + "/").startswith(mount.rstrip("/") + "/") and len(mount) > len(best[0]):
                best = (mount, kind)
    return best[1]


def write_files(spec, folder):
    """Write the graph of `spec` in every format; the rows of their write times."""
    G = gravel.generate.from_spec(spec, progress=False, device="cpu")
    rows, name = [], spec.replace(":", "_")
    for suffix in FORMATS:
        path = Path(folder) / f"{name}{suffix}"
        t = time.perf_counter()
        gravel.save(G, path)
        seconds = time.perf_counter() - t
        size = path.stat().st_size
        rows.append(
            {
                "graph": spec,
                "step": "write",
                "format": suffix,
                "seconds": seconds,
                "MB": size / 1e6,
                "MB_per_s": size / 1e6 / seconds,
            }
        )
        print(f"{spec} write {suffix:8} {seconds:7.2f} s {size / 1e6 / seconds:8.1f} MB/s")
    return rows, G.n


def disk_rows(spec, folder):
    """The disk's read rate for each text file, cold and from the page cache: its rows."""
    rows, kind = [], file_system(folder)
    for suffix in TEXTS:
        path = Path(folder) / f"{spec.replace(':', '_')}{suffix}"
        mb = path.stat().st_size / 1e6
        for cache in ("cold", "warm"):
            seconds = read_seconds(path, cache == "cold")
            row = {"graph": spec, "step": "read", "format": suffix, "cache": cache}
            rows.append(row | {"file_system": kind, "seconds": seconds, "MB_per_s": mb / seconds})
            print(
                f"{spec} read  {suffix:8} {cache} ({kind}) {seconds:7.2f} s "
                f"{mb / seconds:8.1f} MB/s"
            )
    return rows


def pyarrow_rows(spec, edge_list, small):
    """pyarrow's multi-threaded CSV reader on the edge list, the columnar reader gravel's parse is
    held against: its rows, or none (and a line saying so) without pyarrow."""
    if not HAVE_ARROW:
        print(f"{spec} pyarrow: skipped, pyarrow is not installed")
        return []
    got = child(PYARROW.format(path=edge_list, small=small))
    mb = os.path.getsize(edge_list) / 1e6
    print(
        f"{spec} parse .txt pyarrow's CSV reader {got['seconds']:7.2f} s "
        f"{mb / got['seconds']:8.1f} MB/s"
    )
    return [{"graph": spec, "step": "parse", "format": ".txt", "system": "pyarrow", **got}]


def gap_times(gap, edge_list, folder):
    """GAP's converter and kernels on the edge list: seconds of each, or None without GAP."""
    tools = [gap / "converter", gap / "bfs", gap / "pr"] if gap else []
    if not tools or not all(t.is_file() for t in tools):
        return None
    el = Path(folder) / "g.el"
    with open(edge_list) as src, open(el, "w") as dst:
        dst.writelines(line for line in src if not line.startswith("#"))
    sg = Path(folder) / "g.sg"
    t = time.perf_counter()
    subprocess.run(
        [str(tools[0]), "-f", str(el), "-s", "-b", str(sg)], check=True, capture_output=True
    )
    times = {"converter_s": time.perf_counter() - t}
    trial = re.compile(r"Trial Time:\s+([0-9.]+)")
    for name, tool, flags in (("bfs", tools[1], ["-r", "0"]), ("pagerank", tools[2], [])):
        out = subprocess.run(
            [str(tool), "-f", str(sg), "-n", "1", *flags],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        times[f"{name}_s"] = float(trial.search(out)[1])
    return times


def main():
    p = script_parser(__doc__, repeat=1)
    p.add_argument("graphs", nargs="+", help="generator specs (kron:20, urand:20)")
    p.add_argument("--gap", type=Path, help="a built GAP Benchmark Suite checkout")
    p.add_argument(
        "--nx-scale",
        type=int,
        default=18,
        help="NetworkX on graphs of 2**S vertices at most (default 18)",
    )
    p.add_argument(
        "--folder", type=Path, help="where the files are written (default: a temporary folder)"
    )
    p.add_argument("--nx-limit", type=float, default=600, help="NetworkX's seconds (default 600)")
    a = p.parse_args()
    have_nx = importlib.util.find_spec("networkx") is not None
    from gravel.backends import cuda

    devices = ("cpu", "cuda") if cuda.available() else ("cpu",)
    rows = []
    for spec in a.graphs:
        with tempfile.TemporaryDirectory(dir=a.folder) as folder:
            # a small graph in every format: the writers' kernels compiled before they are timed,
            # and the loads' warm-up files
            warm = gravel.generate.kronecker(10, progress=False, device="cpu")
            for suffix in FORMATS:
                gravel.save(warm, Path(folder) / f"warm{suffix}")
            written, n = write_files(spec, folder)
            rows += written + disk_rows(spec, folder)
            name = spec.replace(":", "_")
            for suffix, device in ((s, d) for s in FORMATS for d in devices):
                if device == "cuda" and suffix in BINARIES:
                    continue
                path = str(Path(folder) / f"{name}{suffix}")
                small = str(Path(folder) / f"warm{suffix}")
                mb = os.path.getsize(path) / 1e6
                for cache in ("warm", "cold"):
                    if cache == "cold":
                        evict(path)
                    got = child(LOAD.format(path=path, small=small, device=device))
                    rows.append(
                        {
                            "graph": spec,
                            "step": "load",
                            "format": suffix,
                            "device": device,
                            "cache": cache,
                            **got,
                            "MB_per_s": mb / got["seconds"],
                        }
                    )
                    rate = mb / got["seconds"]
                    rate = f"{rate / 1e3:8.2f} GB/s" if device == "cuda" else f"{rate:8.1f} MB/s"
                    print(
                        f"{spec} load  {suffix:8} {device:4} {cache} {got['seconds']:7.2f} s "
                        f"{rate} (parse {got['parse_s']:.2f} s, "
                        f"{mb / max(got['parse_s'], 1e-9):.0f} MB/s; build "
                        f"{got['build_s']:.2f} s), peak {got['peak_over_csr']:.2f}x the CSR"
                        + (
                            f" (device {got['device_peak_over_csr']:.2f}x)"
                            if device == "cuda"
                            else ""
                        )
                    )
            edge_list = str(Path(folder) / f"{name}.txt")
            rows += pyarrow_rows(spec, edge_list, str(Path(folder) / "warm.txt"))
            for algorithm in ("bfs", "pagerank"):
                out = str(Path(folder) / f"{algorithm}.npy")
                for device in devices:
                    code = END_TO_END.format(
                        path=edge_list, algorithm=algorithm, out=out, device=device
                    )
                    got = child(code)
                    rows.append(
                        {
                            "graph": spec,
                            "step": "end to end",
                            "system": "gravel",
                            "device": device,
                            "algorithm": algorithm,
                            **got,
                        }
                    )
                    print(
                        f"{spec} {algorithm:8} gravel {device:4} load {got['load_s']:6.2f} s, run "
                        f"{got['run_s']:6.3f} s, write {got['write_s']:6.3f} s: "
                        f"{got['total_s']:6.2f} s"
                    )
                if not have_nx:
                    print(f"{spec} {algorithm:8} NetworkX: skipped, networkx is not installed")
                elif n > 2**a.nx_scale:
                    print(f"{spec} {algorithm:8} NetworkX: skipped, beyond --nx-scale {a.nx_scale}")
                else:
                    nx_got = child(NETWORKX.format(path=edge_list, algorithm=algorithm), a.nx_limit)
                    row = nx_got or {"total_s": None, "over_limit_s": a.nx_limit}
                    rows.append(
                        {
                            "graph": spec,
                            "step": "end to end",
                            "system": "networkx",
                            "algorithm": algorithm,
                            **row,
                        }
                    )
                    print(
                        f"{spec} {algorithm:8} NetworkX  "
                        + (
                            f"load {row['load_s']:6.2f} s, run {row['run_s']:6.3f} s: "
                            f"{row['total_s']:6.2f} s"
                            if nx_got
                            else f"over {a.nx_limit:.0f} s"
                        )
                    )
            gap = gap_times(a.gap, edge_list, folder)
            if gap is None:
                print(f"{spec} GAP: skipped, no built GAP Benchmark Suite (--gap DIR)")
            else:
                rows.append({"graph": spec, "step": "end to end", "system": "gap", **gap})
                print(
                    f"{spec} GAP converter {gap['converter_s']:.2f} s, bfs {gap['bfs_s']:.3f}"
                    f" s, pr {gap['pagerank_s']:.3f} s"
                )
    if a.json:
        write_record(a.json, "benchmarks/load.py", rows)


if __name__ == "__main__":
    main()
