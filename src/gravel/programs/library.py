"""The seed's algorithms as vertex programs (GraphMat's showcase set), each a few expressions.

Each returns a :class:`Program` for :func:`gravel.programs.run`; the tests check each against
gravel's built-in primitive (collaborative filtering against a NumPy reference). Triangle counting
cannot keep neighbour lists in a state, as GraphMat's does (a state is a fixed-size record): its
edges call ``common``, the intersection of the two endpoints' lists, instead.
"""

from .program import Program


def pagerank(alpha=0.85, tol=1e-10):
    """PageRank by power iteration: every vertex sends its rank over its out-degree each
    iteration; a vertex stays active while its rank moves by more than `tol`.

    As GraphMat's, apply runs where rank arrives: on a graph where every vertex has an in-edge and
    an out-edge it is :func:`gravel.pagerank`'s fixed point (a vertex with no out-edge passes no
    rank on; one with no in-edge keeps its start, ``1 / n``).

    Parameters
    ----------
    alpha : float, default 0.85
        The damping factor: the share of rank passed along the edges. The program's parameter
        ``alpha``, which ``run(params=...)`` may change.
    tol : float, default 1e-10
        The change of rank below which a vertex goes inactive; the parameter ``tol``.

    Returns
    -------
    Program
        A float64 state (the rank) and message; every vertex sends.

    See Also
    --------
    gravel.pagerank : The built-in primitive.
    """
    return Program(
        "float64",
        "float64",
        init="1.0 / n",
        send="state / out_degree if out_degree > 0 else 0.0",
        process="message",
        reduce="sum",
        apply="(1 - alpha) / n + alpha * total",
        active="abs(state - old) > tol",
        senders="all",
        params={"alpha": float(alpha), "tol": float(tol)},
    )


def bfs():
    """Breadth-first depths from the parameter `source` (-1 where unreached), along out-edges.

    Only unreached vertices listen, and every value reaching one in an iteration is the same
    depth, so any one will do: a pull is then a bottom-up step, each unreached vertex reading its
    in-list up to its first parent in the frontier.

    Returns
    -------
    Program
        An int32 state (the depth) and message, with the vertex parameter ``source`` (default
        0; ``run(params={"source": s})``).

    See Also
    --------
    gravel.bfs : The built-in primitive.

    Examples
    --------
    >>> import gravel
    >>> from gravel import programs
    >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
    >>> programs.run(G, programs.bfs(), params={"source": 1}, device="cpu").state.tolist()
    [-1, 0, 1]
    """
    return Program(
        "int32",
        "int32",
        init="0 if v == source else -1",
        start="v == source",
        send="state + 1",
        process="message",
        reduce="any",
        apply="total",
        listen="state < 0",
        params={"source": 0},
        vertices=("source",),
    )


def sssp():
    """Bellman-Ford distances from the parameter `source` (inf where unreached): the min-plus
    semiring, each improved vertex active in the next round.

    Returns
    -------
    Program
        A float64 state (the distance) and message over the edge weights (1 where the graph has
        none), with the vertex parameter ``source`` (default 0).

    See Also
    --------
    gravel.sssp : The built-in primitive.

    Examples
    --------
    >>> import gravel
    >>> from gravel import programs
    >>> G = gravel.Graph.from_edges([0, 0, 2], [1, 2, 1], [4.0, 1.0, 2.0])
    >>> programs.run(G, programs.sssp(), params={"source": 0}, device="cpu").state.tolist()
    [0.0, 3.0, 1.0]
    """
    return Program(
        "float64",
        "float64",
        init="0.0 if v == source else inf",
        start="v == source",
        send="state",
        semiring="min_plus",
        apply="min(state, total)",
        params={"source": 0},
        vertices=("source",),
    )


def connected_components():
    """Weakly connected components by label propagation: each vertex takes the smallest label it
    hears along its edges both ways, so every component ends labelled by its smallest id.

    Returns
    -------
    Program
        An int32 state (the label) and message; no parameters.

    Examples
    --------
    >>> import gravel
    >>> from gravel import programs
    >>> G = gravel.Graph.from_edges([0, 2], [1, 3])
    >>> programs.run(G, programs.connected_components(), device="cpu").state.tolist()
    [0, 0, 2, 2]
    """
    return Program(
        "int32",
        "int32",
        init="v",
        send="state",
        process="message",
        reduce="min",
        apply="min(state, total)",
        direction="both",
    )


def triangles():
    """Triangles through each vertex of an undirected graph: every vertex sends its id, and along
    each edge u - v the vertex reached counts the neighbours it shares with u; every triangle at v
    is so counted twice, once from each of its other two corners. One iteration.

    Returns
    -------
    Program
        An int64 state (the count) and message; every vertex sends, and its process calls
        ``common``.

    Examples
    --------
    >>> import gravel
    >>> from gravel import programs
    >>> G = gravel.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=False)
    >>> programs.run(G, programs.triangles(), device="cpu").state.tolist()
    [1, 1, 1]
    """
    return Program(
        "int64",
        "int64",
        send="v",
        process="common(message, v)",
        reduce="sum",
        apply="total / 2",
        active="False",
        senders="all",
    )


def collaborative_filtering(k=8, rate=0.01, lam=0.05):
    """Matrix factorisation by gradient descent (GraphMat's showcase): on a bipartite graph of
    users and items whose edge weights are ratings, every vertex holds `k` latent factors
    (``state.f0`` ..), sends them along its edges, each edge (rating r) returns the error
    ``r - p_u . p_v`` times the sender's factors, and each vertex moves by `rate` along the summed
    gradient less `lam` times its factors (L2 regularisation). Every vertex sends every
    iteration; the run goes on for ``max_iter``. The default start is a fixed spread of small
    values (the expressions have no random numbers); ``run(init=...)`` takes your own, a
    structured array.

    Parameters
    ----------
    k : int, default 8
        The latent factors of a vertex: the fields ``f0`` .. ``f{k-1}`` of its state and of a
        message. Fixed when the program is made.
    rate : float, default 0.01
        The step along the gradient; the program's parameter ``rate``.
    lam : float, default 0.05
        The weight of the L2 regularisation; the parameter ``lam``.

    Returns
    -------
    Program
        A structured state and message of `k` float64 fields; every vertex sends and stays
        active.
    """
    names = [f"f{j}" for j in range(k)]
    dot = " + ".join(f"message.{f} * state.{f}" for f in names)
    return Program(
        [(f, "float64") for f in names],
        [(f, "float64") for f in names],
        init={f: f"0.1 + 0.4 / (1.0 + 0.37 * v + {j})" for j, f in enumerate(names)},
        send={f: f"state.{f}" for f in names},
        process={f: f"(weight - ({dot})) * message.{f}" for f in names},
        reduce="sum",
        apply={f: f"state.{f} + rate * (total.{f} - lam * state.{f})" for f in names},
        active="True",
        senders="all",
        params={"rate": float(rate), "lam": float(lam)},
    )
