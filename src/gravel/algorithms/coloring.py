"""Greedy vertex colouring, as ``networkx.greedy_color(G, strategy="largest_first")``.

Jones-Plassmann (1993): vertices are coloured in parallel rounds, each as soon as its neighbours of
higher priority are, with the smallest colour they lack (backends/cpu/coloring.py). The priority
is largest degree first, as NetworkX's ``largest_first``; ties go to the smaller caller id, which
gives NetworkX's very colouring, or to a random order drawn from `seed`. On the GPU a round is one
neighbor_reduce and one filter over the pending vertices (``_coloring_cuda``); both paths give the
greedy colouring in priority order, so the same colours.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import coloring as _k
from ._common import Result, Timer, choose_device, ids_to_caller, to_caller


@dataclass
class ColoringResult(Result):
    colors: np.ndarray = None

    def summary(self):
        colors = host(self.colors)
        return super().summary() | {"colors": int(colors.max(initial=-1)) + 1}


def greedy_color(G, *, seed=None, device="auto"):
    """Colour the vertices so that no edge joins two of one colour, largest degree first.

    Parameters
    ----------
    G : Graph
        A directed graph is coloured as the undirected graph of its arcs. Self loops are ignored
        (a vertex cannot avoid its own colour), as NetworkX's ``greedy_color`` does; parallel
        edges count once.
    seed : int, optional
        None breaks ties between equal degrees by caller id (NetworkX's order); an int, by a
        random order drawn from it (NumPy's ``default_rng``).
    device : {"auto", "cpu", "cuda"}

    Returns
    -------
    ColoringResult
        ``colors[v]`` (int32, caller ids): v's colour, 0, 1, ...; ``summary()["colors"]``: how
        many; ``iterations``: the rounds run.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False)
    >>> gravel.greedy_color(G, device="cpu").colors.tolist()
    [1, 2, 0, 1]

    Notes
    -----
    A vertex's degree is NetworkX's: its distinct neighbours, plus 2 for a self loop. With
    ``seed=None`` the colours equal those of ``networkx.greedy_color(G, "largest_first")`` on an
    undirected G. Random ties can cost colours where many degrees tie: on a 2-D grid the id order
    finds 2 colours, a random one 4 or 5. Every vertex of colour c has neighbours of all colours
    below c, so at most max degree + 1 colours are used. Each round reads the arcs of the pending
    vertices: O(n + m) work per round; the rounds are the longest chain of vertices of decreasing
    priority.
    """
    dev = choose_device(device, _IMPLEMENTATIONS, "greedy_color")
    S = G.simple_undirected()
    res = _IMPLEMENTATIONS[dev](S, largest_first(G, seed))
    res.colors = to_caller(G, res.colors)
    return res


def largest_first(G, seed=None):
    """Each internal vertex's priority (0 first): largest degree first (a self loop adds 2), ties
    by caller id (`seed` None) or by a random order drawn from `seed`."""
    n = G.n
    ids = np.arange(n, dtype=np.int32)
    callers = ids_to_caller(G, ids)
    degree = np.diff(G.simple_undirected().offsets) + 2 * G.has_arcs(ids, ids)
    tie = callers if seed is None else np.random.default_rng(seed).permutation(n)[callers]
    rank = np.empty(n, np.int32)
    rank[np.lexsort((tie, -degree))] = ids
    return rank


def _coloring_cpu(S, rank):
    import numba  # only when the kernel runs: importing gravel does not import Numba

    colour = np.full(S.n, -1, np.int32)
    seen = np.full((numba.get_num_threads(), S.max_out_degree + 1), -1, np.int32)
    pending = np.argsort(rank).astype(np.int32)  # in priority order: chains resolve in one pass
    k = _k.kernels(S.nnz)
    rounds = 0
    with Timer() as t:
        while pending.size:
            k.colour_round(S.offsets, S.indices, rank, pending, colour, seen)
            pending = pending[colour[pending] < 0]
            rounds += 1
    return ColoringResult(
        "greedy_color", "cpu", t.seconds, rounds, "jones-plassmann, largest first", colors=colour
    )


#: colours a vertex looks for in one round: bits 0..62 of a 64-bit mask, bit 63 flags "wait"
WINDOW = 63


def _coloring_cuda(S, rank):
    """Jones-Plassmann in :func:`gravel.algorithms.mis.priority_rounds`: an OR neighbor_reduce
    folds, over the neighbours of higher priority, a "wait" bit (bit 63) for one not yet coloured
    and, for one coloured c, bit c - base[v] where c lies in v's window of WINDOW colours from
    base[v]; the apply colours v with the lowest clear bit, or moves a full window on."""
    import cupy

    from .mis import priority_rounds

    colour = cupy.full(S.n, -1, cupy.int32)
    full = f"0x{(1 << WINDOW) - 1:x}LL"
    # a neighbour's colour is loaded once: read twice, it could change between the reads
    bit = (
        "__device__ long long jp_bit(int c, int base, bool higher) { "
        "if (!higher) return 0; if (c < 0) return -0x7fffffffffffffffLL - 1; "
        f"return (unsigned)(c - base) < {WINDOW}u ? 1LL << (c - base) : 0LL; }}"
    )
    rounds, seconds = priority_rounds(
        S,
        rank,
        "jp_bit(colour[u], base[v], rank[u] < rank[v])",
        "(a) | (b)",
        np.int64,
        f"if (acc >= 0) {{ if (acc == {full}) base[v] += {WINDOW}; "
        "else colour[v] = base[v] + __ffsll(~acc) - 1; }",
        "colour[v] < 0",
        {"colour": colour, "base": cupy.zeros(S.n, cupy.int32)},
        bit,
    )
    return ColoringResult(
        "greedy_color", "cuda", seconds, rounds, "jones-plassmann, largest first", colors=colour
    )


def verify_coloring(G, colors):
    """Check that `colors` (per vertex, caller ids) are non-negative integers, that no edge of G
    (self loops aside) joins two vertices of one colour, and that every vertex of colour c has
    neighbours of each colour below c, as any greedy colouring does. Returns a list of problems."""
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


_IMPLEMENTATIONS = {"cpu": _coloring_cpu, "cuda": _coloring_cuda}
