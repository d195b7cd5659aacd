"""Leiden communities (Traag, Waltman and van Eck, "From Louvain to Leiden: guaranteeing
well-connected communities", Sci. Rep. 2019).

Level by level, as Louvain (louvain.py), with a refinement between the moves and the aggregation:

1. move: vertices move to the neighbouring community of largest modularity gain (Louvain's local
   moves: serial in a random order on small CPU levels, by colour classes in parallel on large
   ones, all at once on the GPU);
2. split: a community the moves left disconnected becomes its connected parts, which never lowers
   the modularity: every level's partition, not only the last, has connected communities;
3. refine: each community splits into well-connected subcommunities: from singletons, each vertex
   alone and well connected to its community joins a neighbouring well-connected subcommunity, or
   stays, at random with probability proportional to exp(gain / theta) (backends/cpu/leiden.py;
   leiden_parallel.py on the GPU);
4. aggregate: the subcommunities become the next level's vertices, which start in the communities
   that hold them, so the next moves can split a community Louvain would have kept whole.

A run of levels ends when a level leaves every vertex of its graph a community of its own, or
when a level whose moves gained no more than `threshold` refines nothing. Leiden then runs again
on G from the partition found, `n_iterations` runs in all (or until one changes nothing), unless
`max_level` levels have changed the partition. Modularity of the final partition is computed on G,
as Louvain's.
"""

from dataclasses import dataclass, field

import numpy as np

from .. import seeds
from ..arguments import is_integer, is_real
from ..arrays import host
from ..dispatch import choose_device, takes_graph
from ..errors import InvalidArgumentError
from ..results import Timer
from .leiden_cpu import CpuLevels
from .louvain import LouvainResult, check_communities, community_result, verify_louvain
from .lpa import caller_ids, modularity


@dataclass
class LeidenResult(LouvainResult):
    """What :func:`leiden_communities` returns: :class:`gravel.algorithms.louvain.LouvainResult`'s
    labels, modularity and each level's partition (NetworkX's ``leiden_partitions``), the last
    `labels`; every community connected.
    """

    partitions: list = field(default_factory=list)


