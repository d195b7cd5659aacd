"""Who to follow (Gupta et al., WWW 2013, Twitter's WTF; a Gunrock application): a user's circle of
trust is the `trust` vertices of highest PageRank personalized to the user; those hubs and the
vertices they follow (the authorities) form a bipartite graph, and SALSA's authority scores on it
rank the accounts to recommend, leaving out the user and whom the user already follows.
"""

from dataclasses import dataclass

import numpy as np

from ..arguments import is_integer
from ..arrays import host, list_entries
from ..dispatch import caller_id, ids_to_caller, takes_graph
from ..errors import InvalidArgumentError
from ..results import Result

#: its paths by device are PageRank's, which runs the walk that finds the circle (SALSA's step
#: runs on the CPU); the catalog's ``devices`` are its keys
from .pagerank import IMPLEMENTATIONS  # noqa: F401


@dataclass
class WhoToFollowResult(Result):
    """Recommendations, as :func:`who_to_follow` returns them (NumPy arrays on either device).

    Attributes
    ----------
    recommended : numpy.ndarray
        int32 caller ids, best first.
    scores : numpy.ndarray
        float64: their SALSA authority scores.
    score : numpy.ndarray
        float64 per vertex, over the caller's ids: every vertex's (0 for those not recommended).
    circle : numpy.ndarray
        int32: the circle of trust (caller ids, by personalized PageRank, best first).
    stats : dict
        ``"circle"``: the circle's size; ``"authorities"``: the vertices its members follow.
    """

    vertex_arrays = ("score",)

    score: np.ndarray = None
    recommended: np.ndarray = None
    scores: np.ndarray = None
    circle: np.ndarray = None


@takes_graph
def who_to_follow(G, source, *, count=10, trust=100, alpha=0.85, device="auto"):
    """Accounts to recommend to the user `source` on the graph G (an arc u -> v: u follows v; an
    undirected edge: both follow each other).

    Parameters
    ----------
    G : Graph
        Weights, where G has them, weigh PageRank's and SALSA's walks.
    source : int or label
        The user to recommend to: an id, or on a graph with labels a label that is not an integer
        (:func:`gravel.dispatch.caller_id`).
    count : int, default 10
        Most recommendations.
    trust : int, default 100
        Size of the circle of trust: the vertices of highest PageRank personalized to `source`
        (the user among them; ties by id).
    alpha : float, default 0.85
        PageRank's damping.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where the personalized PageRank runs (SALSA on the small bipartite graph runs on the CPU).

    Returns
    -------
    WhoToFollowResult
        ``recommended`` (int32 caller ids, best first, at most `count`; neither the user nor whom
        the user follows, nor a vertex of score 0) and their ``scores``; ``score`` over every
        vertex; ``circle``. ``device``, ``time_s`` and ``iterations`` are the personalized
        PageRank's.

    Raises
    ------
    InvalidArgumentError
        `count` or `trust` is not an integer >= 1, or `alpha` is not in [0, 1].
    VertexNotFoundError
        `source` is neither a vertex id nor a label of G.
    InvalidWeightError
        A weight is negative, NaN or infinite.
    PowerIterationFailedConvergence
        The personalized PageRank did not converge in 100 iterations.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.pagerank, gravel.salsa

    Notes
    -----
    Gupta et al., WWW 2013 (Twitter's WTF), as Gunrock's application runs it: the circle's members
    (hubs) and the vertices they follow (authorities) form a bipartite graph, and SALSA's authority
    scores on it rank the accounts.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 1, 2, 2, 3], [1, 2, 2, 3, 3, 4, 4])
    >>> gravel.who_to_follow(G, 0, device="cpu").recommended.tolist()
    [3, 4]
    """
    from ..graph import Graph
    from .pagerank import pagerank
    from .salsa import salsa

    for name, value in (("count", count), ("trust", trust)):
        if not is_integer(value) or value < 1:
            raise InvalidArgumentError(
                f"who_to_follow: {name} must be an integer >= 1, not {value!r}"
            )
    u = caller_id(G, source)
    res = pagerank(G, alpha=alpha, personalization={u: 1.0}, device=device)
    rank = host(res.rank)
    order = np.lexsort((np.arange(G.n), -rank))
    circle = order[: min(int(trust), G.n)]
    hubs, targets, weights = _out_arcs(G, circle)
    authorities, side = np.unique(targets, return_inverse=True)
    B = Graph.from_edges(hubs, circle.size + side, weights, n=circle.size + authorities.size)
    score = salsa(B, device="cpu").authorities[circle.size :]
    followed = np.zeros(G.n, bool)
    followed[_out_arcs(G, np.array([u]))[1]] = True
    followed[u] = True
    keep = ~followed[authorities] & (score > 0)
    candidates, score = authorities[keep], score[keep]
    best = np.lexsort((candidates, -score))[: int(count)]
    every = np.zeros(G.n)
    every[candidates[best]] = score[best]
    return WhoToFollowResult(
        "who_to_follow",
        res.device,
        res.time_s,
        res.iterations,
        "personalized pagerank, salsa",
        {"circle": int(circle.size), "authorities": int(authorities.size)},
        score=every,
        recommended=candidates[best].astype(np.int32),
        scores=score[best],
        circle=circle.astype(np.int32),
    )


def _out_arcs(G, vertices):
    """The out-arcs of `vertices` (caller ids): (the position in `vertices` of each arc's tail, its
    head as a caller id, its weight or None)."""
    inner = vertices if G.order is None else G.order[vertices]
    at, tails = list_entries(G.offsets, inner)
    heads = ids_to_caller(G, G.indices[at])
    return tails, heads, None if G.weights is None else G.weights[at]


def verify_who_to_follow(G, source, score):
    """Check who-to-follow scores: finite, non-negative, at most 1 in all, and 0 on the user, on
    whom the user follows and on vertices nobody follows.

    Parameters
    ----------
    G : Graph
    source : int
        The user's caller id.
    score : array_like
        The score of each vertex, over the caller's ids, on the host.

    Returns
    -------
    list of str
        The first problem found, as a sentence; empty if the scores pass.
    """
    score = np.asarray(score, np.float64)
    if score.shape != (G.n,) or not np.all(np.isfinite(score)) or np.any(score < 0):
        return [f"score must be {G.n} finite non-negative values"]
    if score.sum() > 1 + 1e-9:
        return [f"scores sum to {score.sum()}, more than SALSA's 1"]
    tails, heads, _ = _out_arcs(G, np.arange(G.n))
    followed = np.zeros(G.n, bool)
    followed[heads] = True
    mine = heads[tails == source]
    if score[source] or np.any(score[mine]) or np.any(score[~followed]):
        return ["a score on the user, someone the user follows, or someone nobody follows"]
    return []
