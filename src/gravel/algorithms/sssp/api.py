"""The public function: checks, the bucket width, the device's path and the caller's ids."""

import numpy as np

from ...dispatch import (
    caller_id,
    check_source,
    choose_device,
    ids_to_caller,
    takes_graph,
    to_caller,
)
from ...transform import check_weights
from .cpu import _sssp_cpu
from .cuda import _sssp_cuda
from .delta import MAX_BUCKETS, check_delta, default_delta


@takes_graph
def sssp(G, source, *, delta=None, predecessors=True, device="auto"):
    """Shortest-path distances and a shortest-path tree from `source`.

    Parameters
    ----------
    G : Graph
        Weights must be non-negative and finite (zero is allowed); an unweighted graph has unit
        weights. Parallel arcs: the lightest counts.
    source : int or label
        Start vertex: an id, or on a graph with labels a label that is not an integer
        (``sssp(G, "a")``); an integer is always an id
        (:func:`gravel.dispatch.caller_id`). ``result.source`` is the id.
    delta : float, optional
        Bucket width, positive and finite, at least the largest weight / MAX_BUCKETS (2**20).
        Default: the mean edge weight times max(1/32, 1 / average degree) on the CPU and max(8,
        256 / average degree) on the GPU (24 / average degree on random graphs of average degree
        24 or more: no vertex of more than 8 times the average degree, few closed wedges), raised
        to that least width where the weights span a wider range; wider buckets mean fewer phases
        but more re-relaxations.
    predecessors : bool, default True
        Whether to return the shortest-path tree as well, as SciPy's ``return_predecessors``.
        On the GPU the tree is a pass over every arc after the distances are final (a quarter
        of a call on large random graphs); the CPU records it as it relaxes, at no cost. False
        leaves ``result.predecessor`` None.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. On the GPU, wide
        frontiers are pulled over every in-list; on large graphs whose distances stage (as
        PageRank's ranks: :func:`gravel.operators.plan_sweep`), the first call that pulls builds
        the staged layout of the in-arcs and their weights (in that call's time), kept with the
        graph for later calls.

    Returns
    -------
    SSSPResult
        ``distance[v]`` (float64 on the CPU, float32 on the GPU; ``inf`` where unreachable) and
        ``predecessor[v]`` (int32): the vertex before v on a shortest path, -1 for the source and
        unreachable vertices, as SciPy's ``return_predecessors`` (whose sentinel is -9999), or None
        where `predecessors` is False. Both are indexed by caller ids;
        :meth:`SSSPResult.path_to` walks the tree back.

    Raises
    ------
    InvalidWeightError
        A weight is negative, NaN or infinite (the message names the arc; see
        :func:`gravel.check_weights`), or `delta` is not a usable width; on the GPU, a path is
        longer than float32's range (about 3.4e38): use ``device="cpu"``.
    VertexNotFoundError
        `source` is not a vertex of G.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    scipy.sparse.csgraph.dijkstra, networkx.single_source_dijkstra

    Notes
    -----
    Delta-stepping does O(m + n) work per phase and one phase per non-empty bucket (far fewer on
    graphs with wide weight ranges); on the GPU the predecessors, where asked, are one O(n + m)
    pass. Extra memory on the CPU: 35 bytes a vertex (20 more while buckets are compacted), 32
    bytes per arc of a batch (BATCH_ARCS; 24 with whole weights), 56 per bucket (largest weight /
    delta buckets) and, in parallel, 8 per bucket and chunk of a batch (4 chunks a thread) for its
    tally, and at most 32 MiB more for the runs its chunks are cut into. With several shortest
    paths to a vertex, any one may be returned.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
    >>> r = gravel.sssp(G, 0, device="cpu")
    >>> r.distance.tolist()
    [0.0, 1.0, 2.0]
    >>> r.predecessor.tolist()
    [-1, 0, 1]
    """
    source = caller_id(G, source)  # a label names its vertex
    s = check_source(G, source)
    check_weights(G, name="sssp")
    # unit weights as a zero-stride view: no array of m ones
    weights = G.weights if G.weighted else np.broadcast_to(np.float32(1), G.nnz)
    dev = choose_device(device, IMPLEMENTATIONS, "sssp")
    heaviest = G.weight_stats[1]
    if delta is None:
        delta = max(default_delta(G, dev), heaviest / MAX_BUCKETS)
    else:
        check_delta(delta, heaviest)
    res = IMPLEMENTATIONS[dev](G, s, weights, float(delta), bool(predecessors))
    res.distance = to_caller(G, res.distance)
    if predecessors:
        res.predecessor = to_caller(G, ids_to_caller(G, res.predecessor))
    else:
        res.predecessor = None
    res.source = int(source)
    return res


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _sssp_cpu, "cuda": _sssp_cuda}
