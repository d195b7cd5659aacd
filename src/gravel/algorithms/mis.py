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
from ..dispatch import caller_id, choose_device, ids_to_caller, takes_graph, to_caller
from ..errors import InvalidArgumentError, InvalidGraphError
from ..results import Result, Timer


@dataclass
class MISResult(Result):
    """A maximal independent set, as :func:`maximal_independent_set` returns it.

    Attributes
    ----------
    in_set : numpy.ndarray or cupy.ndarray
        bool per vertex, over the caller's ids: membership (a CuPy array from the GPU path).
    nodes : numpy.ndarray or cupy.ndarray
        int32: the members' caller ids, ascending.
    priority : numpy.ndarray
        int32 per vertex, over the caller's ids: its place in the priority order (0 first), the
        order in which a sequential greedy pass would take the members.
    """

    in_set: np.ndarray = None

    vertex_arrays = ("in_set",)
    nodes: np.ndarray = None
    priority: np.ndarray = None

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``size``: the members.
        """
        return super().summary() | {"size": int(np.count_nonzero(host(self.in_set)))}


@takes_graph
def maximal_independent_set(G, *, nodes=None, seed=None, device="auto"):
    """A maximal independent set of G: no two members adjacent, every other vertex next to one.

    Parameters
    ----------
    G : Graph
        Undirected. Self loops are ignored, as NetworkX's own algorithm does.
    nodes : iterable of int or labels, optional
        Vertices (caller ids, or labels of a labelled G) that must be members: they go first
        in the priority order, so the set holds them. They must not be adjacent.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seed of the random priorities (NumPy's ``default_rng``); the same seed gives the same set.
        None draws fresh ones.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. A seed gives the same
        set on either, whatever the thread count.

    Returns
    -------
    MISResult
        ``in_set`` (bool, per vertex, caller ids): membership; ``nodes`` (int32): the members'
        ids, ascending (CuPy arrays on the GPU); ``priority`` (int32, per vertex, caller ids, on
        the host): the priority order; ``iterations``: the rounds run.

    Raises
    ------
    InvalidGraphError
        G is directed.
    InvalidArgumentError
        `seed` is not None, an integer >= 0, a sequence of them or a NumPy generator; two of
        `nodes` are adjacent.
    VertexNotFoundError
        An entry of `nodes` is not a vertex of G.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    networkx.maximal_independent_set

    Notes
    -----
    Vertex v's priority is the rank of caller id v in a random permutation. A round reads the arcs
    of the pending vertices once; random priorities make O(log^2 n) rounds with high probability,
    O((n + m) log^2 n) work at worst. The set is maximal, not maximum; NetworkX draws its own
    random order, so the two sets differ.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], directed=False)
    >>> r = gravel.maximal_independent_set(G, seed=1, device="cpu")
    >>> r.nodes.tolist()
    [1, 3]
    """
    name = "maximal_independent_set"
    if G.directed:
        raise InvalidGraphError(f"{name} is not implemented for directed graphs")
    dev = choose_device(device, IMPLEMENTATIONS, name)
    callers = ids_to_caller(G, np.arange(G.n, dtype=np.int32))
    priority = _first(G, seeds.rng(seed).permutation(G.n), nodes)
    res = IMPLEMENTATIONS[dev](G.simple_undirected(), priority[callers])
    res.priority = priority
    res.in_set = to_caller(G, res.in_set)
    res.nodes = xp(res.in_set).flatnonzero(res.in_set).astype(np.int32)
    return res


def _first(G, permutation, nodes):
    """Priorities over the caller's ids: `permutation`, with the ids of `nodes` (checked: they
    must be vertices, none adjacent) moved ahead of the rest, each group in its own order."""
    if nodes is None:
        return permutation.astype(np.int32)
    ids = np.array([caller_id(G, v, "nodes") for v in nodes], np.int64)
    required = np.zeros(G.n, bool)
    required[ids] = True
    src, dst = G.edges()
    callers = ids_to_caller(G, np.arange(G.n, dtype=np.int32))
    both = required[callers[src]] & required[callers[dst]] & (src != dst)
    if both.any():
        e = int(np.flatnonzero(both)[0])
        u, v = int(callers[src[e]]), int(callers[dst[e]])
        raise InvalidArgumentError(f"nodes {u} and {v} are adjacent: no independent set has both")
    key = permutation + np.where(required, 0, G.n)
    rank = np.empty(G.n, np.int32)
    rank[np.argsort(key, kind="stable")] = np.arange(G.n, dtype=np.int32)
    return rank


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
    decides those it can, then a filter keeps those for which `pending` holds.

    A decision is final once written and a read racing with the write only delays a vertex, so the
    answer is the sequential one in priority order. The pending vertices go in that order, so a
    round's later warps may already see its earlier decisions.

    Parameters
    ----------
    S : Graph
        The simple undirected graph (:meth:`gravel.Graph.simple_undirected`); its device copy is
        made or reused.
    rank : numpy.ndarray or cupy.ndarray
        int32 priority of each internal vertex, distinct, 0 first.
    value : str
        CUDA expression of the reduce, over ``u`` (the neighbour), ``v`` and the parameters.
    reduce : str
        The reduction (``"max"``, ``"sum"``, ...; :func:`gravel.operators.neighbor_reduce`).
    dtype : numpy.dtype
        Type of the reduced value.
    apply : str
        CUDA statement over ``v`` and the reduced value ``acc`` that decides the vertex.
    pending : str
        CUDA condition over ``v`` that holds while the vertex is undecided.
    params : dict
        Device arrays and scalars the expressions read; ``rank`` (the priorities) is added.
    preamble : str, default ""
        CUDA source (device functions) compiled before both kernels.

    Returns
    -------
    rounds : int
        The rounds run.
    seconds : float
        Their time on the GPU (:class:`gravel.results.Timer`).
    """
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
    """Check that `in_set` marks an independent set of G (self loops aside) that no vertex can
    join.

    Parameters
    ----------
    G : Graph
    in_set : array_like
        bool or 0/1 per vertex, over the caller's ids, on the host.

    Returns
    -------
    list of str
        The first problem found, as a sentence; empty if the set passes.
    """
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
    """Per-vertex array indexed by the caller's ids -> indexed by internal ids (the inverse of
    :func:`gravel.dispatch.to_caller`).

    Parameters
    ----------
    G : Graph
    values : numpy.ndarray
        n values over the caller's ids.

    Returns
    -------
    numpy.ndarray
        The same values over G's internal ids: `values` itself where G is not reordered.
    """
    return values if G.order is None else values[ids_to_caller(G, np.arange(G.n, dtype=np.int32))]


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _mis_cpu, "cuda": _mis_cuda}
