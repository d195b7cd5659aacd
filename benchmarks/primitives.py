"""Issue 22's primitives on the GPU beside gravel's CPU path and NetworkX: maximal independent set,
greedy colouring, label propagation, Louvain, minimum spanning forest (Boruvka), HITS, SALSA,
who-to-follow, personalized PageRank and strongly connected components.

Each primitive runs on each graph (default kron:22 and urand:22; MSF on the graph with random
weights 1..64, SCC on the directed graph of the same generator; personalized PageRank seeded at, and
who-to-follow asked for, the highest-degree vertices) on the GPU and on the CPU. Times are
the result's own: CUDA events around the GPU work with the graph already on the device, the median
of --repeat runs after a warm-up; wall time on the CPU, the median of --cpu-repeat runs (kernels are
compiled on a small graph first and compiling is never timed). --devices times one path alone
(the GPU rows in one call, the CPU's slow ones in another); the JSON is written after each graph.
HITS runs a fixed 20 iterations.
NetworkX cannot finish these graphs in reasonable time, so it runs on the same generators at
--nx-scale (default 14) instead, in a child process killed after --nx-timeout seconds, with gravel's
GPU and CPU paths timed on that graph too, so that each row compares like with like. NetworkX has
no SALSA and no who-to-follow: those rows have no NetworkX figure.

    PYTHONPATH=src python benchmarks/primitives.py --json benchmarks/results/h100/primitives.json
"""

import gc
import multiprocessing
import statistics
import time

import gravel
from gravel import generate, transform
from gravel.records import machine, script_parser, write_record

#: HITS iterations per timed run (as `gravel bench` times it)
HITS_ITERATIONS = 20
#: seconds a NetworkX child may take to build its graph beyond --nx-timeout
BUILD_ALLOWANCE_S = 120


def _mis(G, device):
    return gravel.maximal_independent_set(G, seed=1, device=device)


def _coloring(G, device):
    return gravel.greedy_color(G, device=device)


def _lpa(G, device):
    return gravel.label_propagation_communities(G, device=device)


def _msf(G, device):
    return gravel.minimum_spanning_forest(G, device=device)


def _hits(G, device):
    return gravel.hits(G, max_iter=HITS_ITERATIONS, tol=0.0, device=device)


def _scc(G, device):
    return gravel.strongly_connected_components(G, device=device)


def _louvain(G, device):
    return gravel.louvain_communities(G, seed=1, device=device)


def _salsa(G, device):
    return gravel.salsa(G, device=device)


def _wtf(G, device):
    return gravel.who_to_follow(G, hubs(G)[0], device=device)


def _ppr(G, device):
    return gravel.pagerank(G, personalization=dict.fromkeys(hubs(G), 1.0), device=device)


def hubs(G, k=4):
    """The `k` vertices of largest out-degree (ties by smaller id): the seeds of personalized
    PageRank, the first one who-to-follow's user; the same on NetworkX's copy of G."""
    import numpy as np

    order = np.lexsort((np.arange(G.n), -G.out_degree))
    return [int(v) for v in order[:k]]


def _nx_call(name, g, seeds):
    """NetworkX's function for primitive `name` on the networkx graph g, run to the end."""
    import networkx as nx

    calls = {
        "louvain": lambda: nx.community.louvain_communities(g, seed=1),
        "ppr": lambda: nx.pagerank(g, personalization=dict.fromkeys(seeds, 1.0)),
        "mis": lambda: nx.maximal_independent_set(g, seed=1),
        "coloring": lambda: nx.greedy_color(g, "largest_first"),
        "lpa": lambda: list(nx.community.label_propagation_communities(g)),
        "msf": lambda: list(nx.minimum_spanning_edges(g, algorithm="boruvka", data=False)),
        "hits": lambda: nx.hits(g, max_iter=HITS_ITERATIONS),
        "scc": lambda: list(nx.strongly_connected_components(g)),
    }
    return calls[name]()


#: name -> (gravel's call, the graph it runs on: "plain", "weighted" or "directed")
PRIMITIVES = {
    "mis": (_mis, "plain"),
    "coloring": (_coloring, "plain"),
    "lpa": (_lpa, "plain"),
    "msf": (_msf, "weighted"),
    "hits": (_hits, "plain"),
    "scc": (_scc, "directed"),
    "louvain": (_louvain, "plain"),
    "salsa": (_salsa, "plain"),
    "wtf": (_wtf, "plain"),
    "ppr": (_ppr, "plain"),
}
#: primitives NetworkX has no function for
NO_NETWORKX = {"salsa", "wtf"}


def build(spec, kind):
    """The graph of generator `spec` that a primitive runs on: as generated (undirected), with
    random weights 1..64, or generated directed; generated on the CPU, so that NetworkX's child
    builds the very graph gravel times."""
    if kind == "directed":
        family, *numbers = spec.split(":")
        make = {"kron": generate.kronecker, "urand": generate.uniform_random}[family]
        return make(*map(int, numbers), directed=True, device="cpu")
    G = generate.from_spec(spec, device="cpu")
    return transform.add_random_weights(G) if kind == "weighted" else G


