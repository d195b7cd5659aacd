"""Work in shares over Python threads: share 0 on the calling thread, the others on a pool that
lives as long as the process (starting threads for each call cost about 0.4 ms on two cores, as
much as counting the bundled graph's triangles on one). The shares' functions call serial Numba
kernels compiled with ``nogil=True``, which run side by side: a kernel without ``parallel=True``
compiles in a fraction of a parallel one's time (docs/tuning.md, first run)."""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

_lock = threading.Lock()
_pool, _workers = None, 0


def run(share, shares):
    """Call ``share(t)`` for t in 0..shares-1, side by side; returns when all have returned, and
    raises a share's error if one raised."""
    global _pool, _workers
    with _lock:
        if shares - 1 > _workers:
            if _pool is not None:
                _pool.shutdown(wait=False)  # what it was given still runs
            _pool = ThreadPoolExecutor(shares - 1, thread_name_prefix="gravel")
            _workers = shares - 1
        others = [_pool.submit(share, t) for t in range(1, shares)]
    try:
        share(0)
    finally:
        for f in others:
            f.result()


def _forget_pool():
    # a forked child has none of the parent's threads
    global _pool, _workers
    _pool, _workers = None, 0


os.register_at_fork(after_in_child=_forget_pool)
