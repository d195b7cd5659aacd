"""NetworkX alone against NetworkX dispatching to gravel (``backend="gravel"``): nx.pagerank,
nx.betweenness_centrality(k=64, seed=SEED) and nx.connected_components on NetworkX graphs of about a
million edges, on gravel's CPU path and, where CuPy sees a GPU, on its GPU path.

Each graph (a generator spec or a file) is read by gravel and turned into an ``nx.Graph`` (or
``nx.DiGraph``) once; building it is not timed. Per algorithm, NetworkX alone runs --nx-repeat times
(pure Python: nothing to warm up). Then per device (``nx.config.backends.gravel.device``), after a
warm-up call that compiles the kernels and fills NetworkX's conversion cache: "excl." is the median
of --repeat calls with the conversion cached on the graph (``G.__networkx_cache__``); "incl." the
median of --repeat calls each with that cache emptied first, as on a fresh graph (conversion to
gravel's CSR and, on the GPU, the copy to the device included). Times are wall clock around the
NetworkX call, including the conversion of gravel's arrays back to NetworkX's dicts and sets.
"diff" compares gravel's answer to NetworkX's: the largest absolute difference of the PageRank and
betweenness values, and whether the components are equal (0) or not (1).

    python benchmarks/nx_backend.py kron:16 --json benchmarks/results/cpu-2core/nx_backend.json
"""

import statistics
import time

import networkx as nx

from gravel.backends import cuda
from gravel.bench import script_parser, write_record
from gravel.cli import open_graph

# the graph comes from the caller: NetworkX's warning about cached conversions does not apply
nx.config.warnings_to_ignore.add("cache")


def calls(k, seed):
    """name -> a function of (G, **backend) calling NetworkX, and one comparing two answers."""

    def largest_difference(a, b):
        return max(abs(a[v] - b[v]) for v in a)

    def same_components(a, b):
        return float(sorted(map(sorted, a)) != sorted(map(sorted, b)))

    return {
        "pagerank": (lambda G, **b: nx.pagerank(G, **b), largest_difference),
        f"betweenness_centrality(k={k})": (
            lambda G, **b: nx.betweenness_centrality(G, k=k, seed=seed, **b),
            largest_difference,
        ),
        "connected_components": (
            lambda G, **b: list(nx.connected_components(G, **b)),
            same_components,
        ),
    }


def timed(fn, before=None):
    """Seconds of fn(), and its answer; `before` runs first, untimed."""
    if before:
        before()
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def median_s(fn, repeat, before=None):
    return statistics.median(timed(fn, before)[0] for _ in range(repeat))


def main():
    p = script_parser(__doc__, repeat=3)
    p.add_argument("graphs", nargs="+", help="generator specs or files")
    p.add_argument("--nx-repeat", type=int, default=1, help="runs of NetworkX alone (median)")
    p.add_argument("--k", type=int, default=64, help="betweenness sources")
    p.add_argument("--seed", type=int, default=1, help="seed of betweenness' source sample")
    p.add_argument("--devices", nargs="+", choices=("cpu", "cuda"), help="default: cpu (and cuda)")
    p.add_argument("--algorithms", nargs="+", help="names of the calls to run (default: all)")
    p.add_argument("--undirected", action="store_true", help="read edge lists as undirected")
    a = p.parse_args()
    devices = a.devices or ["cpu"] + (["cuda"] if cuda.available() else [])
    # compile each device's kernels on a small graph first: the warm-ups below then time nothing
    for dev in devices:
        with nx.config.backends.gravel(device=dev):
            for fn, _ in calls(2, a.seed).values():
                fn(nx.path_graph(100), backend="gravel")
    rows = []
    for spec in a.graphs:
        G, name = open_graph(spec, undirected=a.undirected)
        t, H = timed(G.to_networkx)
        print(
            f"{name}: {H.number_of_nodes():,} nodes, {H.number_of_edges():,} edges "
            f"(nx.Graph built in {t:.1f} s, not timed)",
            flush=True,
        )
        for algorithm, (call, compare) in calls(a.k, a.seed).items():
            if a.algorithms and not any(algorithm.startswith(x) for x in a.algorithms):
                continue
            alone = [timed(lambda: call(H)) for _ in range(a.nx_repeat)]
            nx_s, want = statistics.median(t for t, _ in alone), alone[0][1]
            for dev in devices:
                with nx.config.backends.gravel(device=dev):
                    H.__networkx_cache__.clear()
                    got = call(H, backend="gravel")  # warm-up: fills the cache
                    excl = median_s(lambda: call(H, backend="gravel"), a.repeat)
                    incl = median_s(
                        lambda: call(H, backend="gravel"), a.repeat, H.__networkx_cache__.clear
                    )
                row = {
                    "graph": name,
                    "nodes": H.number_of_nodes(),
                    "edges": H.number_of_edges(),
                    "algorithm": algorithm,
                    "device": dev,
                    "networkx_s": nx_s,
                    "gravel_incl_conversion_s": incl,
                    "gravel_excl_conversion_s": excl,
                    "speedup_incl": nx_s / incl,
                    "speedup_excl": nx_s / excl,
                    "diff": compare(want, got),
                    "networkx_runs": a.nx_repeat,
                    "gravel_runs": a.repeat,
                }
                rows.append(row)
                print(
                    f"{name} {algorithm:>30} {dev:>4}: networkx {nx_s:8.3f} s; gravel incl. "
                    f"{incl:7.3f} s ({row['speedup_incl']:5.1f}x), excl. {excl:7.3f} s "
                    f"({row['speedup_excl']:6.1f}x); diff {row['diff']:.1e}",
                    flush=True,
                )
    if a.json:
        write_record(a.json, "benchmarks/nx_backend.py", rows, networkx=nx.__version__)


if __name__ == "__main__":
    main()