def _nx_child(spec, kind, name, queue):
    G = build(spec, kind)
    g, seeds = G.to_networkx(), hubs(G)
    start = time.perf_counter()
    _nx_call(name, g, seeds)
    queue.put(time.perf_counter() - start)


def networkx_seconds(spec, kind, name, timeout):
    """NetworkX's wall time for `name` on `spec`'s graph in a spawned child, or None after
    `timeout` seconds (plus the build allowance), when the child is killed."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_nx_child, args=(spec, kind, name, queue))
    child.start()
    child.join(timeout + BUILD_ALLOWANCE_S)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return queue.get() if not queue.empty() else None


def median_ms(fn, repeat, warm):
    """Median of `repeat` results' own times (ms), after `warm` untimed runs."""
    for _ in range(warm):
        fn()
    return 1e3 * statistics.median(fn().time_s for _ in range(repeat))


def measure(spec, names, repeat, cpu_repeat, devices=("cuda", "cpu"), nx_timeout=None):
    """Rows for the graphs of `spec`: each primitive on the GPU and the CPU (those of `devices`)
    and NetworkX."""
    rows = []
    graphs = {}
    for name in names:
        call, kind = PRIMITIVES[name]
        if kind not in graphs:
            graphs[kind] = build(spec, kind)
        G = graphs[kind]
        row = {"graph": spec, "algo": name, "graph_kind": kind, "n": G.n, "nnz": G.nnz}
        line = f"{spec:>10} {name:>8}:"
        if "cuda" in devices:
            res = call(G, "cuda")
            row["gpu_ms"] = median_ms(lambda: call(G, "cuda"), repeat, warm=1)
            row |= {"gpu_iterations": res.iterations, "gpu_strategy": res.strategy}
            line += f" gpu {row['gpu_ms']:10.2f} ms"
        if "cpu" in devices:
            row["cpu_ms"] = median_ms(lambda: call(G, "cpu"), cpu_repeat, warm=0)
            line += f"  cpu {row['cpu_ms']:10.2f} ms"
        if len(devices) == 2:
            row["speedup_vs_cpu"] = row["cpu_ms"] / row["gpu_ms"]
            line += f" ({row['speedup_vs_cpu']:6.1f}x)"
        if nx_timeout is not None and name in NO_NETWORKX:
            line += "  networkx: no such function"
        elif nx_timeout is not None:
            s = networkx_seconds(spec, kind, name, nx_timeout)
            ours = row.get("gpu_ms", row.get("cpu_ms"))
            row["networkx_ms"] = None if s is None else 1e3 * s
            row["networkx_timeout_s"] = nx_timeout
            row["speedup_vs_networkx"] = None if s is None else 1e3 * s / ours
            line += (
                f"  networkx > {nx_timeout} s"
                if s is None
                else f"  networkx {1e3 * s:10.1f} ms ({row['speedup_vs_networkx']:8.1f}x)"
            )
        rows.append(row)
        print(line, flush=True)
    del graphs
    gc.collect()
    if "cuda" in devices:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    return rows


def main():
    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="*", default=["kron:22", "urand:22"], help="kron or urand specs")
    p.add_argument("--algo", action="append", choices=sorted(PRIMITIVES), help="default: all")
    p.add_argument(
        "--devices", nargs="+", choices=("cuda", "cpu"), default=["cuda", "cpu"], help="paths timed"
    )
    p.add_argument("--cpu-repeat", type=int, default=1, help="timed CPU runs (median)")
    p.add_argument("--nx-scale", type=int, default=14, help="scale of NetworkX's graphs")
    p.add_argument("--nx-timeout", type=float, default=120.0, help="seconds per NetworkX call")
    p.add_argument("--no-networkx", action="store_true", help="leave NetworkX out")
    a = p.parse_args()
    names = a.algo or list(PRIMITIVES)
    devices = tuple(sorted(set(a.devices), reverse=True))  # cuda before cpu
    info = machine()
    print(f"{info.get('gpu')}, {info['threads']} CPU threads")
    print("warm-up (compiling every kernel):")
    measure("kron:10", names, 1, 1, devices)
    rows = []
    specs = [(spec, None) for spec in a.graphs]
    if not a.no_networkx:
        families = sorted({spec.split(":")[0] for spec in a.graphs})
        specs += [(f"{family}:{a.nx_scale}", a.nx_timeout) for family in families]
    for spec, nx_timeout in specs:
        rows += measure(spec, names, a.repeat, a.cpu_repeat, devices, nx_timeout)
        if a.json:  # after each graph: a run cut off by a time limit keeps what it measured
            write_record(
                a.json,
                "benchmarks/primitives.py",
                rows,
                hits_iterations=HITS_ITERATIONS,
                nx_scale=a.nx_scale,
            )


if __name__ == "__main__":
    main()
