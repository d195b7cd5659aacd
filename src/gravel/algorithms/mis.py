"""Maximal independent set, as ``networkx.maximal_independent_set`` (random priorities).

Each vertex draws a random priority from `seed`; the set is the greedy one in that order (a vertex
joins unless a neighbour of higher priority did), found in parallel rounds as Luby's and
Jones-Plassmann's algorithms run them (backends/cpu/mis.py; on the GPU ``_mis_cuda``). A seed
fixes the set, whatever the device and the thread count.
"""

from dataclasses import dataclass

import numpy as np

from .. import seeds
from ..arrays import host, xp
from ..backends.cpu import mis as _k
from ..dispatch import choose_device, ids_to_caller, takes_graph, to_caller
from ..errors import InvalidGraphError
from ..results import Result, Timer


@dataclass
class MISResult(Result):
    in_set: np.ndarray = None

    vertex_arrays = ("in_set",)
    nodes: np.ndarray = None

    def summary(self):
        return super().summary() | {"size": int(np.count_nonzero(host(self.in_set)))}


@takes_graph
def maximal_independent_set(G, *, seed=None, device="auto"):
    """A maximal independent set of G: no two members adjacent, every other vertex next to one.

    Parameters
    ----------
    G : Graph
        Undirected. Self loops are ignored, as NetworkX's own algorithm does.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seed of the random priorities (NumPy's ``default_rng``); the same seed gives the same set.
        None draws fresh ones.
    device : {"auto", "cpu", "cuda"}

    Returns
    -------
    MISResult
        ``in_set`` (bool, per vertex, caller ids): membership; ``nodes`` (int32): the members'
        ids, ascending; ``iterations``: the rounds run.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], directed=False)
    >>> r = gravel.maximal_independent_set(G, seed=1, device="cpu")
    >>> r.nodes.tolist()
    [1, 3]

    Notes
    -----
    Vertex v's priority is the rank of caller id v in a random permutation. A round reads the arcs
    of the pending vertices once; random priorities make O(log^2 n) rounds with high probability,
    O((n + m) log^2 n) work at worst. The set is maximal, not maximum; NetworkX draws its own
    random order, so the two sets differ.

    Raises
    ------
    InvalidGraphError
        G is directed.
    """
    name = "maximal_independent_set"
    if G.directed:
        raise InvalidGraphError(f"{name} is not implemented for directed graphs")
    dev = choose_device(device, IMPLEMENTATIONS, name)
    callers = ids_to_caller(G, np.arange(G.n, dtype=np.int32))
    rank = seeds.rng(seed).permutation(G.n).astype(np.int32)[callers]
    res = IMPLEMENTATIONS[dev](G.simple_undirected(), rank)
    res.in_set = to_caller(G, res.in_set)
    res.nodes = xp(res.in_set).flatnonzero(res.in_set).astype(np.int32)
    return res


def _mis_cpu(S, rank):
    state = np.zeros(S.n, np.int8)
    pending = np.arange(S.n, dtype=np.int32)
    k = _k.kernels(S.nnz)
    rounds = 0
    with Timer() as t:
        while pending.size:
            k.decide(S.offsets, S.indices, rank, pending, state)
            pending = pending[state[pending] == _k.PENDING]
            rounds += 1
    return MISResult(
        "maximal_independent_set",
        "cpu",
        t.seconds,
        rounds,
        "random priorities",
        in_set=state == _k.IN,
    )


def priority_rounds(S, rank, value, reduce, dtype, apply, pending, params, preamble=""):
    """Rounds in priority order on the GPU (maximal independent set): each round a
    neighbor_reduce of `value` with `reduce` (identity 0) over the pending vertices, whose `apply`
    decides those it can, then a filter keeps those for which `pending` holds. `params` (device
    arrays and scalars, with ``rank``, the priorities, added) and `preamble` go to both. A decision
    is final once written and a read racing with the write only delays a vertex, so the answer is
    the sequential one in priority order. The pending vertices go in that order, so a round's later
    warps may already see its earlier decisions. Returns (rounds, seconds)."""
    import cupy

    from ..frontier import Frontier
    from ..operators import filter_frontier as keep_if
    from ..operators import neighbor_reduce

    dg = S.to("cuda")
    params = params | {"rank": cupy.asarray(rank)}
    front = Frontier(S.n, ids=cupy.argsort(params["rank"]).astype(cupy.int32), length=S.n)
    rounds = 0
    with Timer("cuda") as t:
        while len(front):
            neighbor_reduce(
                dg,
                front,
                value,
                reduce,
                dtype=dtype,
                identity=0,
                apply=apply,
                params=params,
                preamble=preamble,
            )
            front = keep_if(front, pending, params=params)
            rounds += 1
    return rounds, t.seconds


def _mis_cuda(S, rank):
    """priority_rounds: a max neighbor_reduce scores each neighbour 2 if in the set, 1 if pending
    with higher priority, and its apply decides the vertex (out, wait, in)."""
    import cupy

    state = cupy.zeros(S.n, cupy.int8)
    # a neighbour's state is loaded once: read twice, it could change between the reads
    score = (
        "__device__ int mis_score(signed char s, bool higher) "
        f"{{ return s == {_k.IN} ? 2 : s == {_k.PENDING} && higher ? 1 : 0; }}"
    )
    rounds, seconds = priority_rounds(
        S,
        rank,
        "mis_score(state[u], rank[u] < rank[v])",
        "max",
        np.int32,
        f"if (acc != 1) state[v] = acc == 2 ? {_k.OUT} : {_k.IN}",
        f"state[v] == {_k.PENDING}",
        {"state": state},
        score,
    )
    return MISResult(
        "maximal_independent_set",
        "cuda",
        seconds,
        rounds,
        "random priorities",
        in_set=state == _k.IN,
    )


def verify_mis(G, in_set):
    """Check that `in_set` (per vertex, caller ids; bool or 0/1) marks an independent set of G
    (self loops aside) that no vertex can join. Returns a list of problems."""
    in_set = np.asarray(in_set)
    n = G.n
    if in_set.shape != (n,) or not np.isin(in_set, (0, 1)).all():
        return [f"in_set must hold {n} booleans"]
    member = to_caller_order(G, in_set.astype(bool))
    src, dst = G.edges()
    both = member[src] & member[dst] & (src != dst)
    callers = ids_to_caller(G, np.arange(n, dtype=np.int32))
    if both.any():
        e = int(np.flatnonzero(both)[0])
        return [f"members {int(callers[src[e]])} and {int(callers[dst[e]])} are adjacent"]
    covered = member.copy()
    covered[src[member[dst]]] = True
    covered[dst[member[src]]] = True
    if not covered.all():
        return [f"vertex {int(callers[np.flatnonzero(~covered)[0]])} could join the set"]
    return []


def to_caller_order(G, values):
    """Per-vertex array indexed by the caller's ids -> indexed by internal ids."""
    return values if G.order is None else values[ids_to_caller(G, np.arange(G.n, dtype=np.int32))]


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _mis_cpu, "cuda": _mis_cuda}
