"""gravel's CPU path beside NetworKit and igraph on the same graphs, in one process: BFS, SSSP,
PageRank, CC, k-core, triangle counting, label propagation, Louvain, Leiden, eigenvector
centrality, HITS, the minimum spanning forest, greedy colouring, exact betweenness and closeness
centrality, strongly connected components, Jaccard similarity and a maximal independent set, each
validated before it is timed, with gravel's time over each peer's (a peer without the algorithm
left blank: HITS and colouring are igraph's alone, the maximal independent set NetworKit's, whose
Luby finds one as gravel does where igraph lists them all). NetworKit's Katz centrality is left
out: it stops once its bounds separate the ranking, so its scores are not Katz's to any tolerance
(0.024 from the exact ones, L1, on kron:12, where gravel's are within 1e-10).

The three libraries get the same graph (gravel's, symmetrised and simple; SSSP on it with weights
1..255; SCC on a random orientation of it, Jaccard on 2^18 random two-hop pairs: :class:`Twins`),
the same source (the highest-degree vertex) and the same threads (--threads, default every core:
Numba's and NetworKit's; igraph runs on one). Runs are interleaved, gravel then each peer, round
after round, so that a machine shared with other jobs slows them alike; each cell is the median of
--repeat rounds after one warm-up round. Each library runs its own method with its defaults:
PageRank to its own tolerance (igraph's PRPACK solves exactly), label propagation as gravel's
semi-synchronous rounds, NetworKit's PLP and igraph's asynchronous one, Louvain as gravel's (seed
1), NetworKit's PLM and igraph's multilevel, Leiden as gravel's (seed 1), NetworKit's
ParallelLeiden and igraph's (modularity); the communities' modularity is printed beside them, and
each colouring's number of colours. Validation: BFS depths, SSSP distances, CC's and SCC's
partitions, core numbers, the triangle total and the spanning forest's weight equal gravel's;
betweenness, closeness and Jaccard scores within 1e-9 of the largest (closeness as NetworkX's,
Wasserman and Faust's, which igraph's is scaled to); a peer's independent set passes gravel's
verifier (independent and maximal); PageRank, eigenvector and HITS's hub scores within 1e-4 of
gravel's (L1, each scaled to sum 1); a colouring passes gravel's verifier (proper, and greedy: a
vertex of colour c has neighbours of every colour below c); a peer that differs is reported and not
timed. gravel's eigenvector centrality runs to tol 1e-8 (at its default, NetworkX's 1e-6, it stops
1e-3 from the peers' on kron:20), HITS to its default.
Needs ``pip install 'gravel[peers]'``.

    python benchmarks/peers.py kron:20 urand:20 --algo tc --algo lpa --algo louvain
"""

import statistics
import time

import numba
import numpy as np

import gravel
from gravel.algorithms.coloring import verify_coloring
from gravel.algorithms.lpa import modularity
from gravel.algorithms.mis import verify_mis
from gravel.cli import open_graph
from gravel.records import script_parser, write_record

ALGOS = (
    "bfs",
    "sssp",
    "pagerank",
    "cc",
    "kcore",
    "tc",
    "lpa",
    "louvain",
    "leiden",
    "eigenvector",
    "hits",
    "msf",
    "coloring",
    "bc",
    "closeness",
    "scc",
    "jaccard",
    "mis",
)


def peer_graphs(G, W):
    """NetworKit's and igraph's copies of the simple undirected G, and NetworKit's and igraph's of
    its weighted twin W (weights as float64 edge attributes)."""
    import igraph as ig
    import networkit as nk

    src, dst = (a.astype(np.int64) for a in G.edges())
    up = src < dst
    u, v = src[up], dst[up]
    w = W.weights[up].astype(np.float64)
    ones = np.ones(u.size)
    nkg = nk.graph.GraphFromCoo((ones, (u, v)), G.n, weighted=False, directed=False)
    nkw = nk.graph.GraphFromCoo((w, (u, v)), G.n, weighted=True, directed=False)
    nkg.indexEdges()
    edges = np.column_stack((u, v))
    igg = ig.Graph(n=G.n, edges=edges, directed=False)
    igw = ig.Graph(n=G.n, edges=edges, directed=False)
    igw.es["weight"] = w
    return nkg, nkw, igg, igw


