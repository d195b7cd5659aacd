"""Primitives whose parts each hold a whole replica of the graph: betweenness centrality with the
sources spread over the parts, and triangle counting on GPUs with the rows spread over them.

Brandes' algorithm needs every vertex's lists from every source, so the parts do not split the
graph's work: they split the sources. One allgather of the parts' out-lists gives every part (and
so every worker) a whole copy of the graph; each part runs the single-process kernel of its device
from its share of the sources (gravel's CPU kernel on a CPU worker, its GPU Brandes on a GPU's),
and one allreduce sums the partial centralities. On GPUs, triangle counting takes the same
replica: each part intersects the lists of its own rows' edges with gravel's segmented
intersection (:func:`gravel.operators.intersect`), and one allreduce sums the counts (CPU parts
count partitioned: :mod:`.counting`). The graph must fit in each worker's memory (and each
GPU's): there is no partitioned fallback.
"""

import numpy as np

from ..dispatch import to_caller
from ..errors import InvalidArgumentError
from .algorithms import _check_gather, _device, _run, _stats
from .device_part import DevicePart
from .exchange import allgather, allreduce
from .partition import PartitionedGraph


def replica(part):
    """The whole graph, on every part: one allgather of the parts' out-lists.

    Parameters
    ----------
    part : Part or DevicePart

    Yields
    ------
    Collective
        One allgather of the part's out-degrees and out-targets.

    Returns
    -------
    Graph
        The whole graph in the partition's ids, unweighted, its rows as the parts hold them, in
        host memory.
    """
    from ..arrays import host, xp
    from ..graph import Graph

    on_gpu = isinstance(part, DevicePart)
    targets = part.ids[part.graph.indices] if on_gpu else part.out_targets
    degrees, targets = yield allgather((xp(targets).diff(part.out_offsets), targets))
    offsets = np.zeros(part.n + 1, np.int64)
    np.cumsum(host(degrees), out=offsets[1:])
    return Graph.from_csr(offsets, host(targets), directed=part.directed, trusted=True)


def bc_program(part, sources, k, normalized):
    """Brandes from this part's share of `sources` on a replica of the graph; the partial sums
    meet in one allreduce and each part keeps its slice of the scaled centrality.

    Parameters
    ----------
    part : Part
    sources : numpy.ndarray of int32
        Every source, in the partition's ids; part i takes the i-th of P near-equal runs.
    k : int or None
        The sample's size for the scaling, None where every vertex is a source.
    normalized : bool

    Yields
    ------
    Collective
        The replica's allgather, then an allreduce of the n raw sums.

    Returns
    -------
    centrality : numpy.ndarray of float64
        Per local vertex.
    sources : int
        The sources this part ran.
    """
    from ..algorithms.betweenness import rescale
    from ..algorithms.betweenness.api import IMPLEMENTATIONS
    from ..arrays import host
    from ..transform import deduplicate

    G = yield from replica(part)
    mine = np.array_split(sources, part.parts)[part.index]
    if G.has_parallel_arcs:
        G = deduplicate(G)
    brandes = IMPLEMENTATIONS["cuda" if isinstance(part, DevicePart) else "cpu"]
    raw = host(brandes(G, mine, False).centrality) if mine.size else np.zeros(G.n)
    total = yield allreduce(raw, "sum")
    scaled = rescale(total, G.n, sources, k, normalized, G.directed)
    return scaled[part.lo : part.hi], int(mine.size)


