"""Work in shares over Python threads, on a pool that lives as long as the process (a pool
started per call costs more than counting the bundled graph's triangles: docs/tuning.md, CPU
kernels). The shares call serial Numba kernels compiled with ``nogil=True``, which run side by
side; a kernel without ``parallel=True`` compiles in a fraction of a parallel one's time
(docs/tuning.md, first run).

The calling thread only waits, so that Ctrl-C reaches it at once: it then raises the shares' stop
flag, a one-byte array every kernel reads between its units of work (a source, a row), and raises
KeyboardInterrupt once they have returned.

The same holds for one long kernel: :func:`stoppable` runs ``kernel(*args, stop)`` alone on the
pool (a parallel one on a thread of its own, below). This is how any long compiled work in gravel
stays interruptible (docs/tuning.md, interruption): a Numba kernel on the calling thread keeps
Ctrl-C waiting until it returns, and may then surface it as a SystemError ("returned a result with
an exception set"). Such a kernel must be compiled with ``nogil=True`` (else the waiting caller
cannot take the interpreter back) and checks its flag between units of work small enough to end
within a tenth of a second on a large graph, e.g. every 2**16 vertices of a serial loop::

    @numba.njit(nogil=True, cache=True)
    def peel(..., stop):
        for i in range(n):
            if i & CHECK_MASK == 0 and stop[0]:
                return
            ...

    shares.stoppable(peel, ...)

Short kernels may stay on the calling thread, inside :func:`interruptible`, which turns such a
SystemError back into KeyboardInterrupt; every algorithm and generator runs inside it.

A kernel with parallel loops runs on a thread of its own, which ends with it, never on the pool
(with the caller's Numba thread count, which is a thread's own setting):
OpenMP gives each thread that starts a parallel loop a team of workers, kept as long as that
thread lives, and once a process holds more OpenMP threads than cores, every team's workers stop
spinning between parallel loops and sleep instead (libgomp's throttled spin), so that each later
parallel loop of the calling thread waits for a wake-up: a pool thread that had run one parallel
generator block made every later BFS level wait: a grid's BFS ran three times slower
(docs/tuning.md, OpenMP teams).
"""

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

import numpy as np

#: seconds between the calling thread's looks at its shares (and at a pending Ctrl-C)
POLL_S = 0.05

#: a serial loop looks at its stop flag when ``i & CHECK_MASK == 0`` (every 65,536 iterations)
CHECK_MASK = (1 << 16) - 1

_lock = threading.Lock()
_pool, _workers = None, 0
#: calls an interrupted caller left running (see call)
_abandoned = []
#: the thread of parallel_thread(), while its block runs
_own = None


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
    _run(share, count, alone=False)


def _run(share, count, alone):
    """:func:`run`; `alone`: the one share on a thread of its own (:func:`_submit`)."""
    if count < 1:
        return
    stop = np.zeros(1, np.uint8)
    futures, own = _submit([lambda t=t: share(t, stop) for t in range(count)], alone)
    try:
        while wait(futures, timeout=POLL_S).not_done:
            pass
    except BaseException:
        stop[0] = 1
        wait(futures)
        raise
    finally:
        _end(own)
    for f in futures:
        f.result()


def stoppable(kernel, *args):
    """Call ``kernel(*args, stop)`` on the pool (a parallel kernel on a thread of its own) and
    return its result; Ctrl-C while it runs raises its stop flag, waits for it to return (it looks
    at the flag between its units of work) and raises KeyboardInterrupt.

    Parameters
    ----------
    kernel : callable
        A Numba kernel compiled with ``nogil=True`` (or any callable that releases the GIL) whose
        last argument is the stop flag: a one-byte array, nonzero once the caller is interrupted;
        it then returns early, with whatever result, which the caller never sees.
    *args
        Its other arguments.

    Returns
    -------
    object
        What the kernel returned.

    Raises
    ------
    KeyboardInterrupt
        The caller was interrupted while the kernel ran; it has returned.
    Exception
        The kernel's own error.
    """
    out = []
    _run(lambda t, stop: out.append(kernel(*args, stop)), 1, alone=_parallel(kernel))
    return out[0]


def interrupted(error):
    """The Ctrl-C behind `error`: itself if a KeyboardInterrupt, else the one that caused it (a
    Numba kernel that called back into Python as the signal came returns a SystemError caused by
    it), else None.

    Parameters
    ----------
    error : BaseException
        The error, with its chain of causes and contexts.

    Returns
    -------
    KeyboardInterrupt or None
        The first KeyboardInterrupt (or subclass) of its chain, None where there is none.
    """
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


