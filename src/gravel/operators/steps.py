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
    block."""
    return STEPS_BLOCK * blocks_per_sm * runtime.props().sm_count


def thin_frontier_limit(graph):
    """The largest frontier a level-synchronous traversal (BFS, Brandes) runs in multi-step launches
    of THIN_BLOCKS_PER_SM: a launch's width, on graphs whose every list fits one block, else 0
    (there, measured on kron, steps neither won nor lost for BFS and lost for BC:
    docs/tuning.md)."""
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
    host round trip instead of one per level. `queue` (a :class:`FrontierQueue`) supplies the input
    as its last segment and receives every step's output as a new segment. The functor also sees
    ``step`` (0, 1, ... within this call); a destination joins the output where it returns true.

    Stops after a step whose output is empty or holds more than `limit` items (default: the launch's
    thread count), after `max_steps` steps, or when fewer than `step_bound` entries of the queue
    remain. `blocks_per_sm` (1 to STEPS_BLOCKS_PER_SM) sizes the launch: fewer blocks make the
    grid-wide barrier cheaper, more hide latency on large frontiers. Returns the number of steps
    run. Raises RuntimeError if an output overflowed the queue."""
    import cupy

    grid = _grid(blocks_per_sm)
    limit = steps_width(blocks_per_sm) if limit is None else int(limit)
    max_steps = (1 << 30) if max_steps is None else int(max_steps)
    if max_steps < 1 or not len(queue.last):
        return 0
    # bounds[s + 2] = end of step s's output; the room bounds the steps that can append anything
    slots = min(max_steps, queue.room + 1)
    bounds = cupy.empty(slots + 2, dtype=cupy.int64)
    status = cupy.zeros(2, dtype=cupy.int64)
    counts = cupy.zeros(3, dtype=cupy.uint64)
    source, extra = functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    k = runtime.kernel(
        "advance/steps.cu",
        "gravel_advance_steps",
        templates=_TEMPLATES,
        prelude=source,
        cooperative=True,
    )
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
        counts,
        status,
    )
    k(
        grid,
        STEPS_BLOCK,
        Lists(graph.offsets, graph.indices, graph.weights).args()
        + run
        + _long_lists(graph)
        + extra,
    )
    steps, overflow = (int(x) for x in status.get())  # sync: how far it got
    if overflow:
        raise RuntimeError(
            f"advance_steps: a step's output overflowed the queue of {queue.capacity}"
        )
    queue.bounds += bounds[2 : steps + 2].get().tolist()
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
    ``step``."""
    import cupy

    grid = _grid(blocks_per_sm)
    last = len(queue) if last is None else int(last)
    if last <= first:
        return
    bounds = cupy.asarray(np.asarray(queue.bounds, dtype=np.int64))
    source, extra = functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    k = runtime.kernel(
        "advance/steps.cu",
        "gravel_advance_replay",
        templates=_TEMPLATES,
        prelude=source,
        cooperative=True,
    )
    run = (queue.buffer, bounds, np.int32(first), np.int32(last), np.int32(reverse))
    k(
        grid,
        STEPS_BLOCK,
        Lists(graph.offsets, graph.indices, graph.weights).args()
        + run
        + _long_lists(graph)
        + extra,
    )


def check_steps(max_steps):
    """`max_steps` of a multi-step call as an int, at least 1."""
    max_steps = int(max_steps)
    if max_steps < 1:
        raise ValueError(f"max_steps must be at least 1, not {max_steps}")
    return max_steps


def launch_pull_steps(k, graph, run, max_steps, extra):
    """Launch the pull-steps kernel `k` (PULL_STEPS_BLOCKS_PER_SM blocks an SM) over the graph's
    in-lists with its `run` arguments, then the step counters it rotates, `max_steps` and the
    steps' counts (common.cuh: gravel_step_counter), then the functor's `extra`. Returns each step's
    count, as a list (one sync)."""
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
    each. `candidates`, `op` and `where` are advance_pull's; the functor also sees ``step`` (0, 1,
    ... within this call). Stops after a step that finds no vertex, or after `max_steps` steps.

    Returns (each step's count, as a list; the last step's output, a bitmap Frontier)."""
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
