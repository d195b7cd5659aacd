"""Work in shares over Python threads: share 0 on the calling thread, the others on a pool that
lives as long as the process (a pool started per call costs more than counting the bundled
graph's triangles: docs/tuning.md, CPU kernels). The shares call serial Numba kernels compiled with
``nogil=True``, which run side by side; a kernel without ``parallel=True`` compiles in a fraction
of a parallel one's time (docs/tuning.md, first run)."""

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

_lock = threading.Lock()
_pool, _workers = None, 0


def run(share, count):
    """Call ``share(t)`` for t in 0..count-1, side by side, and return once every call has
    returned; then raise share 0's error if it raised, else the first other share's that did. A
    share must not call `run` (its shares would queue behind the pool's busy threads)."""
    global _pool, _workers
    if count < 1:
        return
    with _lock:
        if count - 1 > _workers:
            if _pool is not None:
                _pool.shutdown(wait=False)  # what it was given still runs
            _pool = ThreadPoolExecutor(count - 1, thread_name_prefix="gravel")
            _workers = count - 1
        others = [_pool.submit(share, t) for t in range(1, count)]
    try:
        share(0)
    finally:
        wait(others)
    for f in others:
        f.result()


def _forget_pool():
    # a forked child has none of the parent's threads, and its lock may be held by one of them
    global _lock, _pool, _workers
    _lock, _pool, _workers = threading.Lock(), None, 0


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_pool)
