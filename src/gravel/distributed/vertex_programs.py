"""gravel's vertex programs (:class:`gravel.programs.Program`) over the parts of a distributed
graph: GraphMat's generalized SpMV in bulk-synchronous rounds, on CPU workers' or GPUs' parts.

Each round every part sends the messages of its active vertices (every vertex's where all send),
all-gathers the senders' ids and messages with the parts' active counts, pulls them over its own
vertices' lists (the in-lists for messages along out-edges, the out-lists for messages along
in-edges, both for both), and applies its vertices' totals. The rounds stop together, once no
vertex of any part is active or after `max_iter`: every part sees the same gathered counts. A
part's kernels are the single machine's (:func:`gravel.programs.cpu.kernels`), over arrays of
every vertex of which it reads and writes its own rows: the messages arrive for the whole graph,
so a part holds O(n) values besides its lists. On a GPU (:class:`~.device_part.DevicePart`) the
part's engine is the single GPU's (:meth:`gravel.programs.cuda.CudaEngine.of_part`, gravel's
operators) over the part's own vertices and ghosts: of the gathered messages (every sender's) it
keeps its ghosts', the expressions see global ids, and its vertex arrays cover its own vertices
and ghosts only.
"""

import operator
import time

import numpy as np

from ..errors import InvalidArgumentError
from ..programs.expressions import ProgramError
from ..programs.program import Program
from ..programs.run import ProgramResult, Step, bind_params, initial_state
from .algorithms import _device, _run
from .device_part import DevicePart
from .exchange import allgather


def run_program(
    G, program, *, max_iter=100, init=None, params=None, parts=2, cluster=None, gpus=None
):
    """Run the vertex `program` over `parts` parts of `G` on CPU workers or over GPUs, as
    :func:`gravel.programs.run` runs it on one machine (every iteration a pull).

    Parameters
    ----------
    G : Graph, PartitionedGraph, DistributedGraph or GPUGraph
        Not reordered: expressions see vertex ids (``v``) as the caller's. A Graph is partitioned
        where `cluster` and `gpus` say, as for :func:`gravel.distributed.bfs`.
    program : Program
        Whose ``process`` does not call ``common`` (a part holds its own vertices' lists only).
    max_iter : int, default 100
        The most iterations to run.
    init : array, structured array or dict of arrays, optional
        The starting state, as :func:`gravel.programs.run` takes it.
    params : dict, optional
        Values of the program's parameters, over their defaults.
    parts : int, default 2
        Parts (and CPU workers of a cluster started for the call).
    cluster : Cluster, GPUCluster, distributed.Client, str or "in-process", optional
        Where the parts run, as for :func:`gravel.distributed.bfs`.
    gpus : int or sequence of int, optional
        Run on a GPUCluster of these GPUs started for the call (one part each), as for
        :func:`gravel.distributed.bfs`.

    Returns
    -------
    ProgramResult
        ``state`` (the single machine's; on GPUs, to the rounding of sums in another order),
        ``iterations``, ``converged``, and ``steps``: each iteration's senders (as
        :func:`gravel.programs.run` counts them), its direction ("pull") and its seconds on part
        0 (the exchange included, compiling not); ``stats``: ``parts`` and the exchange's.

    Raises
    ------
    ProgramError
        `program` is not a Program or calls ``common``; `params` or `init` do not fit it.
    InvalidArgumentError
        `max_iter` is not an integer at least 0; `G` is reordered.
    VertexNotFoundError
        A vertex parameter is not a vertex of `G`.
    WorkerLostError
        A worker holding a part left the cluster during the run.

    See Also
    --------
    gravel.programs.run : The single-machine run, on the CPU, the GPU or both.

    Examples
    --------
    >>> import gravel, gravel.distributed
    >>> from gravel import programs
    >>> G = gravel.generate.grid(1, 5)
    >>> r = gravel.distributed.run_program(
    ...     G, programs.bfs(), params={"source": 0}, cluster="in-process")
    >>> r.state.tolist(), r.converged
    ([0, 1, 2, 3, 4], True)
    """
    if not isinstance(program, Program):
        raise ProgramError(f"program must be a gravel.programs.Program, not {type(program)}")
    if program.process_uses("common"):
        raise ProgramError(
            "process calls common(), which reads other vertices' lists: a part holds its own "
            "vertices' lists only; run it with gravel.programs.run"
        )
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise InvalidArgumentError(f"max_iter must be an integer >= 0, not {max_iter!r}")
    if getattr(G, "order", None) is not None:
        raise InvalidArgumentError("programs run on graphs that are not reordered (G.order)")
    values = bind_params(G, program, params)
    state = initial_state(G, program, init)
    args = (program, values, state, int(max_iter))
    with _run(G, parts, cluster, gpus, True, vertex_program, *args) as (dg, out, stats, t):
        fields = [out.array(i, f.dtype) for i, f in enumerate(program.state)]
        iterations, converged, times, counts = out.each(operator.itemgetter(slice(-4, None)))[0]
    result = fields[0]
    if program.state_dtype.names is not None:
        result = np.empty(dg.n, program.state_dtype)
        for f, column in zip(program.state, fields, strict=True):
            result[f.key] = column
    # as gravel.programs.run counts them: the senders (every vertex, where all send)
    senders = [dg.n if program.senders == "all" else int(c) for c in counts]
    steps = [Step(c, "pull", s) for c, s in zip(senders, times, strict=True)]
    return ProgramResult(
        "program",
        _device(dg),
        t,
        iterations,
        f"distributed pull, {dg.nparts} parts",
        {"parts": dg.nparts} | stats.as_dict(),
        state=result,
        steps=steps,
        converged=converged,
    )