class Twins:
    """What SCC and Jaccard run on, made once per graph: a directed graph D, each edge of G kept in
    one direction chosen by a hash of its ends (so D has strongly connected components of every
    size), with NetworKit's and igraph's copies; and PAIRS two-hop vertex pairs (u, w), u next to
    some v next to w, u != w, drawn at random (seed 1), as arrays and as the list of tuples the
    peers take."""

    PAIRS = 1 << 18

    def __init__(self, G):
        import igraph as ig
        import networkit as nk

        src, dst = (a.astype(np.int64) for a in G.edges())
        up = src < dst
        u, v = src[up], dst[up]
        flip = ((u * 2654435761 + v) >> 7) & 1 == 1
        u, v = np.where(flip, v, u), np.where(flip, u, v)
        self.D = gravel.Graph.from_edges(u, v, n=G.n, directed=True)
        self.nkd = nk.graph.GraphFromCoo((np.ones(u.size), (u, v)), G.n, directed=True)
        self.igd = ig.Graph(n=G.n, edges=np.column_stack((u, v)), directed=True)
        rng = np.random.default_rng(1)
        arcs = rng.integers(0, src.size, self.PAIRS) if src.size else np.zeros(0, np.int64)
        mid = dst[arcs]
        w = dst[G.offsets[mid] + rng.integers(0, 1 << 62, arcs.size) % np.diff(G.offsets)[mid]]
        keep = src[arcs] != w
        self.array = np.column_stack((src[arcs][keep], w[keep]))
        self.pairs = list(map(tuple, self.array.tolist()))

    def in_order(self, scored):
        """NetworKit's ((u, w), score) list, which sorts the pairs, as scores in PAIRS' order."""
        order = np.lexsort((self.array[:, 1], self.array[:, 0]))
        scores = np.empty(len(scored))
        scores[order] = [s for _, s in scored]
        return scores


