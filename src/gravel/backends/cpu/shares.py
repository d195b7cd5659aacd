"""Work in shares over Python threads, on a pool that lives as long as the process (a pool
started per call costs more than counting the bundled graph's triangles: docs/tuning.md, CPU
kernels). The shares call serial Numba kernels compiled with ``nogil=True``, which run side by
side; a kernel without ``parallel=True`` compiles in a fraction of a parallel one's time
(docs/tuning.md, first run).

The calling thread only waits, so that Ctrl-C reaches it at once: it then raises the shares' stop
flag, a one-byte array every kernel reads between its units of work (a source, a row), and raises
KeyboardInterrupt once they have returned.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

#: seconds between the calling thread's looks at its shares (and at a pending Ctrl-C)
POLL_S = 0.05

_lock = threading.Lock()
_pool, _workers = None, 0


def run(share, count):
    """Call ``share(t, stop)`` for t in 0..count-1, side by side on the pool, and return once
    every call has returned.

    Parameters
    ----------
    share : callable
        ``share(t, stop)``: share t of the work. `stop` is a one-byte array that becomes nonzero
        when the caller is interrupted; the share's kernel returns early when it sees it. A share
        must not call `run` (its shares would queue behind the pool's busy threads).
    count : int
        How many shares; none runs when it is below 1.

    Raises
    ------
    KeyboardInterrupt
        The caller was interrupted (Ctrl-C) while the shares ran; they have returned.
    Exception
        Share 0's error if it raised, else the first other share's that did.
    """
    global _pool, _workers
    if count < 1:
        return
    stop = np.zeros(1, np.uint8)
    with _lock:
        if count > _workers:
            if _pool is not None:
                _pool.shutdown(wait=False)  # what it was given still runs
            _pool = ThreadPoolExecutor(count, thread_name_prefix="gravel")
            _workers = count
        futures = [_pool.submit(share, t, stop) for t in range(count)]
    try:
        while wait(futures, timeout=POLL_S).not_done:
            pass
    except BaseException:
        stop[0] = 1
        wait(futures)
        raise
    for f in futures:
        f.result()


def _forget_pool():
    # a forked child has none of the parent's threads, and its lock may be held by one of them
    global _lock, _pool, _workers
    _lock, _pool, _workers = threading.Lock(), None, 0


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_pool)