@takes_graph
def leiden_communities(
    G,
    *,
    weight=True,
    resolution=1.0,
    theta=0.01,
    threshold=1e-7,
    n_iterations=2,
    max_level=None,
    seed=None,
    device="auto",
):
    """Label every vertex with its community, found by Leiden modularity optimisation.

    Louvain's levels of local moves and aggregation, with a refinement between them that splits
    each community into well-connected subcommunities, which the next level aggregates: every
    community found is connected.

    Parameters
    ----------
    G : Graph
        Undirected; parallel edges add their weights, a self loop counts twice in its vertex's
        degree, as in a ``networkx.Graph``'s modularity.
    weight : bool, default True
        Use the edge weights where G has them (non-negative and finite); else every edge weighs 1.
    resolution : float, default 1.0
        Above 1, smaller communities; below 1, larger ones. Finite and at least 0.
    theta : float, default 0.01
        The refinement's randomness (the paper's theta): a vertex joins a subcommunity with
        probability proportional to exp(gain / (theta * w)), w the mean weight of G's edges, so
        that it is in edges on an unweighted graph and does not depend on the weights' unit.
        Finite and above 0; small values choose the largest gain almost always.
    threshold : float, default 1e-7
        A pass of moves that raises the modularity by no more than this ends a level's moves; a
        level whose moves raise it by no more, and whose refinement merges nothing, is the last.
        Finite and at least 0.
    n_iterations : int, default 2
        Runs of Leiden, each from the partition the last one found (its refinement lets whole
        subcommunities move again): igraph's default; a negative number runs until one changes
        nothing, and each further run costs about as much as the first.
    max_level : int, optional
        Stop after so many levels, over all runs (each a partition that the level's moves
        changed; the first always counts). At least 1; None: no limit.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seeds the CPU's visit orders and the refinement's random choices, and on the GPU the
        hashes that stand for them (the GPU's moves need no seed).
    device : {"auto", "cpu", "cuda"}, default "auto"
        "auto" is the GPU where one is available, else the CPU.

    Returns
    -------
    LeidenResult
        ``labels[v]`` (int32, caller ids; a NumPy array on either device): the smallest caller id
        of v's community, each community connected. ``modularity``: the partition's (weighted, at
        `resolution`); ``iterations``: the levels; ``partitions``: each level's labels (host
        arrays, as `labels`).

    Raises
    ------
    InvalidGraphError
        G is directed.
    InvalidArgumentError
        `resolution` or `threshold` is not a finite number >= 0, `theta` not a finite number > 0,
        `n_iterations` not a non-zero integer, `max_level` neither None nor an integer >= 1, or
        `seed` not None, an integer >= 0, a sequence of them or a NumPy generator.
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
    gravel.louvain_communities
    networkx.community.leiden_communities

    Notes
    -----
    Traag, Waltman and van Eck, Sci. Rep. 9, 5233 (2019). Each level: the moves (Louvain's: serial
    in a random order up to SMALL_ARCS arcs on the CPU, else by colour classes in parallel; all at
    once on the GPU); each community that the moves left disconnected split into its connected
    parts (which never lowers the modularity, so that every level's partition, not only the last,
    has connected communities); the refinement, in which each vertex still alone and well
    connected to its community S (E(v, S - v) >= resolution k_v (K_S - k_v) / 2m) joins a
    neighbouring well-connected subcommunity of S with non-negative gain, or stays, at random
    with probability proportional to exp(gain / theta) (on the CPU communities are refined in
    parallel, each serially in a random order; on the GPU, in random batches whose vertices choose
    at once); and the aggregation of the subcommunities, which start the next level in their
    communities. A run of levels ends when a level leaves every vertex of its graph alone, or when
    a level whose moves gained no more than `threshold` refines nothing; each further run starts
    from the partition found. O(runs * levels * passes * (n + m)) in all. The partition depends
    on the seed (and differs between the devices); the tests hold its modularity within 1 % of
    Louvain's (gravel's and NetworkX's) on karate, Les Misérables, LFR and planted-partition
    graphs, and within 3 % of gravel's Louvain on generated ones.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3], directed=False)
    >>> r = gravel.leiden_communities(G, seed=1, device="cpu")
    >>> r.labels.tolist(), round(r.modularity, 3)
    ([0, 0, 0, 3, 3, 3], 0.357)
    """
    name = "leiden_communities"
    weighted = check_communities(G, name, weight, resolution, threshold)
    if not is_real(theta) or not np.isfinite(theta) or theta <= 0:
        raise InvalidArgumentError(f"{name}: theta must be a finite number > 0, not {theta!r}")
    if not is_integer(n_iterations) or n_iterations == 0:
        raise InvalidArgumentError(
            f"{name}: n_iterations must be a non-zero integer, not {n_iterations!r}"
        )
    if max_level is not None and (not is_integer(max_level) or max_level < 1):
        raise InvalidArgumentError(
            f"{name}: max_level must be None or an integer >= 1, not {max_level!r}"
        )
    rng = seeds.rng(seed)
    w = G.weights.astype(np.float64) if weighted else np.ones(G.nnz)
    mean = float(w.sum()) / G.nnz if G.nnz else 1.0
    options = (float(resolution), float(threshold), float(theta) * (mean or 1.0))
    run = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, name)]
    with Timer(run.device) as t:
        engine = run(G, weighted, w, options, rng)
        labels, levels, kept = run_levels(engine, n_iterations, max_level)
    labels = host(labels)
    q = modularity(G.offsets, G.indices, labels, w if weighted else None, float(resolution))
    ran = (name, run.device, t.seconds, run.method, weighted)
    return community_result(LeidenResult, G, labels, kept, q, ran)