def vertex_program(part, program, values, init, max_iter):
    """The rounds of `program` on `part` (see the module's description).

    Parameters
    ----------
    part : Part or DevicePart
        A part in host memory, or on a GPU.
    program : Program
    values : dict
        The bound parameter values.
    init : list of numpy.ndarray or None
        The caller's starting state, every vertex's; None: the program's init.
    max_iter : int

    Yields
    ------
    Collective
        Each round, and once more at the end, an allgather of the part's senders, their messages
        and its active count.

    Returns
    -------
    tuple
        The part's state rows (an array per field), then the iterations, whether no vertex was
        left active, and each iteration's seconds and active count (the same on every part but
        the seconds).
    """
    if isinstance(part, DevicePart):
        return (yield from _device_rounds(part, program, values, init, max_iter))
    from ..programs.cpu import kernels

    n, lo, hi = part.n, part.lo, part.hi
    k, params = kernels(program), tuple(values.values())
    odeg, ideg = np.zeros(n, np.int32), np.zeros(n, np.int32)
    odeg[lo:hi], ideg[lo:hi] = np.diff(part.out_offsets), np.diff(part.in_offsets)
    st = [np.zeros(n, f.dtype) for f in program.state]
    ms = [np.zeros(n, f.dtype) for f in program.message]
    tt = [np.zeros(n, f.dtype) for f in program.message]
    received, active = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    everyone = np.ones(n, np.bool_) if program.senders == "all" else None
    sending = everyone if everyone is not None else np.zeros(n, np.bool_)
    common = (np.zeros(1, np.int64), np.zeros(1, np.int32))  # common(): refused above
    own = np.arange(lo, hi, dtype=np.int32)
    k["init"](n, 0, odeg, ideg, *params, *st)
    for mine, given in zip(st, init or (), strict=False):
        mine[lo:hi] = given[lo:hi]
    k["start"](n, 0, odeg, ideg, *params, *st, active)
    ways = _pull_lists(part, program.direction)
    # each kernel compiled (or loaded) now, on empty work, so that no round's seconds hold it
    k["send"](own[:0], n, 0, odeg, ideg, *params, *st, *ms)
    for offsets, sources, weights, weighted in ways:
        k["pull"](*common, offsets, sources, weights, weighted, sending, lo, lo, *params,
                  *st, *ms, *tt, received)  # fmt: skip
    k["apply"](own[:0], n, 0, odeg, ideg, *params, *st, *tt, received, active)
    it, times, counts = 0, [], []
    clock = time.perf_counter()
    while True:
        actives = own[active[lo:hi]]
        senders = own if everyone is not None else actives
        if it < max_iter:  # (a round that turns out the last sends for nothing)
            k["send"](senders, n, it, odeg, ideg, *params, *st, *ms)
        else:
            senders = own[:0]  # the last round: only the counts matter
        ids, *values_, total = yield allgather(
            (senders, *(m[senders] for m in ms), np.array([actives.size], np.int64))
        )
        total = int(total.sum())
        if it:
            times.append(time.perf_counter() - clock)
            clock = time.perf_counter()
        if not total or it == max_iter:
            return (*(s[lo:hi] for s in st), it, not total, times, counts)
        counts.append(total)
        for mine, given in zip(ms, values_, strict=True):
            mine[ids] = given
        if everyone is None:
            sending[:] = False
            sending[ids] = True
        for offsets, sources, weights, weighted in ways:
            k["pull"](*common, offsets, sources, weights, weighted, sending, lo, hi, *params,
                      *st, *ms, *tt, received)  # fmt: skip
        k["apply"](own, n, it, odeg, ideg, *params, *st, *tt, received, active)
        it += 1


