"""Strongly connected components of a directed graph, as ``networkx.strongly_connected_components``.

Tarjan's algorithm (SIAM J. Comput. 1972) with an explicit stack (backends/cpu/scc.py): one
depth-first pass over the arcs, O(n + m), with no recursion limit; on big graphs after parallel
trimming and a forward-backward search for the busiest vertex's component. Every component is
labelled with its smallest vertex id, as :func:`gravel.connected_components` labels its
components. The GPU path (``_scc_cuda``) trims and colours on the operators.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host, xp
from ..backends.cpu import chunks, shares
from ..backends.cpu import scc as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..results import Result, Timer


@dataclass
class SCCResult(Result):
    """Strongly connected components as labels, as :func:`strongly_connected_components`
    returns them.

    Attributes
    ----------
    labels : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: the smallest id of its component (a CuPy array
        from the GPU path).
    """

    labels: np.ndarray = None

    vertex_arrays = ("labels",)

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``components``: how many, and
            ``largest_component``: the vertices of the largest (0 without vertices).
        """
        labels = host(self.labels)
        sizes = np.unique(labels, return_counts=True)[1]
        return super().summary() | {
            "components": int(sizes.size),
            "largest_component": int(sizes.max(initial=0)),
        }


@takes_graph
def strongly_connected_components(G, *, device="auto"):
    """Label every vertex with the smallest vertex id of its strongly connected component.

    Parameters
    ----------
    G : Graph
        Weights are ignored. An undirected graph's edges run both ways, so its strongly connected
        components are its connected components (NetworkX refuses undirected graphs).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. The GPU trims and
        colours on the operators.

    Returns
    -------
    SCCResult
        ``labels[v]`` (int32, caller ids; a CuPy array on the GPU): the smallest id of v's
        component. ``set(labels)`` has one entry per set that
        ``networkx.strongly_connected_components`` yields.

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
    gravel.connected_components
    scipy.sparse.csgraph.connected_components

    Notes
    -----
    On the CPU O(n + m) time and ten n-entry work arrays; above SMALL_ARCS arcs the vertices
    left without in- or out-arcs are trimmed and the component of the vertex of largest in-degree
    times out-degree found by two searches in parallel, before Tarjan's serial pass over the rest
    (G's in-arcs are then built and kept with G, as ``G.csc()``). On the GPU each round costs
    O(n + m) per propagation step, and a round settles at least the component of the largest
    remaining id: chains of components in decreasing id order take many rounds. Self loops and
    parallel arcs change nothing. Tarjan's algorithm (SIAM J. Comput. 1972) runs with an explicit
    stack, so with no recursion limit; the GPU trims and colours after Orzan (2004) and Slota,
    Rajamanickam and Madduri (IPDPS'14).

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 3, 4], n=6)
    >>> gravel.strongly_connected_components(G, device="cpu").labels.tolist()
    [0, 0, 0, 3, 4, 5]
    """
    name = "strongly_connected_components"
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, name)](G)
    res.labels = smallest_member(to_caller(G, res.labels))
    return res


def smallest_member(comp):
    """Component numbers (caller ids) -> each vertex's label: the smallest id of its component.
    On the host one serial O(n) pass (the numbers are non-negative: below 2n on the CPU path); on
    the GPU a sort.

    Parameters
    ----------
    comp : numpy.ndarray or cupy.ndarray
        Each vertex's component number, over the caller's ids: non-negative integers.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        int32 per vertex, in `comp`'s array module: the smallest vertex id with its number.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.algorithms.scc import smallest_member
    >>> smallest_member(np.array([7, 7, 2, 7, 2])).tolist()
    [0, 0, 2, 0, 2]
    """
    m = xp(comp)
    if m is np:
        return _k.first_members(comp, int(comp.max(initial=-1)) + 1)
    _, first, inverse = m.unique(comp, return_index=True, return_inverse=True)
    return first[inverse].astype(m.int32)


#: the trimming passes end with one that settles less than this share of the unsettled vertices
#: (chains would take a pass per link; Tarjan's pass takes what is left)
TRIM_STOP = 1 / 1024


def _scc_cpu(G):
    """Tarjan's pass; above SMALL_ARCS arcs, after trimming and the forward-backward search of the
    busiest vertex's component in parallel (`_settle_in_parallel`), over what they left."""
    from ..backends.cpu.serial import is_small  # Numba: loaded on a CPU run

    n = G.n
    index = np.full(n, -1, np.int32)
    comp = np.full(n, -1, np.int64)
    low, stack, frame_v = (np.empty(n, np.int32) for _ in range(3))
    frame_p = np.empty(n, np.int64)
    strategy = "tarjan"
    with Timer() as t:
        if not is_small(G.nnz):
            strategy = "trim, forward-backward, tarjan"
            _settle_in_parallel(G, comp)
            index[comp >= 0] = 0
        # numbered from n: apart from the parallel steps' labels, which are vertex ids
        work = index, low, comp, stack, frame_v, frame_p
        shares.stoppable(_k.tarjan, G.offsets, G.indices, *work, n)
    return SCCResult("strongly_connected_components", "cpu", t.seconds, 1, strategy, labels=comp)


