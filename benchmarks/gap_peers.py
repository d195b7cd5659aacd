"""The peers' cells of benchmarks/gap.py's table: NetworKit's and igraph's times for the
primitives each runs as GAP does, each peer's answer checked against gravel's (benchmarks/peers.py's
cases) before it is timed."""

import statistics
import time

from peers import cases, interleaved, peer_graphs  # benchmarks/peers.py

#: the primitives a GAP table (benchmarks/gap.py --peers) shows the peers on: those each peer runs
#: as GAP's runs them (PageRank: the peers iterate to a tolerance, not a count; BC: one source)
GAP_PRIMITIVES = ("bfs", "sssp", "cc", "tc")

#: a checked run at least this long is its cell's time: one more would double a cell that may
#: take minutes (igraph counts triangles on one thread), where a warm-up's gain is small beside it
LONG_RUN_S = 10.0


def peer_cells(G, W, sources, repeat, threads, algos=GAP_PRIMITIVES, graphs=None):
    """NetworKit's and igraph's validated times for each primitive of `algos` on G (W for SSSP),
    the median over `sources` (one for CC and TC): the cells benchmarks/gap.py adds to its table.

    Parameters
    ----------
    G, W : Graph
        The simple undirected graph and its weighted twin.
    sources : list of int
        BFS's and SSSP's sources.
    repeat : int
        Timed runs per source, after the run whose answer is checked (the warm-up); none where
        that run took LONG_RUN_S or more, whose time then stands.
    threads : int
        NetworKit's threads (igraph runs on one).
    algos : iterable of str
        Primitives among :data:`GAP_PRIMITIVES`.
    graphs : tuple, optional
        :func:`peers.peer_graphs` (G, W) made already (for several calls on one graph); None
        makes them.

    Returns
    -------
    dict
        name -> {"networkit_s": seconds, "igraph_s": seconds; None where the peer's answer differs
        from gravel's, which "peer_problems" then names}.
    """
    import networkit as nk

    nk.setNumberOfThreads(threads)
    graphs = graphs or peer_graphs(G, W)
    on = {"networkit": graphs[:2], "igraph": graphs[2:]}
    cells = {}
    for name in algos:
        each = sources if name in ("bfs", "sssp") else sources[:1]
        times = {k: [] for k in on}
        problems = []
        for v in each:
            ours, *theirs, check = cases(G, W, v)[name]
            answer = ours()
            for k, f in zip(on, theirs, strict=True):
                if times[k] is None:
                    continue
                start = time.perf_counter()
                given = f(*on[k])
                took = time.perf_counter() - start
                if not check(answer, given):
                    problems.append(f"{k}'s answer from source {v} differs from gravel's")
                    times[k] = None
                elif took >= LONG_RUN_S:
                    times[k].append(took)
                else:
                    runs = interleaved({k: lambda f=f, k=k: f(*on[k])}, repeat, warm_up=False)[k]
                    times[k].append(statistics.median(runs))
        cells[name] = {f"{k}_s": t and statistics.median(t) for k, t in times.items()}
        cells[name]["peer_problems"] = problems
    return cells