def _device_rounds(part, program, values, init, max_iter):
    """:func:`vertex_program` on a GPU: the single GPU's engine over the part's own vertices and
    ghosts, driven phase by phase; each round's gathered messages written to its ghosts. A
    round's seconds leave out the kernels compiled in it (NVRTC's, at their first launch)."""
    import cupy

    from ..compiling import compile_clock
    from ..programs.cuda import CudaEngine

    size, lo = part.size, part.lo
    engine = CudaEngine.of_part(part.graph, part.ids, size, part.n, program, values)
    engine.init(None if init is None else [given[lo : part.hi] for given in init])
    own = cupy.arange(size, dtype=cupy.int32)
    it, times, counts, compiled, found = 0, [], [], 0.0, None
    with compile_clock() as compiling:
        clock = time.perf_counter()
        while True:
            count = engine.actives().count
            if it < max_iter:  # (a round that turns out the last sends for nothing)
                engine.send(it)
                senders = own if program.senders == "all" else own[engine.active[:size] != 0]
            else:
                senders = own[:0]  # the last round: only the counts matter
            ids, *messages, total = yield allgather(
                (senders + lo, *(m[senders] for m in engine.ms), cupy.asarray([count], cupy.int64))
            )
            total = int(total.sum())
            if it:
                now, spent = time.perf_counter(), compiling()
                times.append(now - clock - (spent - compiled))
                clock, compiled = now, spent
            if not total or it == max_iter:
                return (*(s[:size] for s in engine.st), it, not total, times, counts)
            counts.append(total)
            # the ghosts among the senders: their messages, and the flags a pull masks senders
            # by; where every vertex sends, every round gathers the same ids: found once
            if found is None or program.senders != "all":
                local = part.local_ids(ids)
                hit = local >= size
                found = hit, local[hit]
            hit, ghost = found
            engine.active[size:] = 0
            engine.active[ghost] = 1
            for mine, given in zip(engine.ms, messages, strict=True):
                mine[ghost] = given[hit]
            engine.reduce(None, "pull")
            engine.apply(it)
            it += 1


def _pull_lists(part, direction):
    """(offsets over every vertex, ids, weights, weighted) of each set of lists a pull over the
    part's rows reads: messages along out-edges arrive over the in-lists, along in-edges over
    the out-lists; an undirected graph's are one set."""
    inn = (part.in_offsets, part.in_sources, part.in_weights)
    out = (part.out_offsets, part.out_targets, part.out_weights)
    ways = {"out": [inn], "in": [out], "both": [inn, out]}[direction][: 2 if part.directed else 1]
    pulled = []
    for offsets, ids, weights in ways:
        every = np.zeros(part.n + 1, np.int64)  # read at the part's rows only
        every[part.lo : part.hi + 1] = offsets
        w = (np.ones(1, np.float32), False) if weights is None else (weights, True)
        pulled.append((every, ids, *w))
    return pulled
