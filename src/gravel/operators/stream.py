"""Streamed sweeps: the lists of a graph in host memory copied to the device in chunks by the copy
engines, double-buffered, instead of read by the kernels over the bus (issue 18, "sweeps over every
edge"). A chunk is a run of whole lists (vertices first..stop) of about STREAM_CHUNK_BYTES of ids;
while the kernels of one chunk run, the next one is copied into the other buffer. A chunk's lists
are a :class:`Lists` whose offsets are the graph's own: its ids and weights arrays are views that
start `begin` entries before the buffer, so that a kernel indexes them by the graph's positions and
reads only inside the chunk. The map of the placements beyond device memory (EMOGI), streamed sweeps
among them: :mod:`gravel.placement`."""

from typing import NamedTuple

import numpy as np

from .codegen import LONG_LIST, Lists

#: bytes of ids a chunk holds, at least (a list longer than that is a chunk of its own; tuned in
#: docs/tuning.md, "Streamed sweeps")
STREAM_CHUNK_BYTES = 1 << 26
#: cudaMemcpyAsync's kind that lets the runtime find out from the addresses
_COPY_DEFAULT = 4


class Chunk(NamedTuple):
    """Vertices ids[first:stop] of the sweep, with `lists` over the device buffer; `short` are the
    vertices whose lists have fewer than LONG_LIST entries, `long` the others (int32 device
    arrays)."""

    lists: Lists
    short: object
    long: object
    mean_degree: float


def chunk_bounds(offsets, nbytes, itemsize=4):
    """Vertex bounds [0, b1, ..., n] of chunks of whole lists: from each bound, the fewest lists
    that hold `nbytes` of entries (the last chunk may hold fewer).

    Parameters
    ----------
    offsets : numpy.ndarray of int64, shape (n + 1,)
        The lists' offsets, on the host.
    nbytes : int
        The bytes of entries a chunk holds at least (a longer list is a chunk of its own).
    itemsize : int, default 4
        Bytes an entry (an int32 id).

    Returns
    -------
    numpy.ndarray of int64
        The bounds, from 0 to n; chunk k holds the lists of vertices ``bounds[k]`` to
        ``bounds[k + 1] - 1``. Just [0] without vertices.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.operators.stream import chunk_bounds
    >>> chunk_bounds(np.array([0, 3, 4, 8, 8, 10]), 16).tolist()
    [0, 2, 3, 5]
    """
    n = offsets.size - 1
    per = max(nbytes // itemsize, 1)
    bounds = [0]
    while bounds[-1] < n:
        goal = offsets[bounds[-1]] + per
        bounds.append(min(int(np.searchsorted(offsets, goal, side="left")), n))
    return np.asarray(bounds, np.int64)


def _plan(graph, lists):
    """The chunks of the in-lists `lists` of `graph` (kept with it): a list of (begin, end of the
    entries, short vertex ids, long vertex ids, mean degree)."""
    import cupy

    def build():
        offsets = lists.offsets.get()
        bounds = chunk_bounds(offsets, STREAM_CHUNK_BYTES)
        chunks = []
        for first, stop in zip(bounds[:-1], bounds[1:]):
            ids = np.arange(first, stop, dtype=np.int32)
            degree = np.diff(offsets[first : stop + 1])
            long_ = degree >= LONG_LIST
            begin, end = int(offsets[first]), int(offsets[stop])
            mean = (end - begin) / max(stop - first, 1)
            chunks.append(
                (begin, end, cupy.asarray(ids[~long_]), cupy.asarray(ids[long_]), float(mean))
            )
        return chunks

    return graph.cached(("stream_chunks", STREAM_CHUNK_BYTES), build)


def _rebased(buffer, begin, size):
    """A view of `size` entries that starts `begin` entries before the device `buffer` (only its
    entries begin..begin + len(buffer) may be read)."""
    import cupy

    if buffer is None:
        return None
    shift = begin * buffer.itemsize
    memory = cupy.cuda.UnownedMemory(buffer.data.ptr - shift, size * buffer.itemsize, buffer)
    return cupy.ndarray((size,), buffer.dtype, cupy.cuda.MemoryPointer(memory, 0))


def streamed_lists(graph, lists):
    """Yield the :class:`Chunk` s of the host-resident in-lists `lists` of `graph` in order, each
    copied into device memory before the kernels that the caller launches on the current stream
    read it.

    Call the next chunk only after launching this one's kernels: the copy of a chunk waits for
    the kernels of the chunk two before it (their buffer), and overlaps those of the one before.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        A graph whose lists live in host memory (placement "host" or "tiered"); its chunk plan
        is made once and kept with it.
    lists : Lists
        Its in-lists: device offsets, and ids and weights that are mapped device views of host
        memory.

    Yields
    ------
    Chunk
        The next run of whole lists, in one of two device buffers used by turns: the chunk two
        after it reuses the buffer once the kernels launched before the next chunk was asked for
        have run.
    """
    import cupy

    rt = cupy.cuda.runtime
    chunks = _plan(graph, lists)
    room = max((end - begin for begin, end, *_ in chunks), default=0)
    arrays = [a for a in (lists.indices, lists.weights) if a is not None]
    buffers = [[cupy.empty(max(room, 1), a.dtype) for a in arrays] for _ in range(2)]
    copier = cupy.cuda.Stream(non_blocking=True)
    compute = cupy.cuda.get_current_stream()
    copied = [cupy.cuda.Event(disable_timing=True) for _ in range(2)]
    # the buffers come from the pool of the compute stream, which may still be reading that memory
    # as another array: the first copies wait for the work queued before them
    freed = [compute.record()] * 2
    for k, (begin, end, short, long_, mean) in enumerate(chunks):
        slot = k % 2
        copier.wait_event(freed[slot])
        for host, buffer in zip(arrays, buffers[slot]):
            size = (end - begin) * host.itemsize
            if size:
                src = host.data.ptr + begin * host.itemsize
                rt.memcpyAsync(buffer.data.ptr, src, size, _COPY_DEFAULT, copier.ptr)
        copied[slot].record(copier)
        compute.wait_event(copied[slot])
        views = [_rebased(b, begin, end) for b in buffers[slot]]
        weights = views[1] if lists.weights is not None else None
        yield Chunk(Lists(lists.offsets, views[0], weights), short, long_, mean)
        freed[slot] = compute.record()
    # the buffers go back to CuPy's pool of the compute stream, which waited for every copy
