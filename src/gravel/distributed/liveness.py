"""Lost workers: every wait on the workers is bounded by a check, each ``POLL_S`` seconds, that
the workers holding the run's parts are still there.

A part's state lives in one worker process; a worker that ends takes it along, and Dask's nanny
starts a fresh worker (at a new address, with nothing of the run) in its place. Dask does not end
a wait on a task pinned to a worker that is gone: the task waits for that worker forever, and a
gather whose data went with the worker reschedules the task that made it, which waits the same
way. So the driver never waits on Dask alone: each wait runs in a helper thread while the calling
thread asks, every ``POLL_S`` seconds, whether a worker was lost, and raises
:class:`WorkerLostError` as soon as one was.
"""

import concurrent.futures
import os
import threading
import time

from ..errors import GravelError, MissingDependencyError

#: seconds between checks that the workers holding a run's parts are alive
POLL_S = 1.0


def require_distributed(what):
    """The ``distributed`` module (Dask's), which the clusters run on.

    Parameters
    ----------
    what : str
        The feature that needs it, named in the error.

    Returns
    -------
    module
        ``distributed``.

    Raises
    ------
    MissingDependencyError
        Dask's distributed is not installed; the message names the ``pip install`` that adds it.
    """
    try:
        import distributed
    except ImportError:
        raise MissingDependencyError(
            f"{what} needs Dask's distributed: pip install 'gravel[distributed]'"
        ) from None
    return distributed


class WorkerLostError(GravelError, RuntimeError):
    """A worker holding a part left the cluster: the run is abandoned.

    The message names the worker (its address, and its GPU on the GPU path) and the part or
    parts it held. The bound: it is raised within ``POLL_S`` (1 s) of Dask's scheduler dropping
    the worker, which it does as soon as the worker's connection closes (a process that ends,
    however it ends; gravel also checks the process ids of the workers it started) or, for a
    worker that goes silent with its connection open (a machine gone), after Dask's
    ``distributed.scheduler.worker-ttl``. A cluster started for the call is closed first, its
    worker processes ended (Dask's close, then up to ``cluster.WORKER_EXIT_S`` for processes
    slow to end). From a SIGKILL to this error, the close included: 1 to 6 s on a 2-core CPU
    shared with other work.
    """


def start_local(local):
    """``local()``, a local cluster's start, with a worker process that ended while it started
    (Dask: "Nanny failed to start") raised as a :class:`WorkerLostError`.

    Parameters
    ----------
    local : callable
        Starts the cluster (``distributed.LocalCluster(...)``, say), and closes what it started
        where it fails, as Dask's do.

    Returns
    -------
    object
        ``local()``'s cluster.

    Raises
    ------
    WorkerLostError
        A worker process failed to start or ended before it joined: no part was placed yet.
    Exception
        ``local()``'s other errors.
    """
    try:
        return local()
    except RuntimeError as e:
        if "failed to start" not in str(e):
            raise
        why = f"{e} {e.__cause__}" if e.__cause__ is not None else str(e)
        raise WorkerLostError(
            f"a worker ended while the cluster started, before it held a part (Dask: {why}); "
            "the run is abandoned"
        ) from e


def worker_pids(client):
    """The process id of each worker, asked of a cluster started here once it has its workers.

    Parameters
    ----------
    client : distributed.Client

    Returns
    -------
    dict
        Process ids by worker address.

    Raises
    ------
    WorkerLostError
        A worker ended under the question (its connection closed): no part was placed yet. One
        that the scheduler dropped before it is not asked; Dask's nanny starts another.
    """
    try:
        return client.run(os.getpid)
    except OSError as e:
        raise WorkerLostError(
            f"a worker ended while the cluster started, before it held a part ({e}); "
            "the run is abandoned"
        ) from e


def alive(client):
    """The addresses of the cluster's workers, sorted.

    Parameters
    ----------
    client : distributed.Client

    Returns
    -------
    list of str

    Notes
    -----
    Asked of the scheduler each time: ``client.scheduler_info()`` returns the client's cached
    copy, which the client's periodic refresh rewrites without the workers, and which a failed
    refresh leaves as it was, so that live workers could read as lost.
    """
    return sorted(client.sync(client.scheduler.identity, n_workers=-1)["workers"])


def held(workers, address):
    """The parts that `workers` (part k's worker at k) put on `address`, as a message says them.

    Parameters
    ----------
    workers : list of str
    address : str

    Returns
    -------
    str
        "part 1", "parts 1 and 3", ...

    Examples
    --------
    >>> held(["a", "b", "a"], "a"), held(["a", "b"], "b")
    ('parts 0 and 2', 'part 1')
    """
    parts = [str(k) for k, w in enumerate(workers) if w == address]
    if len(parts) == 1:
        return f"part {parts[0]}"
    return f"parts {', '.join(parts[:-1])} and {parts[-1]}"


def lost_error(describe, workers, address, when):
    """The error for the loss of the worker at `address`.

    Parameters
    ----------
    describe : callable
        ``describe(address)``: the worker as an error names it.
    workers : list of str
        Part k's worker at k.
    address : str
    when : str
        When it was lost: "during the run", ...

    Returns
    -------
    WorkerLostError
    """
    return WorkerLostError(
        f"{describe(address)}, the worker of {held(workers, address)}, left the cluster {when}; "
        "the run is abandoned"
    )


