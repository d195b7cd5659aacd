"""The public function: checks, the sample of sources, the device's path and the scaling."""

import numpy as np

from ... import seeds
from ...arguments import is_integer
from ...arrays import xp
from ...dispatch import caller_id, choose_device, takes_graph, to_caller
from ...errors import InvalidGraphError, VertexNotFoundError
from ...transform import deduplicate
from .cpu import _bc_cpu
from .cuda import _bc_cuda
from .result import rescale, rescale_edges


@takes_graph
def betweenness_centrality(
    G, k=None, *, normalized=True, seed=None, sources=None, edges=False, device="auto"
):
    """Betweenness centrality of every vertex.

    Parameters
    ----------
    G : Graph
        Weights are ignored (hop counts). Parallel arcs count once, as in a ``networkx.DiGraph``
        (``networkx.Graph`` when undirected); self loops lie on no shortest path.
    k : int, optional
        Use `k` sources sampled without replacement (with `seed`) instead of all n; ``1 <= k <=
        n``.
    normalized : bool, default True
        Divide by the number of ordered pairs, as NetworkX does.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seed of the source sample.
    sources : sequence, optional
        Use exactly these sources, scaled as a sample of ``k = len(sources)`` distinct vertices; a
        repeated vertex counts once. Caller ids or, on a labelled graph, labels
        (:func:`gravel.dispatch.caller_id`). Overrides `k` and `seed`.
    edges : bool, default False
        Also score every arc, as ``networkx.edge_betweenness_centrality`` scores edges: the
        shortest paths through it (``edge_centrality``, over the arcs of ``G.edges()`` in its
        order; an undirected edge's score on both of its arcs).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU.

    Returns
    -------
    BCResult
        ``centrality[v]`` (float64, caller ids; a CuPy array on the GPU) and the ``sources`` used
        (int32, on the host). As in NetworkX, endpoints are excluded, and with a single sampled
        source its own value is NaN (0 / 0). With `edges`, ``edge_centrality`` (float64 per arc).

    Raises
    ------
    InvalidGraphError
        `k` is not an integer in ``[1, n]``, or `sources` is empty or not 1-D; `edges` on a graph
        with parallel arcs.
    InvalidArgumentError
        `seed` is not None, an integer >= 0, a sequence of them or a NumPy generator.
    VertexNotFoundError
        A source is neither a vertex id nor a label of G.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.transform.deduplicate : the simple graph whose paths are counted.

    Notes
    -----
    O(k m) time for k sources (all n by default), O(n) memory per CPU thread. NetworkX's
    ``MultiDiGraph`` semantics (each parallel arc a distinct path) are those of Brandes' algorithm
    run on the raw arcs; gravel never uses them.

    Examples
    --------
    >>> import gravel
    >>> r = gravel.betweenness_centrality(gravel.generate.grid(1, 3), device="cpu")
    >>> r.centrality.tolist()
    [0.0, 1.0, 0.0]
    >>> G = gravel.Graph.from_edges([0, 0, 1, 0, 3], [1, 1, 2, 3, 2])  # 0 -> 1 twice
    >>> gravel.betweenness_centrality(G, normalized=False, device="cpu").centrality.tolist()
    [0.0, 0.5, 0.0, 0.5]
    """
    dev = choose_device(device, IMPLEMENTATIONS, "betweenness_centrality")
    n = G.n
    if edges and G.has_parallel_arcs:
        raise InvalidGraphError("edges=True: G has parallel arcs, whose paths merge into one")
    sources, k = choose_sources(G, k, seed, sources)
    internal = sources if G.order is None else G.order[sources]
    res = IMPLEMENTATIONS[dev](_simple_arcs(G), internal, bool(edges))
    if edges:
        arcs = res.edge_centrality
        if not G.directed:  # an edge's two arcs
            src, dst = G.edges()
            arcs = arcs + arcs[xp(arcs).asarray(np.lexsort((src, dst)))]
        res.edge_centrality = rescale_edges(arcs, n, k, normalized, G.directed)
    res.centrality = rescale(
        to_caller(G, res.centrality),
        n,
        xp(res.centrality).asarray(sources),
        k,
        normalized,
        G.directed,
    )
    res.sources = sources
    return res


def choose_sources(G, k, seed, sources):
    """The sources of a run and the sample size that scales it, from the arguments of
    :func:`betweenness_centrality`.

    Parameters
    ----------
    G : Graph
    k : int or None
    seed : int, sequence of ints, numpy.random.Generator or None
    sources : sequence or None
        As :func:`betweenness_centrality` takes them.

    Returns
    -------
    sources : numpy.ndarray of int32
        Caller ids: the given ones (distinct, sorted), a sample of `k`, or every vertex.
    k : int or None
        The sample's size, None where every vertex is a source.

    Raises
    ------
    InvalidGraphError
        `k` is not an integer in ``[1, n]``, or `sources` is empty or not 1-D.
    InvalidArgumentError
        A bad `seed`.
    VertexNotFoundError
        A source is neither a vertex id nor a label of G.
    """
    n = G.n
    if sources is not None:
        sources = _check_sources(G, sources)
        return sources, len(sources)
    if k is None:
        return np.arange(n, dtype=np.int32), None
    if not is_integer(k):
        raise InvalidGraphError(f"k must be an integer number of sources, not {k!r}")
    if not 0 < k <= n:
        raise InvalidGraphError(f"k={k} sources, but the graph has {n} vertices")
    return seeds.rng(seed).choice(n, size=k, replace=False).astype(np.int32), k


def _check_sources(G, sources):
    """The distinct caller ids of `sources` (int32, sorted), refused unless each is a vertex: an
    id, or on a labelled graph a label (:func:`caller_id`)."""
    a = np.asarray(sources)
    if a.ndim != 1:
        raise InvalidGraphError(f"sources must be a 1-D array of vertices, not {a.ndim}-D")
    if a.size == 0:
        raise InvalidGraphError("sources is empty: betweenness needs at least one source")
    if not np.issubdtype(a.dtype, np.integer):  # labels, or ids among them
        a = np.array([caller_id(G, s, "source") for s in sources], np.int64)
    bad = a[(a < 0) | (a >= G.n)]
    if bad.size:
        raise VertexNotFoundError(
            f"source vertex {int(bad[0])} is not in the graph (ids 0..{G.n - 1})"
        )
    return np.unique(a).astype(np.int32)


def _simple_arcs(G):
    """G itself, or G with its parallel arcs merged where it has any."""
    return deduplicate(G) if G.has_parallel_arcs else G


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _bc_cpu, "cuda": _bc_cuda}