def run_levels(level, iterations, max_level):
    """Leiden's iterations and their levels over an engine that holds a level's graph and its
    steps.

    Parameters
    ----------
    level : leiden_levels.Levels
        The first level's graph (the CPU's or the GPU's engine); its ``move``, ``split``,
        ``refine``, ``aggregate`` and ``modularity`` run the steps, over its array module ``xp``;
        ``restart`` goes back to the first level's graph.
    iterations : int
        Runs of the levels, each from the partition the last one found; a negative number runs
        until one changes nothing.
    max_level : int or None
        Stop after so many levels (None: no limit).

    Returns
    -------
    labels : numpy.ndarray or cupy.ndarray
        int64 per vertex (internal ids): its community, numbered 0..c-1.
    levels : int
        The levels whose partition counts, over all iterations: each one that the moves changed,
        and the first.
    kept : list
        Each such level's labels, copied to the host as it ends (int64, as `labels`).
    """
    xp = level.xp
    n = level.size
    flat = xp.arange(n, dtype=xp.int64)  # the partition so far, numbered 0..c-1
    levels, kept, runs = 0, [], 0
    while runs != iterations:
        runs += 1
        before, last = levels, False
        level.restart()
        labels = xp.arange(n, dtype=xp.int64)  # each vertex's vertex of the level graph
        community = flat.copy()
        while True:
            q = level.modularity(community)
            moved, community = level.move(community)
            community = level.split(community)
            if moved or not levels:
                levels += 1
                kept.append(host(community[labels]))
            count = int(community.max()) + 1 if level.size else 0
            last = levels == max_level
            if last or count == level.size:
                break
            refined = level.refine(community)
            idle = not moved or level.modularity(community) - q <= level.threshold
            if idle and int(refined.max()) + 1 == level.size:
                break
            start = xp.empty(int(refined.max()) + 1, dtype=xp.int64)
            start[refined] = community
            labels = refined[labels]
            level.aggregate(refined)
            community = start
        flat = community[labels]
        if last or levels == before:
            break
    return flat, levels, kept


def _parallel_levels(G, weighted, w, options, rng):
    """The GPU's engine (leiden_parallel.py) on CuPy arrays, its hashes salted from `rng`."""
    import cupy

    from .leiden_parallel import ParallelLevels

    salt = int(rng.integers(2**31))
    return ParallelLevels(cupy, G, weighted, *options, salt)


_parallel_levels.device = "cuda"
_parallel_levels.method = "parallel leiden"


def verify_leiden(G, labels, *, modularity=None, weight=True, resolution=1.0, quality=True):
    """Check Leiden's communities: Louvain's checks (:func:`gravel.algorithms.louvain.
    verify_louvain`: labelled by their smallest caller ids, `modularity` the partition's, within
    5 % of NetworkX's Louvain), and each community connected. Needs NetworkX and SciPy.

    Parameters
    ----------
    G : Graph
        Undirected.
    labels : array_like
        The community label of each vertex, over the caller's ids, on the host.
    modularity : float, optional
        The modularity the run reported; not compared if None.
    weight : bool, default True
        Weigh the edges by G's weights where it has them; else 1 each.
    resolution : float, default 1.0
        The run's resolution.
    quality : bool, default True
        Compare with NetworkX's own Louvain; False skips that comparison.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the communities pass.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    kw = {"modularity": modularity, "weight": weight, "resolution": resolution}
    problems = verify_louvain(G, labels, quality=quality, **kw)
    if problems or G.n == 0:
        return problems
    ours = np.asarray(labels)[caller_ids(G)]  # each internal vertex's label
    rows = np.repeat(np.arange(G.n), np.diff(G.offsets))
    inside = ours[rows] == ours[G.indices]
    A = csr_matrix((np.ones(int(inside.sum())), (rows[inside], G.indices[inside])), (G.n, G.n))
    parts, _ = connected_components(A, directed=False)
    communities = np.unique(ours).size
    if parts != communities:
        problems.append(f"{parts - communities} of the communities are not connected")
    return problems


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": CpuLevels, "cuda": _parallel_levels}