#: errors a wait meets when a worker goes under it: a closed connection, a cancelled future (its
#: data forgotten with the worker)
_COMM_ERRORS = (OSError, concurrent.futures.CancelledError)


def watch(fn, lost, *, failed=None):
    """``fn()``, run in a helper thread while this thread checks every ``POLL_S`` seconds that
    no worker was lost.

    Parameters
    ----------
    fn : callable
        The wait: ``fn()`` with no arguments; its result is returned.
    lost : callable
        ``lost()``: a :class:`WorkerLostError` for a worker lost, else None.
    failed : callable, optional
        ``failed()``, checked with `lost`: raises an error seen before `fn` ends (a part that
        failed, whose peers may wait for it forever).

    Returns
    -------
    object
        ``fn()``'s result.

    Raises
    ------
    WorkerLostError
        From `lost`, at the first check after the loss; also where `fn` fails with a closed
        connection or a cancelled future while a worker is, or within ``POLL_S`` turns out,
        lost.
    Exception
        `fn`'s error, or `failed`'s.
    """
    box, done = {}, threading.Event()

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # handed to the waiting thread
            box["error"] = e
        done.set()

    threading.Thread(target=target, name="gravel-wait", daemon=True).start()
    while not done.wait(POLL_S):
        if failed is not None:
            failed()
        error = lost()
        if error is not None:
            raise error
    if "error" in box:
        e, error = box["error"], _quietly(lost)
        if error is None and isinstance(e, _COMM_ERRORS):
            time.sleep(POLL_S)  # the worker's end may reach the scheduler after the error
            error = _quietly(lost)
        if error is not None:
            raise error from None
        raise e
    return box["value"]


def _quietly(lost):
    """``lost()``, or None where asking fails (the cluster going): the wait's own error stands."""
    try:
        return lost()
    except Exception:
        return None


def gather(client, futures, workers, describe, *, fetch=True, lost=None):
    """The futures' results (with `fetch`; else only their errors raised, the results left on
    the workers), each task pinned to ``workers[i]``.

    Parameters
    ----------
    client : distributed.Client
    futures : list of distributed.Future
    workers : list of str
        Each task's worker, in the order of `futures`.
    describe : callable
        ``describe(address)``: the worker as an error names it.
    fetch : bool, default True
    lost : callable, optional
        ``lost()``: a :class:`WorkerLostError` for a worker lost, else None; default: one for
        the first of `workers` that the scheduler no longer lists.

    Returns
    -------
    list or None
        The results in order with `fetch`, else None.

    Raises
    ------
    WorkerLostError
        A worker left during the wait; it names the worker by ``describe(address)`` and its part.
    Exception
        The first task's error, raised as soon as it is seen (checked every ``POLL_S`` seconds).
    """
    import distributed

    if lost is None:

        def lost():
            present = set(alive(client))
            gone = next((w for w in workers if w not in present), None)
            return None if gone is None else lost_error(describe, workers, gone, "during the run")

    def failed():  # a part that failed: its peers may wait for it forever (NCCL)
        for f in futures:
            if f.status == "error":
                f.result()

    def wait():
        distributed.wait(futures)
        if fetch:
            return client.gather(futures)
        failed()
        return None

    return watch(wait, lost, failed=failed)


def wait_ended(pids, seconds):
    """Wait up to `seconds` for the processes `pids` to end.

    Parameters
    ----------
    pids : iterable of int
    seconds : float

    Returns
    -------
    list of int
        The ones still running (a zombie, ended but not yet reaped, does not count).
    """
    deadline = time.monotonic() + seconds
    left = [p for p in pids if _running(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [p for p in left if _running(p)]
    return left


def _running(pid):
    """Whether process `pid` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: the id was reused
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True  # no /proc: it answered the signal


class Roster:
    """How a cluster object tells that a worker holding its parts is lost: it has a ``client``,
    ``describe(address)`` and, for the workers it started, their process ids by address
    (``_pid_of``); ``_reported`` keeps the workers an error has named."""

    _pid_of = {}
    _reported = frozenset()

    def _lost(self, addresses, *, settle=False):
        """The first of `addresses` whose worker the scheduler no longer lists, or None; with
        `settle`, a worker started here whose process has ended is waited on, up to POLL_S, for
        the scheduler to drop it (it does so as soon as the worker's connection closes)."""
        present = set(alive(self.client))
        gone = next((a for a in addresses if a not in present), None)
        ended = [a for a in addresses if a in self._pid_of and not _running(self._pid_of[a])]
        deadline = time.monotonic() + POLL_S
        while settle and gone is None and ended and time.monotonic() < deadline:
            time.sleep(0.05)
            present = set(alive(self.client))
            gone = next((a for a in ended if a not in present), None)
        return gone

    def _lost_error(self, workers, when, *, settle=False):
        """A WorkerLostError where one of `workers` (part k's at k) is lost, else None."""
        address = self._lost(workers, settle=settle)
        if address is None:
            return None
        self._reported = self._reported | {address}
        return lost_error(self.describe, workers, address, when)

    def _check(self, workers, when, *, settle=False):
        """Raise `_lost_error`'s error, if any."""
        error = self._lost_error(workers, when, settle=settle)
        if error is not None:
            raise error from None
