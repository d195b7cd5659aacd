"""Text read a piece ahead: a thread reads the next piece of a text into a buffer of its own while
the caller parses the one before (on the GPU: the disk and the device at work at once). Two
buffers take turns; for CuPy they are pinned, which the device copies from at the bus's speed."""

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


def read_ahead(pieces, empty):
    """The arrays of the iterator `pieces` (each valid only until the next, as
    :meth:`gravel.io._files.Text.chunks` yields them), each copied into a buffer of `empty` by a
    thread that runs one piece ahead of the caller.

    Parameters
    ----------
    pieces : iterator of numpy.ndarray of uint8
        Run on the thread alone from its first piece on.
    empty : callable
        ``size -> uint8 array``, as :func:`host_buffers` returns.

    Yields
    ------
    numpy.ndarray of uint8
        A copy of each piece, valid until the next is asked for.

    Raises
    ------
    Exception
        What `pieces` raised, once the pieces before it are yielded.
    """
    free, full, stop = queue.Queue(), queue.Queue(), threading.Event()
    for _ in range(2):
        free.put(np.empty(0, np.uint8))  # made at the size of the first piece it holds

    def reading():
        try:
            for piece in pieces:
                buf = None
                while buf is None:
                    try:
                        buf = free.get(timeout=_POLL_S)
                    except queue.Empty:
                        if stop.is_set():
                            return
                if buf.shape[0] < piece.shape[0]:
                    buf = empty(piece.shape[0])
                buf[: piece.shape[0]] = piece
                full.put((buf, piece.shape[0]))
            full.put(None)
        except BaseException as e:  # raised on the caller's thread
            full.put(e)

    thread = threading.Thread(target=reading, daemon=True)
    thread.start()
    try:
        while (item := full.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            buf, size = item
            yield buf[:size]
            free.put(buf)
    finally:
        stop.set()
        thread.join()
