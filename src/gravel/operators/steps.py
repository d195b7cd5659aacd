"""Multi-step advances: many advance steps in one cooperative launch, and a replay of recorded ones.

Beyond Gunrock: :func:`advance_steps` runs a run of advance steps with a grid-wide barrier between
them, every step's frontier kept in a :class:`~gravel.frontier.FrontierQueue`, so the thousands of
thin levels of road graphs and meshes cost one launch; :func:`advance_replay` walks recorded
frontiers again, in reverse if asked (Brandes' backward pass); :func:`advance_pull_steps` runs pull
steps, bitmap to bitmap, the same way. :func:`thin_frontier_limit` is the one rule by which
level-synchronous traversals hand their thin levels to it."""

import numpy as np

from ..backends.cuda import runtime
from ..frontier import Frontier
from .codegen import ADVANCE_OP, LONG_LIST, Lists, functor, pull_functor

#: threads per block of the multi-step kernels, and the blocks per SM their launch bounds guarantee
STEPS_BLOCK, STEPS_BLOCKS_PER_SM = 256, 4
#: blocks per SM for runs of thin frontiers: the grid-wide barrier costs less with fewer blocks
#: (docs/tuning.md)
THIN_BLOCKS_PER_SM = 1
_TEMPLATES = (STEPS_BLOCK, STEPS_BLOCKS_PER_SM)
#: blocks per SM of a pull-steps launch (its launch bounds): as many threads as an SM holds, a
#: pull's reads of the frontier bitmap being latency-bound
PULL_STEPS_BLOCKS_PER_SM = 8
#: most steps one pull-steps launch runs (room for their counts): a caller launches again past them
PULL_STEPS_MAX = 64


def steps_width(blocks_per_sm=STEPS_BLOCKS_PER_SM):
    """Threads of one multi-step launch: a step's frontier up to this size takes one chunk per
    block.

    Parameters
    ----------
    blocks_per_sm : int, default STEPS_BLOCKS_PER_SM
        Blocks of STEPS_BLOCK threads per SM.

    Returns
    -------
    int
        ``STEPS_BLOCK * blocks_per_sm`` times the device's SM count.
    """
    return STEPS_BLOCK * blocks_per_sm * runtime.props().sm_count


def thin_frontier_limit(graph):
    """The largest frontier a level-synchronous traversal (BFS, Brandes) runs in multi-step launches
    of THIN_BLOCKS_PER_SM.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its longest list is found once and kept with it.

    Returns
    -------
    int
        A launch's width (:func:`steps_width` of THIN_BLOCKS_PER_SM) on graphs whose every list
        fits one block (STEPS_BLOCK entries), else 0 (there, measured on kron, steps neither won
        nor lost for BFS and lost for BC: docs/tuning.md).
    """
    longest = graph.cached("max_out_degree", lambda: int(graph.out_degree.max()) if graph.n else 0)
    return steps_width(THIN_BLOCKS_PER_SM) if longest <= STEPS_BLOCK else 0


def _grid(blocks_per_sm):
    """Blocks of a multi-step launch: a cooperative launch must fit the device at once."""
    if not 1 <= blocks_per_sm <= STEPS_BLOCKS_PER_SM:
        raise ValueError(
            f"blocks_per_sm must lie in [1, {STEPS_BLOCKS_PER_SM}], not {blocks_per_sm}"
        )
    return blocks_per_sm * runtime.props().sm_count


def _long_lists(graph):
    """The multi-step kernels' arguments for the long lists a step sets aside (LONG_LIST entries or
    more, see advance/steps.cu): a buffer with room for every such list (kept with the graph), its
    room, the threshold and three zeroed counters."""
    import cupy

    cap = graph.nnz // LONG_LIST + 1
    buffer = graph.cached(("steps_long_lists", cap), lambda: cupy.empty(cap, dtype=cupy.int32))
    return buffer, np.int64(cap), np.int64(LONG_LIST), cupy.zeros(3, dtype=cupy.uint64)


def launch_steps(path, name, graph, op, run, params, preamble, grid):
    """Launch a multi-step advance kernel (STEPS_BLOCK threads a block, cooperative) of the advance
    functor `op`.

    Parameters
    ----------
    path, name : str
        The kernel's file (under kernels/) and its name; its template arguments are STEPS_BLOCK
        and STEPS_BLOCKS_PER_SM.
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its lists lead the arguments.
    op : str
        The functor, as for :func:`~gravel.operators.advance`.
    run : tuple
        The kernel's own arguments, after the lists; the long lists' buffer and counters
        (:func:`_long_lists`) and the user parameters follow them.
    params : dict of str to (cupy.ndarray or numpy.generic), or None
        User parameters, by name.
    preamble : str
        CUDA C++ source put before the kernel.
    grid : int
        Blocks (:func:`_grid`).

    Raises
    ------
    ValueError
        A parameter name that is not a C identifier.
    """
    source, extra = functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    k = runtime.kernel(path, name, templates=_TEMPLATES, prelude=source, cooperative=True)
    lists = Lists(graph.offsets, graph.indices, graph.weights).args()
    k(grid, STEPS_BLOCK, lists + run + _long_lists(graph) + extra)


