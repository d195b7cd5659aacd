"""k-core decomposition: the core number of every vertex, as ``networkx.core_number``.

The degree is that of NetworkX's graph of the same arcs: on an undirected graph, the simple graph's
degree; on a directed graph, the in + out degree of the simple digraph (``networkx.DiGraph``), so
that reciprocal arcs u -> v and v -> u count twice. Both become one undirected multigraph (the core
graph) whose peeling gives these numbers; self loops are ignored (NetworkX refuses them).

Batagelj-Zaversnik bucket peeling: vertices sorted by degree in buckets, repeatedly remove the
smallest and lower its neighbours' degrees (once per edge between them), O(n + m).
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import kcore as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..graph import Graph
from ..results import Result, Timer
from ..transform import deduplicate, drop_self_loops


@dataclass
class CoreResult(Result):
    """Core numbers, as :func:`core_number` returns them.

    Attributes
    ----------
    core : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: its core number (a CuPy array from the GPU path).
    """

    core: np.ndarray = None

    vertex_arrays = ("core",)

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``degeneracy``: the largest core
            number (0 without vertices), and ``max_core_size``: the vertices that have it.
        """
        core = host(self.core)
        top = int(core.max(initial=0))
        return super().summary() | {"degeneracy": top, "max_core_size": int((core == top).sum())}


@takes_graph
def core_number(G, *, device="auto"):
    """Core number of every vertex: the largest k such that the vertex is in the k-core.

    Parameters
    ----------
    G : Graph
        Weights are ignored, parallel arcs count once and self loops not at all. On a directed graph
        a vertex's degree is its in-degree plus its out-degree, as NetworkX's ``DiGraph.degree``.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    CoreResult
        ``core[v]`` (int32, caller ids; a CuPy array on the GPU).

    Raises
    ------
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.transform.symmetrize : core numbers of the undirected graph of a directed one are
        ``core_number(symmetrize(G))``.

    Notes
    -----
    O(n + m) on the CPU (bucket peeling); level-synchronous peeling on the GPU, with the same
    results. The core graph (:func:`core_graph`) is built on the host for a directed graph.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False)
    >>> gravel.core_number(G, device="cpu").core.tolist()
    [2, 2, 2, 1]
    >>> D = gravel.Graph.from_edges([0, 1, 1], [1, 0, 2])  # 0 <-> 1 counts twice
    >>> gravel.core_number(D, device="cpu").core.tolist()
    [2, 2, 1]
    """
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "core_number")](core_graph(G))
    res.core = to_caller(G, res.core)
    return res


def core_graph(G):
    """The undirected multigraph, on G's internal ids, whose degrees are NetworkX's degrees of G:
    G's simple undirected graph if G is undirected; else an edge {u, v} for each arc u -> v of
    the simple, loop-free digraph (reciprocal arcs give two parallel edges).

    Parameters
    ----------
    G : Graph

    Returns
    -------
    Graph
        Undirected and unweighted, built on the host for a directed G; the graph whose peeling
        gives :func:`core_number`.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.kcore import core_graph
    >>> D = gravel.Graph.from_edges([0, 1, 1], [1, 0, 2])
    >>> core_graph(D).out_degree.tolist()  # 0 <-> 1 counts twice
    [2, 3, 1]
    """
    if not G.directed:
        return G.simple_undirected()
    src, dst = drop_self_loops(deduplicate(G)).edges()
    return Graph.from_edges(src, dst, n=G.n, directed=False)


def _core_cpu(S):
    with Timer() as t:
        core = _k.core_numbers(S.offsets, S.indices)
    return CoreResult("core_number", "cpu", t.seconds, 1, "bucket peeling", core=core)


def _core_cuda(S):
    """Level-synchronous peeling on the operators: at level k, a filter finds the remaining vertices
    of degree <= k; each round marks them with core k and advances over their edges with an atomic
    decrement, emitting each neighbour whose degree falls from k + 1 to k (exactly once) into the
    next round. When a level empties, k jumps to the smallest remaining degree. A level's rounds run
    in one multi-step launch, the functor marking what it emits (a 4096x4096 grid peels its rim and
    then its layers in thousands of one-vertex-deep rounds); its steps spread hub lists over every
    block, so it runs multi-step on every graph (docs/tuning.md)."""
    import cupy

    from ..frontier import Frontier, FrontierQueue
    from ..operators import THIN_BLOCKS_PER_SM, advance_steps, compute
    from ..operators import filter_frontier as keep_if

    dg = S.to("cuda")
    n = S.n
    deg = dg.out_degree.copy()
    core = cupy.zeros(n, cupy.int32)
    removed = cupy.zeros(n, cupy.uint8)
    remaining = Frontier.all(n)
    k, rounds = 0, 0
    peel = "!removed[dst] && atomicSub(&deg[dst], 1) == k + 1"
    with Timer("cuda") as t:
        while len(remaining):
            p = {"deg": deg, "core": core, "removed": removed, "k": np.int32(k)}
            frontier = keep_if(remaining, "deg[v] <= k", params=p)
            if not len(frontier):
                k = int(deg[remaining.ids].min())  # sync: skip empty levels
                continue
            compute(frontier, "core[v] = k; removed[v] = 1", params=p)
            queue = FrontierQueue(n, len(remaining), frontier)
            rounds += advance_steps(
                dg,
                queue,
                f"{peel} && (core[dst] = k, removed[dst] = 1, true)",
                params=p,
                limit=n,
                blocks_per_sm=THIN_BLOCKS_PER_SM,
            )
            remaining = keep_if(remaining, "!removed[v]", params=p)
            k += 1
    return CoreResult("core_number", "cuda", t.seconds, rounds, "peeling", core=core)


def verify_kcore(G, core):
    """Check core numbers against a serial peeling written out with a heap: repeatedly remove a
    vertex of least remaining degree; its core is the largest such degree seen so far. Degrees are
    NetworkX's (in + out on a directed graph: :func:`core_graph`).

    Parameters
    ----------
    G : Graph
    core : array_like
        The core numbers, over the caller's ids, on the host.

    Returns
    -------
    list of str
        The first vertex whose core differs, as a sentence; empty if none does.
    """
    import heapq

    S = core_graph(G)
    expect = np.zeros(S.n, np.int64)
    degree = S.out_degree.astype(np.int64).copy()
    heap = [(int(d), v) for v, d in enumerate(degree)]
    heapq.heapify(heap)
    removed = np.zeros(S.n, bool)
    k = 0
    while heap:
        d, v = heapq.heappop(heap)
        if removed[v] or d != degree[v]:
            continue  # a stale entry
        removed[v], k = True, max(k, d)
        expect[v] = k
        for u in S.indices[S.offsets[v] : S.offsets[v + 1]].tolist():
            if not removed[u]:
                degree[u] -= 1
                heapq.heappush(heap, (int(degree[u]), u))
    expect = to_caller(G, expect)
    wrong = np.flatnonzero(np.asarray(core) != expect)
    return (
        [f"vertex {int(wrong[0])}: core {int(core[wrong[0]])}, expected {int(expect[wrong[0]])}"]
        if wrong.size
        else []
    )


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _core_cpu, "cuda": _core_cuda}