@contextmanager
def interruptible():
    """A context in which Ctrl-C surfaces as KeyboardInterrupt: never as the SystemError that a
    compiled kernel may return when the signal came while it called back into Python, nor lost
    where Python swallowed it (raised inside a callback, as llvmlite's in a compilation, Python
    prints "Exception ignored ..." and the work runs on, to fail later or to finish).

    Yields
    ------
    None

    Raises
    ------
    KeyboardInterrupt
        In place of an error of the block that :func:`interrupted` traces to Ctrl-C: that
        KeyboardInterrupt itself (a subclass stays what it is); and, on the main thread, in place
        of the block's error or at its end where a KeyboardInterrupt was swallowed in it.
    """
    hook = sys.unraisablehook
    # the outermost block of the main thread, where signals land (an inner block finds its hook
    # installed); a hook that sends a swallowed stop again itself (the command's: it ends the
    # work within a second) is left to do so
    watch = (
        threading.current_thread() is threading.main_thread()
        and not getattr(hook, "keeps", False)
        and not getattr(hook, "resends", False)
    )
    swallowed = None
    try:  # installed inside: a stop at any point leaves `hook` restored by the finally
        if watch:
            _swallowed.clear()
            sys.unraisablehook = _keep_interruption(hook)
        yield
    except SystemError as e:
        interruption = interrupted(e) or (_swallowed[-1] if watch and _swallowed else None)
        if interruption is None:
            raise
        raise interruption from None
    except Exception as e:
        if watch and _swallowed:
            raise _swallowed[-1] from e
        raise
    finally:
        if watch:
            sys.unraisablehook = hook
            swallowed = _swallowed[-1] if _swallowed else None
            _swallowed.clear()  # its traceback holds the frames of the work
    if swallowed is not None:
        raise swallowed


#: KeyboardInterrupts swallowed in the main thread's outermost interruptible() block
_swallowed = []


def _keep_interruption(hook):
    """An unraisable-exception hook that keeps a swallowed KeyboardInterrupt (for interruptible()
    to raise) and hands anything else to `hook`."""

    def keep(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _swallowed.append(unraisable.exc_value)
        else:
            hook(unraisable)

    keep.keeps = True  # marks the outermost block's hook for the blocks inside it
    return keep


@contextmanager
def parallel_thread():
    """Within the block, the parallel kernels given to :func:`call` run on one thread of their
    own, which ends with the block (its OpenMP team with it): a run of short calls (a generator's
    blocks) then starts one thread and one team, not one of each a call.

    A stop (Ctrl-C, or a SIGTERM raised as one) leaves the block at once, without waiting for
    the thread: the call it cut short runs on to its end there, as :func:`call` leaves it, and
    the pool's next work starts after it.

    Yields
    ------
    None
    """
    global _own
    own = ThreadPoolExecutor(1, thread_name_prefix="gravel-parallel")
    outer, _own = _own, own
    stopped = False
    try:
        yield
    except BaseException as e:
        stopped = interrupted(e) is not None
        raise
    finally:
        _own = outer
        own.shutdown(wait=not stopped, cancel_futures=stopped)


def _parallel(kernel):
    """Whether `kernel` is a Numba kernel compiled with parallel loops."""
    return bool(getattr(kernel, "targetoptions", {}).get("parallel"))


def _end(own):
    """Wait for the thread of `own` (an executor of one call, or None) to end, its OpenMP team
    with it, once its call has returned."""
    if own is not None:
        own.shutdown(wait=True)


def _submit(calls, alone=False):
    """Futures of `calls` (functions of no arguments) on the pool, grown to their number, once
    the calls an interrupted caller abandoned have returned (no two kernels at once), and the
    executor of a thread the caller ends (:func:`_end`) or None. `alone`: the one call on a
    thread of its own, which ends once the call has returned (a parallel kernel's, whose OpenMP
    team then ends with it), or on parallel_thread()'s."""
    global _pool, _workers
    with _lock:
        wait(_abandoned)
        _abandoned.clear()
        if alone:
            import numba  # a kernel's: loaded

            (run_alone,) = calls
            threads = numba.get_num_threads()  # the caller's: a fresh thread has the default

            def with_threads():
                numba.set_num_threads(threads)
                return run_alone()

            if _own is not None:  # within parallel_thread()
                return [_own.submit(with_threads)], None
            own = ThreadPoolExecutor(1, thread_name_prefix="gravel-parallel")
            future = own.submit(with_threads)
            own.shutdown(wait=False)  # its thread ends after the call, whoever waits for it
            return [future], own
        if len(calls) > _workers:
            if _pool is not None:
                _pool.shutdown(wait=False)  # what it was given still runs
            _pool = ThreadPoolExecutor(len(calls), thread_name_prefix="gravel")
            _workers = len(calls)
        return [_pool.submit(c) for c in calls], None


def call(kernel, *args):
    """Call ``kernel(*args)`` on the pool (a parallel kernel on a thread of its own) and return
    its result: for a kernel without a stop flag
    that returns within a fraction of a second (a generator's block of edges). Ctrl-C while it
    runs raises KeyboardInterrupt at once, never inside the kernel (where, calling back into
    Python, it became a SystemError or a crash); the kernel runs on to its end, and the pool's
    next work starts after it.

    Parameters
    ----------
    kernel : callable
        A Numba kernel compiled with ``nogil=True`` (or any callable that releases the GIL).
    *args
        Its arguments.

    Returns
    -------
    object
        What the kernel returned.

    Raises
    ------
    KeyboardInterrupt
        The caller was interrupted while the kernel ran.
    Exception
        The kernel's own error.
    """
    (future,), own = _submit([lambda: kernel(*args)], alone=_parallel(kernel))
    try:
        while wait([future], timeout=POLL_S).not_done:
            pass
    except BaseException:
        _abandoned.append(future)
        raise
    _end(own)
    return future.result()


def _forget_pool():
    # a forked child has none of the parent's threads, and its lock may be held by one of them
    global _lock, _pool, _workers, _abandoned, _own
    _lock, _pool, _workers, _abandoned, _own = threading.Lock(), None, 0, [], None


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_pool)
