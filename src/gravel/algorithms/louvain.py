"""Louvain communities, as ``networkx.community.louvain_communities``.

Blondel et al.'s method (J. Stat. Mech. 2008), level by level: vertices move, in a random order
(NetworkX's, from `seed`), to the neighbouring community of largest modularity gain until a pass
gains no more than `threshold`; then each community becomes a vertex of the next level's graph.
It stops when a level moves nothing or raises the modularity by no more than `threshold`.
backends/cpu/louvain.py holds the two phases; the GPU runs louvain_parallel.py's variant, where
every vertex moves at once.
"""

from dataclasses import dataclass

import numpy as np

from .. import seeds
from ..arguments import is_real
from ..arrays import host, xp
from ..backends.cpu import chunks, shares
from ..backends.cpu import louvain as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import InvalidArgumentError, InvalidGraphError
from ..results import Timer
from ..transform import check_weights
from .coloring import colour_classes, jones_plassmann
from .lpa import LPAResult, caller_ids, degrees, modularity

#: NetworkX runs whose median modularity the verifier compares with
NX_SEEDS = 5


@dataclass
class LouvainResult(LPAResult):
    """Communities as labels, and their modularity (as label propagation's), as
    :func:`louvain_communities` returns them.

    Attributes
    ----------
    labels : numpy.ndarray
        int32 per vertex, over the caller's ids: the smallest caller id of its community.
    modularity : float
        The partition's modularity (weighted where the run used weights, at its `resolution`).
    partitions : list of numpy.ndarray
        Each level's labels, as `labels` holds them (NetworkX's ``louvain_partitions``): the last
        is `labels`; the vertices alone where nothing moved.
    """

    partitions: list = None


@takes_graph
def louvain_communities(
    G, *, weight=True, resolution=1.0, threshold=1e-7, seed=None, device="auto"
):
    """Label every vertex with its community, found by Louvain modularity optimisation.

    Blondel et al.'s method, level by level: vertices move to the neighbouring community of
    largest modularity gain until a pass gains no more than `threshold`, then each community
    becomes a vertex of the next level's graph.

    Parameters
    ----------
    G : Graph
        Undirected; parallel edges add their weights, a self loop counts twice in its vertex's
        degree, as in a ``networkx.Graph``'s modularity.
    weight : bool, default True
        Use the edge weights where G has them (non-negative and finite); else every edge weighs 1.
    resolution : float, default 1.0
        Above 1, smaller communities; below 1, larger ones. Finite and at least 0.
    threshold : float, default 1e-7
        A pass, or a level, that raises the modularity by no more than this ends. Finite and at
        least 0.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seeds the order in which the CPU visits the vertices (each level shuffles them). The GPU
        moves every vertex at once (:func:`gravel.algorithms.louvain_parallel.parallel_louvain`)
        and needs no seed.
    device : {"auto", "cpu", "cuda"}, default "auto"
        "auto" is the GPU where one is available, else the CPU.

    Returns
    -------
    LouvainResult
        ``labels[v]`` (int32, caller ids; a NumPy array on either device): the smallest caller id
        of v's community. ``modularity``: the partition's (weighted, at `resolution`);
        ``partitions``: each level's labels alike, the last being `labels`; ``iterations``: the
        levels.

    Raises
    ------
    InvalidGraphError
        G is directed.
    InvalidArgumentError
        `resolution` or `threshold` is not a finite number >= 0; on the CPU, a `seed` that is not
        None, an integer >= 0, a sequence of them or a NumPy generator.
    InvalidWeightError
        A weight is negative, NaN or infinite (weights in use).
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.label_propagation_communities
    networkx.community.louvain_communities

    Notes
    -----
    Blondel, Guillaume, Lambiotte and Lefebvre, J. Stat. Mech. 2008; the visit order is NetworkX's,
    from `seed`. It stops when a level moves nothing or raises the modularity by no more than
    `threshold`. Each pass reads every arc once, and a level's graph is at most as large as the one
    before: O(passes * (n + m)) in all. On the CPU a level of up to SMALL_ARCS arcs moves its
    vertices serially; a bigger one is coloured (Jones-Plassmann, random priorities) and each
    colour class's vertices choose their moves in parallel, seeing the totals as the class began;
    a move is kept only if it still raises the modularity once the class's earlier moves are
    counted. Any partition Louvain finds depends on the visit order; the tests hold its modularity
    within 5 % of NetworkX's on the same graph.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3], directed=False)
    >>> r = gravel.louvain_communities(G, seed=1, device="cpu")
    >>> r.labels.tolist(), round(r.modularity, 3)
    ([0, 0, 0, 3, 3, 3], 0.357)
    """
    name = "louvain_communities"
    weighted = check_communities(G, name, weight, resolution, threshold)
    return IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, name)](
        G, weighted, float(resolution), float(threshold), seed
    )