def queue_run(queue, slots, limit, step_bound, statuses):
    """The leading arguments of a multi-step kernel over the queue's last segment.

    Parameters
    ----------
    queue : FrontierQueue
        Its last segment is the first step's input.
    slots : int
        The most segments the launch may append.
    limit, step_bound : int
        As for :func:`advance_steps`.
    statuses : int
        The entries of the kernel's status array.

    Returns
    -------
    run : tuple
        The queue, its room and last segment, the segments' bounds (bounds[s + 2]: the end of
        segment s), `slots`, `limit`, `step_bound`, three zeroed counters and the status.
    bounds, status : cupy.ndarray of int64
        Written by the kernel; see :func:`appended`.
    """
    import cupy

    bounds = cupy.empty(slots + 2, dtype=cupy.int64)
    status = cupy.zeros(statuses, dtype=cupy.int64)
    begin, end = queue.bounds[-2], queue.bounds[-1]
    run = (
        queue.buffer,
        np.int64(queue.capacity),
        np.int64(begin),
        np.int64(end),
        bounds,
        np.int32(slots),
        np.int64(limit),
        np.int64(step_bound),
        cupy.zeros(3, dtype=cupy.uint64),
        status,
    )
    return run, bounds, status


def appended(queue, bounds, status, what):
    """Read a multi-step launch's status back (one sync) and add its segments to the queue.

    Parameters
    ----------
    queue : FrontierQueue
    bounds, status : cupy.ndarray of int64
        From :func:`queue_run`: status[0] the segments appended, status[1] whether one overflowed.
    what : str
        Names the segment in the error.

    Returns
    -------
    list of int
        The status.

    Raises
    ------
    RuntimeError
        A segment overflowed the queue.
    """
    status = [int(x) for x in status.get()]  # sync: how far it got
    if status[1]:
        raise RuntimeError(f"{what} overflowed the queue of {queue.capacity}")
    queue.bounds += bounds[2 : status[0] + 2].get().tolist()
    return status


def advance_steps(
    graph,
    queue,
    op="true",
    *,
    params=None,
    limit=None,
    max_steps=None,
    step_bound=0,
    blocks_per_sm=STEPS_BLOCKS_PER_SM,
    preamble="",
):
    """Advance repeatedly in one cooperative launch: each step's output frontier is the next step's
    input, with a grid-wide barrier in between, so a run of thin levels costs one launch and one
    host round trip instead of one per level.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU.
    queue : FrontierQueue
        Supplies the input as its last segment and receives every step's output as a new
        segment.
    op : str, default "true"
        As for :func:`~gravel.operators.advance`; the functor also sees ``step`` (0, 1, ...
        within this call). A destination joins the output where it returns true.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name.
    limit : int, optional
        Stop after a step whose output holds more than this many items; default the launch's
        thread count (:func:`steps_width`).
    max_steps : int, optional
        Stop after this many steps; default no bound. Below 1: nothing runs.
    step_bound : int, default 0
        Stop when fewer than this many entries of the queue remain.
    blocks_per_sm : int, default STEPS_BLOCKS_PER_SM
        Sizes the launch, 1 to STEPS_BLOCKS_PER_SM: fewer blocks make the grid-wide barrier
        cheaper, more hide latency on large frontiers.
    preamble : str, default ""
        CUDA C++ source put before the kernel.

    Returns
    -------
    int
        The number of steps run (segments appended to `queue`); 0 where the input is empty.
        A run also stops after a step whose output is empty.

    Raises
    ------
    RuntimeError
        A step's output overflowed the queue.
    ValueError
        `blocks_per_sm` outside 1..STEPS_BLOCKS_PER_SM; a parameter name that is not a C
        identifier.
    """
    grid = _grid(blocks_per_sm)
    limit = steps_width(blocks_per_sm) if limit is None else int(limit)
    max_steps = (1 << 30) if max_steps is None else int(max_steps)
    if max_steps < 1 or not len(queue.last):
        return 0
    # the room bounds the steps that can append anything
    run, bounds, status = queue_run(queue, min(max_steps, queue.room + 1), limit, step_bound, 2)
    launch_steps("advance/steps.cu", "gravel_advance_steps", graph, op, run, params, preamble, grid)
    steps, _ = appended(queue, bounds, status, "advance_steps: a step's output")
    return steps


