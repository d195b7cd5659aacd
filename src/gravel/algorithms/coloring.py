"""Greedy vertex colouring, as ``networkx.greedy_color(G, strategy="largest_first")``.

Jones-Plassmann (1993): vertices are coloured in parallel rounds, each as soon as its neighbours of
higher priority are, with the smallest colour they lack (backends/cpu/coloring.py). The priority
is largest degree first, as NetworkX's ``largest_first``; ties go to the smaller caller id, which
gives NetworkX's very colouring, or to a random order drawn from `seed`. There is no CUDA path
yet: a round is one filter and one neighbour scan over the pending vertices.
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
        Only the CPU path exists: "auto" runs it, "cuda" raises DeviceUnavailableError.

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
    n = G.n
    ids = np.arange(n, dtype=np.int32)
    callers = ids_to_caller(G, ids)
    degree = np.diff(S.offsets) + 2 * G.has_arcs(ids, ids)
    tie = callers if seed is None else np.random.default_rng(seed).permutation(n)[callers]
    rank = np.empty(n, np.int32)
    rank[np.lexsort((tie, -degree))] = ids
    res = _IMPLEMENTATIONS[dev](S, rank)
    res.colors = to_caller(G, res.colors)
    return res


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


_IMPLEMENTATIONS = {"cpu": _coloring_cpu}
