"""Delta-stepping's buckets on the device: a near frontier advanced in multi-step launches, and a
far pile from which the next bucket is taken in the same launch.

Beyond Gunrock, whose near-far SSSP returns to the host at every bucket: :class:`Buckets` holds
the split and the far pile on the GPU; :func:`advance_buckets` relaxes the near frontier step after
step and, when it empties, moves the split past the pile's lowest key (by delta at least) and sends
the pile's vertices below it to the near frontier, all inside one cooperative launch. A road graph's
hundreds of buckets then cost no host round trip each, so narrow buckets (fewer relaxations of a
vertex) pay on the GPU too."""

import numpy as np

from .steps import STEPS_BLOCKS_PER_SM, _grid, appended, launch_steps, queue_run, steps_width

#: device source a functor's preamble takes in to push a vertex onto the far pile: the pile's
#: length counts every push, its ids only the first `far_cap`; returns false when the pile is full
#: (the caller then keeps the vertex in the near frontier)
PILE_PUSH = """
__device__ bool gravel_pile_push(int* far, unsigned long long* far_len, long long far_cap, int v) {
    unsigned long long k = atomicAdd(far_len, 1ULL);
    if (k >= (unsigned long long)far_cap) return false;
    far[k] = v;
    return true;
}
"""

#: most segments one launch appends (room for their bounds): a caller launches again past them
MAX_SEGMENTS = 1 << 16


class Buckets:
    """The state of delta-stepping's buckets on the GPU: the split below which a relaxed vertex
    joins the near frontier, and the far pile of those at or above it.

    A functor relaxing an arc compares its key with ``split[0]``; at or above it, it pushes the
    vertex with ``gravel_pile_push(far, far_len, far_cap, v)`` (:data:`PILE_PUSH`), below it (or
    where the pile is full) it returns true. :meth:`params` names these arrays.

    Parameters
    ----------
    keys : cupy.ndarray of float32
        Each vertex's key (its tentative distance), at least 0; read when a bucket changes.
    delta : float
        The bucket width: the first split, and the least step of the split.
    capacity : int, optional
        The far pile's room; default the number of keys (a bucket change stores each vertex
        once).

    Attributes
    ----------
    keys : cupy.ndarray of float32
    delta : float
    split : cupy.ndarray of float32
        One element: the current split, as the functor reads it.
    at : cupy.ndarray of float64
        One element: the split as the sum of its widths (float32 rounds each step's).
    pile : cupy.ndarray of int32
        The far pile: its first ``min(length, capacity)`` entries.
    length : cupy.ndarray of uint64
        One element: the pushes since the last bucket change, kept vertices included.
    done : bool
        Set by :func:`advance_buckets` once the near frontier and the pile are both empty.

    Raises
    ------
    ValueError
        `delta` is not positive and finite.
    """

    def __init__(self, keys, delta, capacity=None):
        import cupy

        if not (np.isfinite(delta) and delta > 0):
            raise ValueError(f"delta must be positive and finite, not {delta}")
        capacity = max(int(keys.size if capacity is None else capacity), 1)
        self.keys, self.delta, self.done = keys, float(delta), False
        self.at = cupy.full(1, self.delta, cupy.float64)  # the split as the sum of widths
        with np.errstate(over="ignore"):
            self.split = cupy.full(1, np.float32(self.delta), cupy.float32)
        self.pile = cupy.empty(capacity, cupy.int32)
        self.spare = cupy.empty(capacity, cupy.int32)
        self.length = cupy.zeros(1, cupy.uint64)
        self.scratch = cupy.asarray(np.array([np.iinfo(np.uint64).max, 0], np.uint64))

    @property
    def capacity(self):
        """The far pile's room."""
        return self.pile.size

    def params(self):
        """The functor's view of the buckets.

        Returns
        -------
        dict
            ``split``, ``far``, ``far_len`` and ``far_cap``, as the functor's parameters.
        """
        return {
            "split": self.split,
            "far": self.pile,
            "far_len": self.length,
            "far_cap": np.int64(self.capacity),
        }

    def run(self):
        """The kernel's arguments for the buckets, in its order (advance/buckets.cu).

        Returns
        -------
        tuple
            The keys, the split (double and float), delta, the pile, its length and room, the
            spare pile and the scratch counters.
        """
        return (
            self.keys,
            self.at,
            self.split,
            np.float64(self.delta),
            self.pile,
            self.length,
            np.int64(self.capacity),
            self.spare,
            self.scratch,
        )


def advance_buckets(
    graph,
    queue,
    op,
    buckets,
    *,
    stamp,
    tag,
    params=None,
    limit=None,
    max_steps=None,
    step_bound=0,
    blocks_per_sm=STEPS_BLOCKS_PER_SM,
    preamble="",
):
    """Relax the near frontier in multi-step launches and take each next bucket from the far pile
    on the device, until both are empty or a frontier grows wide: delta-stepping in one launch.

    Each step and each bucket change appends a segment to `queue` (an empty one where a step
    output nothing); the functor sees the segment's index as ``step``. It must stamp what it
    outputs (``stamp[v] = tag + step``, so that a step outputs a vertex once): a bucket change
    stamps the vertices it moves or keeps in the same way.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU.
    queue : FrontierQueue
        Supplies the near frontier as its last segment (may be empty: a bucket change comes
        first) and receives every segment.
    op : str
        The relaxation, as for :func:`~gravel.operators.advance`, with the buckets' parameters
        (:meth:`Buckets.params`) at hand.
    buckets : Buckets
        The split and the far pile; `buckets.done` is set once nothing is left.
    stamp : cupy.ndarray of uint32
        One entry per vertex: the tag of the last segment it joined.
    tag : int
        The stamp of this launch's segment 0 (segment s: tag + s, modulo 2^32).
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        User parameters, by name; the buckets' are added.
    limit : int, optional
        Stop after a segment of more than this many items; default the launch's thread count.
    max_steps : int, optional
        Stop before advance step max_steps + 1 (bucket changes are not counted): 0 runs at most
        one bucket change, where the near frontier is empty. Default no bound.
    step_bound : int, default 0
        Stop when fewer than this many entries of the queue remain.
    blocks_per_sm : int, default STEPS_BLOCKS_PER_SM
        Sizes the launch, as for :func:`~gravel.operators.advance_steps`.
    preamble : str, default ""
        CUDA C++ source put before the kernel: :data:`PILE_PUSH` and the functor's helpers.

    Returns
    -------
    int
        The segments appended.

    Raises
    ------
    RuntimeError
        A segment overflowed the queue.
    ValueError
        `blocks_per_sm` outside 1..STEPS_BLOCKS_PER_SM; a parameter name that is not a C
        identifier.
    """
    grid = _grid(blocks_per_sm)
    limit = steps_width(blocks_per_sm) if limit is None else int(limit)
    max_steps = (1 << 30) if max_steps is None else max(int(max_steps), 0)
    slots = min(MAX_SEGMENTS, queue.room + 1)
    run, bounds, status = queue_run(queue, slots, limit, step_bound, 3)
    run += (
        np.int32(min(max_steps, 1 << 30)),
        *buckets.run(),
        stamp,
        np.uint32(int(tag) & 0xFFFFFFFF),
    )
    params = (params or {}) | buckets.params()
    kernel = ("advance/buckets.cu", "gravel_advance_buckets")
    launch_steps(*kernel, graph, op, run, params, preamble, grid)
    segments, _, done = appended(queue, bounds, status, "advance_buckets: a segment")
    buckets.done = bool(done)
    return segments
