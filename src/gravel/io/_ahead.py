"""Text read a piece ahead: a thread reads the next piece of a text from the file straight into a
buffer of its own while the caller parses the one before (on the GPU: the disk and the device at
work at once). Two buffers take turns; for CuPy they are pinned, which the device copies from at
the bus's speed."""

import queue
import threading

import numpy as np

#: how often a waiting reader looks whether the caller has stopped, seconds
_POLL_S = 0.1


def host_buffers(xp):
    """The allocator of the host buffers that `xp` copies from: ``size -> uint8 array``.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``.

    Returns
    -------
    callable
        NumPy's ``empty``, or CuPy's pinned ``empty_pinned``, whose failure (the host's pinned
        memory spent) raises :class:`~gravel.errors.PinnedMemoryError` naming the size.
    """
    if xp is np:
        return lambda size: np.empty(size, np.uint8)
    import cupy
    import cupyx

    from ..errors import PinnedMemoryError

    def pinned(size):
        try:
            return cupyx.empty_pinned(size, np.uint8)
        except cupy.cuda.runtime.CUDARuntimeError as e:
            raise PinnedMemoryError(
                f"pinning a {size:,}-byte buffer to read the text ahead failed ({e}): free host "
                "memory, or load the text with device='cpu'"
            ) from None

    return pinned


def read_ahead(chunks, empty):
    """The pieces of a text, each read straight into a buffer of `empty` by a thread that runs one
    piece ahead of the caller (no copy of the text on the way).

    Parameters
    ----------
    chunks : callable
        ``buffers -> iterator of numpy.ndarray of uint8``, as
        :meth:`gravel.io._files.Text.chunks` takes `buffers`: each piece is read into the buffer
        that ``buffers(size)`` returned last (a second call before the piece asks for a larger
        one: a line longer than the first). Run on the thread alone.
    empty : callable
        ``size -> uint8 array``, as :func:`host_buffers` returns.

    Yields
    ------
    numpy.ndarray of uint8
        Each piece, valid until the next is asked for.

    Raises
    ------
    Exception
        What `chunks` raised, once the pieces before it are yielded.
    """
    free, full, stop = queue.Queue(), queue.Queue(), threading.Event()
    for _ in range(2):
        free.put(np.empty(0, np.uint8))  # made at the size of the first piece it holds
    taken = [None]  # the buffer of the piece being read

    def buffers(size):
        if taken[0] is not None:  # a longer line than the buffer: a larger one in its place
            taken[0] = empty(size)
            return taken[0]
        while taken[0] is None:
            try:
                taken[0] = free.get(timeout=_POLL_S)
            except queue.Empty:
                if stop.is_set():
                    raise _Stopped from None
        if taken[0].shape[0] < size:
            taken[0] = empty(size)
        return taken[0]

    def reading():
        try:
            for piece in chunks(buffers):
                full.put((taken[0], piece))
                taken[0] = None
            full.put(None)
        except _Stopped:
            return
        except BaseException as e:  # raised on the caller's thread
            full.put(e)

    thread = threading.Thread(target=reading, daemon=True)
    thread.start()
    try:
        while (item := full.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            buf, piece = item
            yield piece
            free.put(buf)
    finally:
        stop.set()
        thread.join()


class _Stopped(Exception):
    """The caller stopped taking pieces: the reading thread ends."""
