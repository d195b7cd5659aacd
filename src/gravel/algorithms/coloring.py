"""Greedy vertex colouring, as ``networkx.greedy_color(G, strategy="largest_first")``.

Jones-Plassmann (1993): vertices are coloured in parallel rounds, each as soon as its neighbours of
higher priority are, with the smallest colour they lack (backends/cpu/coloring.py). The priority
is largest degree first, as NetworkX's ``largest_first``; ties go to the smaller caller id, which
gives NetworkX's very colouring, or to a random order drawn from `seed`. On the GPU the rounds are
the steps of one multi-step advance, a vertex coloured by the step that colours the last of its
higher-priority neighbours (``_coloring_cuda``); both paths give the greedy colouring in priority
order, so the same colours.
"""

from dataclasses import dataclass

import numpy as np

from .. import seeds
from ..arrays import host
from ..backends.cpu import coloring as _k
from ..backends.cpu import shares
from ..dispatch import choose_device, ids_to_caller, takes_graph, to_caller
from ..results import Result, Timer


@dataclass
class ColoringResult(Result):
    """A vertex colouring, as :func:`greedy_color` returns it.

    Attributes
    ----------
    colors : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: its colour, 0, 1, ... (a CuPy array from the GPU
        path).
    """

    colors: np.ndarray = None

    vertex_arrays = ("colors",)

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``colors``: how many colours
            are used.
        """
        colors = host(self.colors)
        return super().summary() | {"colors": int(colors.max(initial=-1)) + 1}


@takes_graph
def greedy_color(G, *, seed=None, device="auto"):
    """Colour the vertices so that no edge joins two of one colour, largest degree first.

    Parameters
    ----------
    G : Graph
        A directed graph is coloured as the undirected graph of its arcs. Self loops are ignored
        (a vertex cannot avoid its own colour), as NetworkX's ``greedy_color`` does; parallel
        edges count once.
    seed : int, sequence of ints or numpy.random.Generator, optional
        None breaks ties between equal degrees by caller id (NetworkX's order); an int, by a
        random order drawn from it (NumPy's ``default_rng``).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. Both give the same
        colours.

    Returns
    -------
    ColoringResult
        ``colors[v]`` (int32, caller ids; CuPy on the GPU): v's colour, 0, 1, ...;
        ``summary()["colors"]``: how many; ``iterations``: the rounds run.

    Raises
    ------
    InvalidArgumentError
        `seed` is not None, an integer >= 0, a sequence of them or a NumPy generator.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.greedy_color

    Notes
    -----
    A vertex's degree is NetworkX's: its distinct neighbours, plus 2 for a self loop. With
    ``seed=None`` the colours equal those of ``networkx.greedy_color(G, "largest_first")`` on an
    undirected G. Random ties can cost colours where many degrees tie: on a 2-D grid the id order
    finds 2 colours, a random one 4 or 5. Every vertex of colour c has neighbours of all colours
    below c, so at most max degree + 1 colours are used. On the CPU each round reads the arcs of the
    pending vertices, in priority order; on the GPU every arc is read twice in all, and the rounds
    are the longest chain of vertices of decreasing priority.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False)
    >>> gravel.greedy_color(G, device="cpu").colors.tolist()
    [1, 2, 0, 1]
    """
    dev = choose_device(device, IMPLEMENTATIONS, "greedy_color")
    S = G.simple_undirected()
    res = IMPLEMENTATIONS[dev](S, largest_first(G, seed))
    res.colors = to_caller(G, res.colors)
    return res


def largest_first(G, seed=None):
    """Each internal vertex's priority (0 first): largest degree first (a self loop adds 2), ties
    by caller id (`seed` None) or by a random order drawn from `seed`.

    Parameters
    ----------
    G : Graph
        Degrees are those of its simple undirected graph, plus 2 for a self loop (NetworkX's).
    seed : int, sequence of ints or numpy.random.Generator, optional
        None breaks ties by caller id; else by a random permutation drawn from it.

    Returns
    -------
    numpy.ndarray
        int32 over G's internal ids: distinct priorities 0..n-1, 0 the first coloured.

    Raises
    ------
    InvalidArgumentError
        `seed` is not None, an integer >= 0, a sequence of them or a NumPy generator.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.coloring import largest_first
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False)
    >>> largest_first(G).tolist()  # vertex 2 (degree 3) first, then 0 and 1 by id
    [1, 2, 0, 3]
    """
    n = G.n
    ids = np.arange(n, dtype=np.int32)
    callers = ids_to_caller(G, ids)
    degree = np.diff(G.simple_undirected().offsets) + 2 * G.has_arcs(ids, ids)
    tie = callers if seed is None else seeds.rng(seed).permutation(n)[callers]
    rank = np.empty(n, np.int32)
    rank[np.lexsort((tie, -degree))] = ids
    return rank


def _coloring_cpu(S, rank):
    with Timer() as t:
        colour, rounds = jones_plassmann(S.offsets, S.indices, rank)
    return ColoringResult(
        "greedy_color", "cpu", t.seconds, rounds, "jones-plassmann, largest first", colors=colour
    )


def jones_plassmann(offsets, indices, rank):
    """The greedy colouring in priority order of a CSR graph without self loops, by
    Jones-Plassmann rounds on the CPU.

    Each round colours, in parallel, the pending vertices whose neighbours of higher priority are
    all coloured, each with the smallest colour those neighbours lack. Needs Numba.

    Parameters
    ----------
    offsets : numpy.ndarray
        int64 row offsets (n + 1) of a symmetric CSR without self loops.
    indices : numpy.ndarray
        int32 neighbour ids.
    rank : numpy.ndarray
        int32 priority of each vertex: distinct, 0 first (:func:`largest_first`, say).

    Returns
    -------
    colour : numpy.ndarray
        int32 per vertex: its colour, 0, 1, ...
    rounds : int
        The rounds run.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.coloring import jones_plassmann, largest_first
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False)
    >>> colour, rounds = jones_plassmann(G.offsets, G.indices, largest_first(G))
    >>> colour.tolist()
    [1, 2, 0, 1]
    """
    import numba  # only when the kernel runs: importing gravel does not import Numba

    n = offsets.shape[0] - 1
    colour = np.full(n, -1, np.int32)
    most = int(np.diff(offsets).max(initial=0))
    seen = np.full((numba.get_num_threads(), most + 1), -1, np.int32)
    pending = np.argsort(rank).astype(np.int32)  # in priority order: chains resolve in one pass
    k = _k.kernels(indices.shape[0])
    rounds = 0
    while pending.size:
        shares.stoppable(k.colour_round, offsets, indices, rank, pending, colour, seen)
        pending = pending[colour[pending] < 0]
        rounds += 1
    return colour, rounds


def colour_classes(colour):
    """The vertices grouped by colour.

    Parameters
    ----------
    colour : numpy.ndarray
        Non-negative integer colour of each vertex.

    Returns
    -------
    members : numpy.ndarray
        int64 vertex ids by colour, ascending inside a colour (a stable sort).
    starts : numpy.ndarray
        int64, max colour + 2 entries: class c is ``members[starts[c]:starts[c + 1]]``.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.algorithms.coloring import colour_classes
    >>> members, starts = colour_classes(np.array([1, 0, 1, 2]))
    >>> members.tolist(), starts.tolist()
    ([1, 0, 2, 3], [0, 1, 3, 4])
    """
    members = np.argsort(colour, kind="stable")
    return members, np.searchsorted(colour[members], np.arange(colour.max(initial=-1) + 2))


# A vertex reached by the last of its higher-priority neighbours finds its colour in its mask: one
# bit per colour 0..wait0[v] (the smallest free one lies there), set by those neighbours as they
# are coloured. The fences order each neighbour's bit before its decrement, and the decrement that
# reaches zero before the mask is read.
_JP_REACHED = """
__device__ bool jp_reached(unsigned long long* mask, const long long* moff, const int* wait0,
                           int* wait, int* colour, int c, int v) {
    if (c <= wait0[v]) atomicOr(&mask[moff[v] + (c >> 6)], 1ULL << (c & 63));
    __threadfence();
    if (atomicSub(&wait[v], 1) != 1) return false;
    __threadfence();
    volatile unsigned long long* m = mask + moff[v];
    for (int i = 0;; ++i) {
        unsigned long long free = ~m[i];
        if (free) { colour[v] = i * 64 + __ffsll(free) - 1; return true; }
    }
}
"""


def _coloring_cuda(S, rank):
    """Jones-Plassmann as a topological sort in one multi-step advance: ``wait[v]`` counts v's
    higher-priority neighbours (a neighbor_reduce); the vertices without any take colour 0; each
    step advances from the vertices coloured in the last one to their lower-priority neighbours,
    setting the neighbour's bit for its colour and counting down its wait, and the step that brings
    a wait to zero colours that vertex (:data:`_JP_REACHED`) and emits it. Every arc is read twice
    (the count, the step), and the steps are the longest chain of decreasing priority, each a
    grid-wide barrier rather than a launch."""
    import cupy

    from ..frontier import Frontier, FrontierQueue
    from ..operators import advance_steps, compute, neighbor_reduce
    from ..operators import filter_frontier as keep_if

    n = S.n
    dg = S.to("cuda")
    colour = cupy.full(n, -1, cupy.int32)
    with Timer("cuda") as t:
        p = {"rank": cupy.asarray(rank), "wait": cupy.zeros(n, cupy.int32), "colour": colour}
        neighbor_reduce(
            dg,
            None,
            "rank[u] < rank[v] ? 1 : 0",
            "sum",
            dtype=np.int32,
            apply="wait[v] = acc",
            params=p,
        )
        wait0 = p["wait"].copy()
        words = (wait0 >> 6).astype(cupy.int64) + 1
        moff = cupy.cumsum(words) - words
        first = keep_if(Frontier.all(n), "wait[v] == 0", params=p)
        compute(first, "colour[v] = 0", params=p)
        p |= {"mask": cupy.zeros(int(words.sum()), cupy.uint64), "moff": moff, "wait0": wait0}
        steps = advance_steps(
            dg,
            FrontierQueue(n, n, first),
            "rank[src] < rank[dst]"
            " && jp_reached(mask, moff, wait0, wait, colour, colour[src], dst)",
            params=p,
            limit=n,
            preamble=_JP_REACHED,
        )
    if n and bool((colour < 0).any()):  # sync
        raise RuntimeError("greedy_color: the GPU's steps left vertices uncoloured")
    method = "jones-plassmann, largest first"
    return ColoringResult("greedy_color", "cuda", t.seconds, steps + 1, method, colors=colour)


def verify_coloring(G, colors):
    """Check a colouring: non-negative integers, no edge of G (self loops aside) joining two
    vertices of one colour, and every vertex of colour c with neighbours of each colour below c, as
    any greedy colouring has.

    Parameters
    ----------
    G : Graph
    colors : array_like
        The colour of each vertex, over the caller's ids, on the host.

    Returns
    -------
    list of str
        The first problem found, as a sentence; empty if the colouring passes.
    """
    colors = np.asarray(colors)
    n = G.n
    if colors.shape != (n,) or colors.dtype.kind not in "iu" or (n and colors.min() < 0):
        return [f"colors must hold {n} non-negative integers"]
    callers = ids_to_caller(G, np.arange(n, dtype=np.int32))
    own = colors.astype(np.int64)[callers]  # by internal id
    src, dst = G.edges()
    clash = (own[src] == own[dst]) & (src != dst)
    if clash.any():
        e = int(np.flatnonzero(clash)[0])
        u, v = int(callers[src[e]]), int(callers[dst[e]])
        return [f"vertices {u} and {v} are adjacent and share colour {int(own[src[e]])}"]
    # each (vertex, lower colour) pair once, over arcs both ways
    a, b = np.concatenate([src, dst]), np.concatenate([dst, src])
    low = own[b] < own[a]
    pairs = np.unique(a[low].astype(np.int64) * (own.max(initial=0) + 1) + own[b][low])
    lower = np.bincount(pairs // (own.max(initial=0) + 1), minlength=n)
    short = np.flatnonzero(lower != own)
    if short.size:
        v = int(short[0])
        return [f"vertex {int(callers[v])} has colour {int(own[v])} but misses a lower one"]
    return []


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _coloring_cpu, "cuda": _coloring_cuda}