def replica_triangles(part, per_vertex):
    """Triangles on a replica of the graph on this part's GPU, counted at the part's rows.

    Parameters
    ----------
    part : DevicePart
    per_vertex : bool
        Count the triangles through each of the part's vertices: the ends' lists of every edge
        of its rows in the simple undirected graph intersected, each row's sum halved (each
        triangle at u is seen from both its edges at u). Else the total alone: the edges of its
        rows in the graph oriented by (degree, id) rank, each triangle once.

    Yields
    ------
    Collective
        The replica's allgather, then an allreduce of the part's count.

    Returns
    -------
    triangles : numpy.ndarray of int64
        Per local vertex (empty without `per_vertex`).
    total : int
        The triangles of the whole graph.
    """
    import cupy

    from ..arrays import entry_rows, host
    from ..operators import intersect
    from ..transform import orient_by_degree

    G = yield from replica(part)
    S = G.simple_undirected()
    H = S if per_vertex else orient_by_degree(S)
    dg = H.to("cuda")
    lo, hi = part.lo, part.hi
    a, b = int(H.offsets[lo]), int(H.offsets[hi])
    offsets = dg.offsets[lo : hi + 1] - a
    rows = (entry_rows(offsets, b - a) + lo).astype(cupy.int32)
    counts, mine = intersect(dg, rows, dg.indices[a:b])
    if not per_vertex:
        return np.zeros(0, np.int64), int((yield allreduce(np.int64(mine), "sum")))
    prefix = cupy.concatenate([cupy.zeros(1, cupy.int64), cupy.cumsum(counts)])
    per = host((prefix[offsets[1:]] - prefix[offsets[:-1]]) // 2)
    return per, int((yield allreduce(np.int64(per.sum()), "sum"))) // 3


def betweenness_centrality(
    G,
    k=None,
    *,
    normalized=True,
    seed=None,
    sources=None,
    parts=2,
    cluster=None,
    gpus=None,
    gather=True,
):
    """Betweenness centrality over `parts` parts: the sources spread over the parts, each part
    with a whole replica of the graph, their partial centralities summed.

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        As for :func:`gravel.distributed.bfs`; weights are ignored and parallel arcs count once,
        as for :func:`gravel.betweenness_centrality`.
    k : int, optional
        Sample `k` sources (with `seed`); a Graph is needed to sample or name sources.
    normalized : bool, default True
        Divide by the number of ordered pairs, as NetworkX does.
    seed : int, sequence of ints or numpy.random.Generator, optional
        Seed of the source sample.
    sources : sequence, optional
        Use exactly these sources (caller ids, or labels), as :func:`gravel.betweenness_centrality`
        takes them.
    parts, cluster, gpus, gather
        As for :func:`gravel.distributed.bfs`: on GPUs each worker runs gravel's GPU Brandes
        on its replica.

    Returns
    -------
    BCResult
        ``centrality`` (float64, caller ids) and ``sources`` (int32 caller ids), as
        :func:`gravel.betweenness_centrality` gives them. ``stats``: ``sources``, ``parts``
        and the exchange's.

    Raises
    ------
    InvalidGraphError
        `k` or `sources` refused as :func:`gravel.betweenness_centrality` refuses them.
    VertexNotFoundError
        A source is not a vertex of `G`.
    InvalidArgumentError
        `k`, `seed` or `sources` with a graph already partitioned; else as for
        :func:`gravel.distributed.bfs`.
    GraphTooLargeError
        On GPUs, a replica larger than a GPU's free memory.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.betweenness_centrality : The single-process centrality.

    Notes
    -----
    Each part runs ``len(sources) / parts`` sources of Brandes' O(m) per source on its replica:
    the whole graph is copied to every part (through the driver on the CPU path, over NCCL and
    then through each worker's host memory on GPUs), so it must fit in each worker's memory.
    Only the centrality's n sums cross between the parts after.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> G = gravel.generate.grid(1, 3)
    >>> gravel.distributed.betweenness_centrality(G, cluster="in-process").centrality.tolist()
    [0.0, 1.0, 0.0]
    """
    from ..algorithms.betweenness import BCResult
    from ..algorithms.betweenness.api import choose_sources

    if isinstance(G, PartitionedGraph) or not hasattr(G, "csc"):
        if k is not None or seed is not None or sources is not None:
            raise InvalidArgumentError(
                "k, seed and sources need a Graph; a partitioned graph runs every source"
            )
        chosen, k_scale = np.arange(G.n, dtype=np.int32), None
    else:
        chosen, k_scale = choose_sources(G, k, seed, sources)
    internal = chosen if G.order is None else G.order[chosen].astype(np.int32)
    _check_gather(G, cluster, gather)
    args = (internal, k_scale, bool(normalized))
    with _run(G, parts, cluster, gpus, gather, bc_program, *args) as (dg, out, stats, t):
        centrality = out.array(0, np.float64)
    return BCResult(
        "betweenness_centrality",
        _device(dg),
        t,
        1,
        f"distributed Brandes on replicas, {dg.nparts} parts",
        {"sources": int(chosen.size)} | _stats(dg, stats),
        centrality=to_caller(dg, centrality),
        sources=chosen,
    )