def cases(G, W, source, twins=None):
    """name -> (gravel's call, NetworKit's call on (nkg, nkw), igraph's on (igg, igw), check): each
    call returns its answer; check(gravel's, a peer's) is True where they agree (the partitions'
    modularity, printed, where the methods differ). SCC and Jaccard run on `twins` (a
    :class:`Twins` of G; needed for them alone)."""
    import networkit as nk

    degree = G.out_degree.astype(np.float64)
    triples = float(np.sum(degree * (degree - 1) / 2))
    arcs = W.to_scipy()

    def forest_weight(result):
        # float64: a float32 total of a large forest's weights rounds
        return float(np.asarray(arcs[result.src, result.dst], np.float64).sum())

    def nk_run(algorithm, read):
        algorithm.run()
        return read(algorithm)

    def nk_part(algorithm):
        return nk_run(algorithm, lambda a: a.getPartition().getVector())

    def closeness_as_gravels(scores):
        # igraph's closeness counts the reached vertices r alone, (r - 1) / sum, NaN where r is 1;
        # gravel's (NetworkX's, Wasserman and Faust's) scales it by (r - 1) / (n - 1)
        labels = gravel.connected_components(G, device="cpu").labels
        r = np.bincount(labels, minlength=G.n)[labels]
        return np.nan_to_num(np.asarray(scores, np.float64)) * (r - 1) / max(G.n - 1, 1)

    table = {
        "bfs": (
            lambda: gravel.bfs(G, source, device="cpu").depth,
            lambda nkg, nkw: nk_run(
                nk.distance.BFS(nkg, source, False), lambda a: a.getDistances()
            ),
            lambda igg, igw: igg.distances(source=source)[0],
            _same_distances,
        ),
        "sssp": (
            lambda: gravel.sssp(W, source, device="cpu").distance,
            lambda nkg, nkw: nk_run(
                nk.distance.Dijkstra(nkw, source, False), lambda a: a.getDistances()
            ),
            lambda igg, igw: igw.distances(source=source, weights="weight")[0],
            _same_distances,
        ),
        "pagerank": (
            lambda: gravel.pagerank(G, device="cpu").rank,
            lambda nkg, nkw: nk_run(
                nk.centrality.PageRank(
                    nkg, distributeSinks=nk.centrality.SinkHandling.DistributeSinks
                ),
                lambda a: a.scores(),
            ),
            lambda igg, igw: igg.pagerank(),
            same_ranks,
        ),
        "cc": (
            lambda: gravel.connected_components(G, device="cpu").labels,
            lambda nkg, nkw: nk_part(nk.components.ConnectedComponents(nkg)),
            lambda igg, igw: igg.connected_components().membership,
            _same_partition,
        ),
        "kcore": (
            lambda: gravel.core_number(G, device="cpu").core,
            lambda nkg, nkw: nk_run(nk.centrality.CoreDecomposition(nkg), lambda a: a.scores()),
            lambda igg, igw: igg.coreness(),
            lambda a, b: np.array_equal(np.asarray(a, np.int64), np.asarray(b, np.int64)),
        ),
        "tc": (
            lambda: gravel.triangles(G, per_vertex=False, device="cpu").total,
            lambda nkg, nkw: nk_run(
                nk.sparsification.TriangleEdgeScore(nkg), lambda a: int(sum(a.scores())) // 3
            ),
            lambda igg, igw: _igraph_triangles(igg, triples),
            lambda a, b: int(a) == int(b),
        ),
        "eigenvector": (
            lambda: gravel.eigenvector_centrality(G, tol=1e-8, device="cpu").centrality,
            lambda nkg, nkw: nk_run(nk.centrality.EigenvectorCentrality(nkg), lambda a: a.scores()),
            lambda igg, igw: igg.eigenvector_centrality(),
            same_ranks,
        ),
        "hits": (
            lambda: gravel.hits(G, device="cpu").hubs,
            None,
            lambda igg, igw: igg.hub_score(),
            same_ranks,
        ),
        "msf": (
            lambda: gravel.minimum_spanning_forest(W, device="cpu"),
            lambda nkg, nkw: nk_run(nk.graph.KruskalMSF(nkw), lambda a: a.getTotalWeight()),
            lambda igg, igw: sum(
                igw.es[igw.spanning_tree(weights="weight", return_tree=False)]["weight"]
            ),
            lambda a, b: forest_weight(a) == float(b),
        ),
        "coloring": (
            lambda: gravel.greedy_color(G, device="cpu").colors,
            None,
            lambda igg, igw: igg.vertex_coloring_greedy(),
            lambda a, b: verify_coloring(G, np.asarray(b)) == [],  # proper and greedy
        ),
        "bc": (  # exact: NetworKit counts each pair both ways
            lambda: gravel.betweenness_centrality(G, normalized=False, device="cpu").centrality,
            lambda nkg, nkw: nk_run(
                nk.centrality.Betweenness(nkg, normalized=False), lambda a: np.array(a.scores()) / 2
            ),
            lambda igg, igw: igg.betweenness(directed=False),
            _same_scores,
        ),
        "closeness": (
            lambda: gravel.closeness_centrality(G, device="cpu").closeness,
            lambda nkg, nkw: nk_run(
                nk.centrality.Closeness(nkg, True, nk.centrality.ClosenessVariant.GENERALIZED),
                lambda a: a.scores(),
            ),
            lambda igg, igw: closeness_as_gravels(igg.closeness()),
            _same_scores,
        ),
        "scc": (
            lambda: gravel.strongly_connected_components(twins.D, device="cpu").labels,
            lambda nkg, nkw: nk_run(
                nk.components.StronglyConnectedComponents(twins.nkd),
                lambda a: a.getPartition().getVector(),
            ),
            lambda igg, igw: twins.igd.connected_components(mode="strong").membership,
            _same_partition,
        ),
        "jaccard": (  # NetworKit answers in the pairs' sorted order
            lambda: gravel.link_prediction(G, twins.array, device="cpu").score,
            lambda nkg, nkw: nk.linkprediction.JaccardIndex(nkg).runOn(twins.pairs),
            lambda igg, igw: igg.similarity_jaccard(pairs=twins.pairs, loops=False),
            lambda a, b: _same_scores(a, twins.in_order(b) if isinstance(b[0], tuple) else b),
        ),
        "mis": (  # igraph's maximal sets are all of them, listed: not this problem
            lambda: gravel.maximal_independent_set(G, seed=1, device="cpu").in_set,
            lambda nkg, nkw: nk.independentset.Luby().run(nkg),
            None,
            lambda a, b: verify_mis(G, np.asarray(b, bool)) == [],
        ),
        "lpa": (
            lambda: gravel.label_propagation_communities(G, device="cpu").labels,
            lambda nkg, nkw: nk_part(nk.community.PLP(nkg)),
            lambda igg, igw: igg.community_label_propagation().membership,
            None,
        ),
        "louvain": (
            lambda: gravel.louvain_communities(G, seed=1, device="cpu").labels,
            lambda nkg, nkw: nk_part(nk.community.PLM(nkg)),
            lambda igg, igw: igg.community_multilevel().membership,
            None,
        ),
        "leiden": (
            lambda: gravel.leiden_communities(G, seed=1, device="cpu").labels,
            lambda nkg, nkw: nk_part(nk.community.ParallelLeiden(nkg)),
            lambda igg, igw: igg.community_leiden(objective_function="modularity").membership,
            None,
        ),
    }
    more = (twins.igd,) if twins else ()
    return {
        name: (ours, nk, ig and _uncached(ig, more), check)
        for name, (ours, nk, ig, check) in table.items()
    }