def check_communities(G, name, weight, resolution, threshold):
    """The checks of the arguments that Louvain and Leiden share.

    Parameters
    ----------
    G : Graph
        The graph to split into communities.
    name : str
        The public function, named in the errors.
    weight, resolution, threshold
        The function's arguments.

    Returns
    -------
    bool
        Whether the run weighs the edges by G's weights (`weight` true and G weighted).

    Raises
    ------
    InvalidGraphError
        G is directed.
    InvalidArgumentError
        `resolution` or `threshold` is not a finite number >= 0.
    InvalidWeightError
        A weight is negative, NaN or infinite (weights in use).
    """
    if G.directed:
        raise InvalidGraphError(f"{name} is not implemented for directed graphs")
    for what, x in (("resolution", resolution), ("threshold", threshold)):
        if not is_real(x) or not np.isfinite(x) or x < 0:
            raise InvalidArgumentError(f"{name}: {what} must be a finite number >= 0, not {x!r}")
    weighted = bool(weight) and G.weighted
    if weighted:
        check_weights(G, name=name)
    return weighted


def _louvain_cpu(G, weighted, resolution, threshold, seed):
    n = G.n
    w = G.weights.astype(np.float64) if weighted else np.ones(G.nnz)
    graph = first = _level_graph(G, w)
    rng = seeds.rng(seed)
    labels = np.arange(n, dtype=np.int32)  # int32: half the cache lines of int64 (tuning.md)
    degree = degrees(G.offsets, G.indices, w)

    def modularity_of(labels):
        return modularity(G.offsets, G.indices, labels, w, resolution, degree=degree)

    q = modularity_of(labels)
    levels, history = 0, []
    with Timer() as t:
        while graph[0].size > 1:
            size = graph[0].size - 1
            community = np.arange(size, dtype=np.int32)
            moves = _move(graph, community, rng, resolution, threshold)
            if not moves:
                break
            levels += 1
            community = _dense(community, size)
            labels = community[labels]
            history.append(labels)
            q_new = modularity_of(labels)
            if q_new - q <= threshold:
                q = q_new
                break
            q = q_new
            graph = _k.aggregate(*graph, community)
        if levels > 1:  # the vertices move once more, between the final communities
            if _move(first, labels, rng, resolution, threshold):
                q = modularity_of(labels)
    run = ("louvain_communities", "cpu", t.seconds, "louvain", weighted)
    return community_result(LouvainResult, G, labels, history, q, run)


def _level_graph(G, w):
    """G as the first level's graph, (offsets, ids, weights `w`, each vertex's loop weight): its
    CSR without self loops, which a level's graph lists apart (G's own arrays where it has none)."""
    n = G.n
    if not G.self_loops:
        return G.offsets, G.indices, w, np.zeros(n)
    src = np.repeat(np.arange(n), np.diff(G.offsets))
    loop = src == G.indices
    loops = np.bincount(src[loop], weights=w[loop], minlength=n)
    keep = ~loop
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src[keep], minlength=n), out=offsets[1:])
    return offsets, G.indices[keep], w[keep], loops


def _move(graph, community, rng, resolution, threshold):
    """Local moves over a level's graph (`community` updated in place; returns the moves):
    serially in a random order up to SMALL_ARCS arcs, else by the colour classes of a colouring
    in random priority, each class in parallel."""
    import numba  # loaded on a CPU run, as the kernels

    from ..backends.cpu.serial import is_small

    offsets, indices = graph[0], graph[1]
    size = offsets.size - 1
    order = rng.permutation(size)
    if is_small(indices.size):
        return shares.stoppable(_k.local_moves, *graph, order, community, resolution, threshold)
    colour, _ = jones_plassmann(offsets, indices, order.astype(np.int32))
    members, starts = colour_classes(colour)
    threads = numba.get_num_threads()
    return shares.stoppable(
        _k.local_moves_parallel,
        *graph,
        members,
        starts,
        community,
        resolution,
        threshold,
        threads,
        chunks(),
    )


def _dense(community, size):
    """`community`'s ids (below `size`) renumbered 0..c-1 in their order, as np.unique's inverse
    without a sort, in `community`'s dtype and array module."""
    m = xp(community)
    present = m.zeros(size, community.dtype)
    present[community] = 1
    return (m.cumsum(present, dtype=community.dtype) - 1)[community]


def _louvain_cuda(G, weighted, resolution, threshold, seed):
    """Every vertex moving at once (louvain_parallel.py) on CuPy arrays; `seed` does not apply
    (the movers' priorities are a hash of the vertex and the pass)."""
    import cupy

    from .louvain_parallel import parallel_louvain

    history = []
    with Timer("cuda") as t:
        labels, _ = parallel_louvain(cupy, G, weighted, resolution, threshold, history)
    labels = host(labels)
    history = [host(level) for level in history]
    w = G.weights.astype(np.float64) if weighted else None
    q = modularity(G.offsets, G.indices, labels, w, resolution)
    run = ("louvain_communities", "cuda", t.seconds, "parallel louvain", weighted)
    return community_result(LouvainResult, G, labels, history, q, run)