def advance_replay(
    graph,
    queue,
    op,
    *,
    first=0,
    last=None,
    reverse=False,
    params=None,
    blocks_per_sm=STEPS_BLOCKS_PER_SM,
    preamble="",
):
    """Advance over the queue's segments first..last-1 (in reverse order if asked), one after the
    other in one cooperative launch, with no output; the functor sees the segment's index as
    ``step``.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU.
    queue : FrontierQueue
        The recorded frontiers (an :func:`advance_steps` run's, say).
    op : str
        As for :func:`~gravel.operators.advance`, its result ignored: a visit that writes
        through the `params`.
    first : int, default 0
        The first segment.
    last : int, optional
        One past the last segment; default ``len(queue)``. Nothing runs where
        ``last <= first``.
    reverse : bool, default False
        Walk the segments from last - 1 down to first (Brandes' backward pass).
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name.
    blocks_per_sm : int, default STEPS_BLOCKS_PER_SM
        Sizes the launch, as for :func:`advance_steps`.
    preamble : str, default ""
        CUDA C++ source put before the kernel.

    Raises
    ------
    ValueError
        `blocks_per_sm` outside 1..STEPS_BLOCKS_PER_SM; a parameter name that is not a C
        identifier.
    """
    import cupy

    grid = _grid(blocks_per_sm)
    last = len(queue) if last is None else int(last)
    if last <= first:
        return
    bounds = cupy.asarray(np.asarray(queue.bounds, dtype=np.int64))
    run = (queue.buffer, bounds, np.int32(first), np.int32(last), np.int32(reverse))
    launch_steps(
        "advance/steps.cu", "gravel_advance_replay", graph, op, run, params, preamble, grid
    )


def check_steps(max_steps):
    """`max_steps` of a multi-step call as an int, at least 1.

    Parameters
    ----------
    max_steps : int
        The argument, converted by int().

    Returns
    -------
    int

    Raises
    ------
    ValueError
        A value below 1.
    """
    max_steps = int(max_steps)
    if max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, not {max_steps}")
    return max_steps


def launch_pull_steps(k, graph, run, max_steps, extra):
    """Launch the pull-steps kernel `k` (PULL_STEPS_BLOCKS_PER_SM blocks an SM) over the graph's
    in-lists.

    Parameters
    ----------
    k : kernel
        A cooperative pull-steps kernel (:func:`gravel.backends.cuda.runtime.kernel`).
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-lists lead the arguments.
    run : tuple
        The kernel's own arguments, after the lists; then come the step counters it rotates,
        `max_steps` and the steps' counts (common.cuh: gravel_step_counter).
    max_steps : int
        The most steps, at least 1.
    extra : tuple
        The functor's arguments, last.

    Returns
    -------
    list of int
        Each step's count (one sync).
    """
    import cupy

    counts = cupy.zeros(3, dtype=cupy.uint64)
    sizes = cupy.full(max_steps, -1, dtype=cupy.int64)
    k(
        PULL_STEPS_BLOCKS_PER_SM * runtime.props().sm_count,
        STEPS_BLOCK,
        Lists(*graph.csc()).args() + run + (counts, np.int32(max_steps), sizes) + extra,
    )
    return [int(x) for x in sizes.get() if x >= 0]  # sync: the steps' counts


def advance_pull_steps(
    graph,
    frontier,
    candidates=None,
    op="true",
    *,
    where=None,
    params=None,
    max_steps=PULL_STEPS_MAX,
    preamble="",
):
    """:func:`~gravel.operators.advance_pull` repeated in one cooperative launch, each step's bitmap
    output the next step's frontier, with a grid-wide barrier in between: a run of bottom-up levels
    costs one launch and one read-back, where a launch per level waits on the host's preparation of
    each. Stops after a step that finds no vertex, or after `max_steps` steps.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU; its in-edges are read.
    frontier : Frontier
        The first step's sources (made dense).
    candidates, op, where
        As for :func:`~gravel.operators.advance_pull`; the functor also sees ``step`` (0, 1,
        ... within this call).
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name.
    max_steps : int, default PULL_STEPS_MAX
        The most steps, at least 1.
    preamble : str, default ""
        CUDA C++ source put before the kernel.

    Returns
    -------
    counts : list of int
        Each step's count of vertices found (one read-back).
    last : Frontier
        The last step's output, a dense frontier of its count.

    Raises
    ------
    ValueError
        `max_steps` below 1; a parameter name that is not a C identifier.
    """
    import cupy

    max_steps = check_steps(max_steps)
    words = (graph.n + 31) // 32
    bits = cupy.zeros(3 * words, dtype=cupy.uint32)  # three bitmaps in rotation; the input first
    bits[:words] = frontier.to_dense().bitmap
    ids, count, all_, source, extra = pull_functor(candidates, graph.n, op, where, params, preamble)
    k = runtime.kernel(
        "advance/pull_steps.cu",
        "gravel_advance_pull_steps",
        templates=(STEPS_BLOCK, PULL_STEPS_BLOCKS_PER_SM),
        prelude=source,
        cooperative=True,
    )
    run = (ids, np.int32(all_), np.int64(count), bits, np.int64(words))
    made = launch_pull_steps(k, graph, run, max_steps, extra)
    last = len(made) % 3  # step s wrote bitmap (s + 1) % 3
    return made, Frontier(graph.n, bitmap=bits[last * words : (last + 1) * words], length=made[-1])
