"""Betweenness centrality with the sources spread over the parts, each part on a whole replica.

Brandes' algorithm needs every vertex's lists from every source, so the parts do not split the
graph's work: they split the sources. One allgather of the parts' out-lists gives every part (and
so every worker) a whole copy of the graph; each part runs the single-process kernel of its device
from its share of the sources (gravel's CPU kernel on a CPU worker, its GPU Brandes on a GPU's),
and one allreduce sums the partial centralities. The graph must fit in each worker's memory (and
each GPU's): there is no partitioned fallback.
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
    cupy.cuda.memory.OutOfMemoryError
        On GPUs, a replica larger than a GPU's free memory (the run fails on its worker).
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