def _uncached(call, more=()):
    """igraph's `call` on (igg, igw), the cached properties of those graphs and of the `more` it
    reads cleared first: igraph answers a second components call on a connected graph from its
    cache (urand:18's SCC in 24 ms, 540-640 ms uncached: cpu-2core/igraph-cache-2026-12-07.txt),
    so that each timed call starts as the first did."""

    def fresh(igg, igw):
        for g in (igg, igw, *more):
            getattr(g, "__invalidate_cache")()
        return call(igg, igw)

    return fresh


def _same_distances(a, b):
    """gravel's distances (-1 or inf where unreached) equal a peer's (inf or its largest double
    where unreached)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    a = np.where((a < 0) | np.isinf(a), np.inf, a)
    b = np.where(b > 1e300, np.inf, b)
    return np.array_equal(a, b)


def _same_scores(a, b):
    """Scores equal to within 1e-9 of the largest (float64 sums taken in other orders)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    scale = 1e-9 * max(np.abs(a).max(initial=0), 1)
    return a.shape == b.shape and bool(np.abs(a - b).max(initial=0) <= scale)


def same_ranks(a, b):
    """PageRank vectors within 1e-4 of each other (L1), each scaled to sum 1 (NetworKit's leaves
    out the isolated vertices' share)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.abs(a / a.sum() - b / b.sum()).sum()) < 1e-4


def _dense(labels):
    return np.unique(np.asarray(labels), return_inverse=True)[1].ravel()


def _same_partition(a, b):
    a, b = _dense(a), _dense(b)
    pairs = np.unique(a.astype(np.int64) * (b.max() + 1) + b)
    return pairs.size == a.max() + 1 == b.max() + 1


def _igraph_triangles(igg, triples):
    """igraph's triangle total, from its global transitivity (3 triangles over the `triples`
    connected triples: one degree-ordered pass over the graph that counts both)."""
    return round(igg.transitivity_undirected() * triples / 3)


def interleaved(calls, repeat, warm_up=True):
    """Seconds of each call in `calls` (name -> function of no arguments), `repeat` rounds after a
    warm-up round (none if not `warm_up`: the caller has just run them), the calls taking turns
    within each round; name -> list of seconds."""
    times = {name: [] for name in calls}
    for r in range(0 if warm_up else 1, repeat + 1):
        for name, fn in calls.items():
            t = time.perf_counter()
            fn()
            if r:
                times[name].append(time.perf_counter() - t)
    return times


def main():
    import igraph as ig
    import networkit as nk

    p = script_parser(__doc__, repeat=5)
    p.add_argument("graphs", nargs="+", help="generator specs or files (made undirected, simple)")
    p.add_argument("--algo", action="append", choices=ALGOS, help="repeatable; default: all")
    p.add_argument("--peer", action="append", choices=("networkit", "igraph"), help="default both")
    p.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    a = p.parse_args()
    numba.set_num_threads(a.threads)
    nk.setNumberOfThreads(a.threads)
    peers = a.peer or ["networkit", "igraph"]
    versions = {"networkit": nk.__version__, "igraph": ig.__version__}
    print(f"threads {a.threads}; " + ", ".join(f"{k} {versions[k]}" for k in peers))
    print(
        f"{'graph':>10} {'primitive':>9} {'gravel ms':>10}"
        + "".join(f" {k + ' ms':>13} {'/ ' + k:>11}" for k in peers)
    )
    rows = []
    for spec in a.graphs:
        G = open_graph(spec)[0].simple_undirected()
        W = gravel.transform.add_random_weights(G, 1, 255, seed=1)
        nkg, nkw, igg, igw = peer_graphs(G, W)
        source = int(np.argmax(G.out_degree))
        on = {"networkit": (nkg, nkw), "igraph": (igg, igw)}
        twins = Twins(G) if not a.algo or {"scc", "jaccard"} & set(a.algo) else None
        for name, (ours, *theirs, check) in cases(G, W, source, twins).items():
            if a.algo and name not in a.algo:
                continue
            calls = {"gravel": ours} | {
                k: (lambda f=f, k=k: f(*on[k]))
                for k, f in zip(("networkit", "igraph"), theirs)
                if k in peers and f is not None
            }
            others = [k for k in calls if k != "gravel"]  # NetworKit first, then igraph
            row = {"graph": spec, "primitive": name}
            answer = ours()
            for k in others:
                theirs_answer = calls[k]()
                if check is None:
                    row[f"{k}_modularity"] = modularity(G.offsets, G.indices, _dense(theirs_answer))
                elif not check(answer, theirs_answer):
                    print(f"{spec} {name}: {k}'s answer differs from gravel's; not timed")
                    del calls[k]
                if name == "coloring":
                    row[f"{k}_colors"] = int(np.max(theirs_answer)) + 1
            if check is None:
                row["gravel_modularity"] = modularity(G.offsets, G.indices, _dense(answer))
            if name == "coloring":
                row["gravel_colors"] = int(np.max(answer)) + 1
            times = interleaved(calls, a.repeat)
            for k, ts in times.items():
                row[f"{k}_s"] = statistics.median(ts)
            for k in others:
                if k in calls:
                    row[f"gravel_over_{k}"] = row["gravel_s"] / row[f"{k}_s"]
            rows.append(row)
            _print(row, peers)
    if a.json:
        write_record(a.json, "benchmarks/peers.py", rows, threads=a.threads, peers=versions)


def _print(row, peers):
    cells = "".join(
        f" {1e3 * row[k + '_s']:13.1f} {row['gravel_over_' + k]:10.2f}x"
        if k + "_s" in row
        else f" {'':>13} {'':>11}"
        for k in peers
    )
    print(f"{row['graph']:>10} {row['primitive']:>9} {1e3 * row['gravel_s']:10.1f}{cells}")
    for key, fmt in (("modularity", ".4f"), ("colors", "d")):
        quality = [
            f"{k} {row[f'{k}_{key}']:{fmt}}" for k in ["gravel", *peers] if f"{k}_{key}" in row
        ]
        if quality:
            print(f"{'':>21} {key}: " + ", ".join(quality), flush=True)


if __name__ == "__main__":
    main()