def community_result(kind, G, labels, history, modularity, run):
    """Louvain's or Leiden's result: each community labelled by its smallest caller id, over the
    caller's ids, in the labels and in each level's partition.

    Parameters
    ----------
    kind : type
        :class:`LouvainResult` or a subclass of it.
    G : Graph
        The graph the run split.
    labels : numpy.ndarray
        The final communities, per internal vertex (any integer ids below G.n).
    history : list of numpy.ndarray
        Each level's communities alike; the last stands for `labels` (which a final step may
        have refined), and their count is the result's iterations.
    modularity : float
        The partition's.
    run : tuple
        (algorithm, device, seconds, method, weighted): the run's name, where it ran, its time,
        its strategy without the weighting, and whether it weighed the edges.

    Returns
    -------
    LouvainResult
        Of type `kind`.
    """
    name, device, seconds, method, weighted = run
    final = by_smallest(G, labels)
    return kind(
        name,
        device,
        seconds,
        len(history),
        method + (", weighted" if weighted else ", unweighted"),
        labels=final,
        modularity=modularity,
        partitions=[by_smallest(G, level) for level in history[:-1]] + [final],
    )


def by_smallest(G, labels):
    """Communities labelled by their smallest caller ids, over the caller's ids.

    Parameters
    ----------
    G : Graph
        The graph whose vertices `labels` groups.
    labels : numpy.ndarray
        Integers below G.n per internal vertex: equal ones share a community.

    Returns
    -------
    numpy.ndarray
        int32 per vertex, over the caller's ids: the smallest caller id of its community.
    """
    smallest = np.full(G.n, G.n, np.int64)
    np.minimum.at(smallest, labels, caller_ids(G))
    return to_caller(G, smallest[labels].astype(np.int32))


def verify_louvain(G, labels, *, modularity=None, weight=True, resolution=1.0, quality=True):
    """Check Louvain's communities: each labelled by its smallest caller id, `modularity` the
    partition's (``networkx.community.modularity``) and within 5 % of the modularity NetworkX's
    Louvain reaches on G (the median over NX_SEEDS seeds: its answer depends on the visit order as
    much as ours). Needs NetworkX.

    Parameters
    ----------
    G : Graph
        Undirected.
    labels : array_like
        The community label of each vertex, over the caller's ids, on the host.
    modularity : float, optional
        The modularity the run reported; not compared if None.
    weight : bool, default True
        Weigh the edges by G's weights where it has them (parallel edges add up); else 1 each.
    resolution : float, default 1.0
        The run's resolution.
    quality : bool, default True
        Compare with NetworkX's own Louvain (five runs of it); False skips that comparison.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the communities pass.
    """
    import networkx as nx

    labels = np.asarray(labels)
    n = G.n
    if labels.shape != (n,) or (n and (labels.min() < 0 or labels.max() >= n)):
        return [f"labels must be {n} vertex ids"]
    if n and not np.array_equal(labels[labels], labels):
        return ["a community's label is not one of its own vertices"]
    smallest = np.full(n, n, np.int64)
    np.minimum.at(smallest, labels, np.arange(n))
    if n and not np.array_equal(smallest[labels], labels):
        return ["a community is not labelled by its smallest vertex"]
    g = _summed(G, weight)
    key = "weight"
    ours = [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]
    if g.size(weight=key) == 0:
        return [] if not modularity else [f"modularity {modularity}, expected 0 without edges"]
    expect = nx.community.modularity(g, ours, weight=key, resolution=resolution)
    problems = []
    if modularity is not None and abs(modularity - expect) > 1e-9:
        problems.append(f"modularity {modularity}, expected {expect}")
    if not quality:
        return problems
    theirs = float(
        np.median(
            [
                nx.community.modularity(
                    g,
                    nx.community.louvain_communities(
                        g, weight=key, resolution=resolution, seed=seed
                    ),
                    weight=key,
                    resolution=resolution,
                )
                for seed in range(NX_SEEDS)
            ]
        )
    )
    if expect < theirs - 0.05 * abs(theirs) - 1e-9:
        problems.append(f"modularity {expect} is more than 5 % below NetworkX's {theirs}")
    return problems


def _summed(G, weight):
    """The undirected `G` as a ``networkx.Graph`` on the caller's ids whose edges weigh what
    Louvain counts: G's parallel edges added up, each its weight (1 where G has none or `weight`
    is false)."""
    import networkx as nx
    from scipy.sparse import csr_matrix, triu

    w = G.weights if weight and G.weighted else np.ones(G.nnz)
    A = csr_matrix((np.asarray(w, np.float64), G.indices, G.offsets), shape=(G.n, G.n), copy=True)
    A.sum_duplicates()
    if G.order is not None:
        A = A[G.order][:, G.order]
    upper = triu(A).tocoo()  # each edge once: its two arcs hold the same total
    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    g.add_weighted_edges_from(zip(upper.row.tolist(), upper.col.tolist(), upper.data.tolist()))
    return g


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _louvain_cpu, "cuda": _louvain_cuda}