def _settle_in_parallel(G, comp):
    """Settle in `comp` the vertices with no unsettled in- or out-neighbour, pass after pass (each
    its own component, labelled with its id), then the component of the remaining vertex of the
    largest in-degree times out-degree (labelled with its id): the vertices it reaches forward
    that reach it back, found by two direction-optimizing searches over the unsettled vertices
    (BFS's, :func:`gravel.algorithms.bfs.search`)."""
    from .bfs import search

    in_offsets, in_indices, _ = G.csc()
    pieces = chunks()
    live = G.n
    while live:
        trimmed = _k.trim(G.offsets, G.indices, in_offsets, in_indices, comp, pieces)
        live -= trimmed
        if trimmed < TRIM_STOP * (live + trimmed):
            break
    if not live:
        return
    score = np.where(comp < 0, G.out_degree.astype(np.int64) * G.in_degree, -1)
    pivot = int(np.argmax(score))
    depth = np.empty(G.n, np.int32)
    # a search enters the vertices whose parent is -1: first the unsettled ones, forward, then
    # those it reached, backward; any other parent (n: none of the searches') keeps it out
    reached = comp < 0
    for arcs in ((G.offsets, G.indices, in_offsets, in_indices),
                 (in_offsets, in_indices, G.offsets, G.indices)):  # fmt: skip
        parent = np.where(reached, np.int32(-1), np.int32(G.n))
        parent[pivot], depth[pivot] = pivot, 0
        search(*arcs, pivot, parent, depth)
        reached = (parent >= 0) & (parent < G.n)
    comp[reached] = pivot


def _scc_cuda(G):
    """Trimming and colouring (Orzan 2004; Slota, Rajamanickam and Madduri, IPDPS'14) on the
    operators. Each round, two pull neighbor_reduces over the live vertices settle those with no
    live in-neighbour, then those with no live out-neighbour, as components of their own (a vertex
    whose live in-neighbours were all just settled so has none on a cycle either). Then every live
    vertex takes its own id as colour and advances push the largest colour along the live arcs
    until none grows; a vertex that keeps its own id roots a component: the live vertices of its
    colour that reach it, found by advances over the reversed arcs. What they settle leaves, and
    the rounds go on until no vertex is live."""
    import cupy

    from ..frontier import Frontier
    from ..operators import advance, compute, neighbor_reduce
    from ..operators import filter_frontier as keep_if

    n = G.n
    dg = G.to("cuda")
    rev = dg.reverse()
    comp = cupy.full(n, -1, cupy.int32)
    colour = cupy.empty(n, cupy.int32)
    p = {"comp": comp, "colour": colour}
    spread = "comp[dst] < 0 && atomicMax(&colour[dst], colour[src]) < colour[src]"
    claim = (
        "comp[dst] < 0 && colour[dst] == colour[src] && "
        "atomicCAS(&comp[dst], -1, colour[src]) == -1"
    )
    rounds = 0
    live = Frontier.all(n)
    with Timer("cuda") as t:
        while len(live):
            rounds += 1
            for graph in (dg, rev):  # in-lists of dg, then of its reverse: the out-lists
                neighbor_reduce(
                    graph,
                    live,
                    "comp[u] < 0",
                    "max",
                    dtype=np.int32,
                    identity=0,
                    apply="if (acc == 0) comp[v] = v",
                    params=p,
                )
            live = keep_if(live, "comp[v] < 0", params=p)
            compute(live, "colour[v] = v", params=p)
            front = live
            while len(front):
                front = advance(dg, front, spread, params=p)
            front = keep_if(live, "colour[v] == v", params=p)
            compute(front, "comp[v] = v", params=p)
            while len(front):
                front = advance(rev, front, claim, params=p)
            live = keep_if(live, "comp[v] < 0", params=p)
    return SCCResult(
        "strongly_connected_components", "cuda", t.seconds, rounds, "trim + colouring", labels=comp
    )


def verify_scc(G, labels):
    """Check strongly connected components: the same partition as SciPy's (Pearce's algorithm),
    each labelled with its smallest vertex id.

    Parameters
    ----------
    G : Graph
    labels : array_like
        The label of each vertex, over the caller's ids, on the host.

    Returns
    -------
    list of str
        The first vertex whose label differs, as a sentence; empty if none does.
    """
    from scipy.sparse.csgraph import connected_components as scipy_cc

    k, ref = scipy_cc(G.to_scipy(), directed=True, connection="strong")
    ref = to_caller(G, ref)
    first = np.full(k, G.n, np.int64)
    np.minimum.at(first, ref, np.arange(G.n))
    expect = first[ref]
    wrong = np.flatnonzero(np.asarray(labels) != expect)
    if wrong.size:
        v = int(wrong[0])
        return [f"vertex {v}: label {int(labels[v])}, expected {int(expect[v])}"]
    return []


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _scc_cpu, "cuda": _scc_cuda}
