"""Workers: Dask's ``distributed`` runs one worker process per part (per GPU, on the GPU path).

Each part is scattered to one worker and pinned there; a program's state (its generator, see
exchange.py) stays in that worker's process between steps. The driver steps every part's program
to its next collective, gathers what the parts yielded, routes it (:func:`exchange.route`) and
sends each part its share with the next step: the graph itself never comes back to the driver.
"""

import itertools
import os
import time
import uuid

from ..errors import GravelError, InvalidArgumentError
from .exchange import Finished, Stats, route, step
from .partition import _check_parts, split

#: set in every worker's environment: NCCL's NVLink multicast stays off on the GPU machines
WORKER_ENV = {"NCCL_NVLS_ENABLE": "0"}
#: seconds between checks that the workers holding a run's parts are alive
POLL_S = 1.0

# In each worker process: (run id, part index) -> that part's running program and whether its
# result stays on the worker; and the results that stay, till the driver takes them as futures.
_RUNNING = {}
_KEPT = {}


class WorkerLostError(GravelError, RuntimeError):
    """A worker holding a part left the cluster during a run."""


def _start(run, part, program, args, keep):
    key = (run, part.index)
    _RUNNING[key] = program(part, *args), keep
    return _advance(key, None)


def _resume(run, index, reply):
    return _advance((run, index), reply)


def _advance(key, reply):
    program, keep = _RUNNING.get(key, (None, False))
    if program is None:
        raise RuntimeError(f"part {key[1]} of run {key[0]} has no state on this worker")
    try:
        out = step(program, reply)
    except BaseException:
        _RUNNING.pop(key, None)
        raise
    if isinstance(out, Finished):
        _RUNNING.pop(key, None)
        if keep:
            _KEPT[key] = out.value
            return Finished(None)
    return out


def _take(run, index):
    """A kept result, as the value of a task (a future the driver holds) on this worker."""
    return _KEPT.pop((run, index))


def _discard(run):
    for key in [k for k in _RUNNING if k[0] == run]:
        _RUNNING.pop(key)[0].close()
    for key in [k for k in _KEPT if k[0] == run]:
        _KEPT.pop(key)


def _set_env(env):
    os.environ.update(env)


def alive(client):
    """The addresses of the cluster's workers, sorted.

    Parameters
    ----------
    client : distributed.Client

    Returns
    -------
    list of str
    """
    return sorted(client.scheduler_info(n_workers=-1)["workers"])


def gather(client, futures, workers, describe, *, fetch=True):
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

    while True:
        try:
            distributed.wait(futures, timeout=POLL_S)
            break
        except TimeoutError:
            for f in futures:  # a part that failed: its peers may wait for it forever (NCCL)
                if f.status == "error":
                    f.result()
            lost = sorted(set(workers) - set(alive(client)))
            if lost:
                raise WorkerLostError(
                    f"{describe(lost[0])} left the cluster during the run (it held part "
                    f"{workers.index(lost[0])}); the run is abandoned"
                ) from None
    if not fetch:
        for f in futures:
            if f.status == "error":
                f.result()  # raises the task's error
        return None
    return client.gather(futures)


#: seconds a local cluster's close waits, past Dask's own limit, for its worker processes to end:
#: a worker killed while holding a big part can take longer than Dask's 5 s to free its pinned and
#: device memory
WORKER_EXIT_S = 120.0


class Owner:
    """The part of a cluster object that closes what it started: its local cluster (`_local`, its
    worker processes `_pids`) and the client it made (for `_local`, or from an address:
    `_own_client`); a client the caller gave is left running."""

    _pids = ()

    def _start(self, client, local, workers, join):
        """Take `client`: None to start `local()` here and wait for its `workers`, an address to
        connect to, or a Client; then `join()` the workers. A failure closes what was started."""
        import distributed

        self._local, self._own_client, self.client = None, False, None
        try:
            if client is None:
                self._local = local()
                self.client = distributed.Client(self._local)
                self.client.wait_for_workers(workers)
                self._pids = tuple(self.client.run(os.getpid).values())  # for `_drop` to wait on
            elif isinstance(client, str):
                self.client, self._own_client = distributed.Client(client), True
            else:
                self.client = client
            join()
        except BaseException:  # what this object started goes with it (a given client stays)
            self._drop_quietly()
            raise

    def _drop(self):
        local, self._local = self._local, None
        own, self._own_client = self._own_client, False
        try:
            if self.client is not None and (local is not None or own):
                self.client.close()
        finally:
            if local is not None:
                try:
                    local.close()
                except TimeoutError:  # Dask's wait for a killed worker to end ran out
                    left = wait_ended(self._pids, WORKER_EXIT_S)
                    if left:
                        raise GravelError(
                            f"worker processes {left} were still running {WORKER_EXIT_S:g} s "
                            "after the cluster's close"
                        ) from None

    def _drop_quietly(self):
        """`_drop` after a failure, which an error of its own would hide."""
        try:
            self._drop()
        except Exception:
            pass


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


class Cluster(Owner):
    """Dask workers for partitioned graphs.

    Parameters
    ----------
    parts : int, optional
        Start a ``distributed.LocalCluster`` of this many single-threaded worker processes (one
        per part). Ignored when `client` is given.
    client : distributed.Client or str, optional
        Use an existing Dask client (or connect to this scheduler address) instead; its workers
        are used in the order of their addresses and are left running by :meth:`close`.
    **cluster_kwargs
        Passed to ``LocalCluster``, over gravel's own (``n_workers``, one thread a worker, ...).

    Attributes
    ----------
    client : distributed.Client
    workers : list of str
        The workers' addresses, sorted: part k goes to ``workers[k % len(workers)]``.

    Raises
    ------
    InvalidArgumentError
        Neither `parts` nor `client`, or `parts` is not a positive integer.
    GravelError
        The Dask cluster has no workers.

    Examples
    --------
    >>> with Cluster(parts=2) as cluster:  # doctest: +SKIP
    ...     DG = cluster.load(G)
    ...     depth = gravel.distributed.bfs(DG, 0).depth
    """

    def __init__(self, parts=None, *, client=None, **cluster_kwargs):
        import distributed

        if client is None:
            if parts is None:
                raise InvalidArgumentError("Cluster needs parts (workers to start) or a client")
            parts = _check_parts(parts)
        kwargs = {
            "n_workers": parts,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": ":0",  # any free port: several clusters may run
            "env": dict(WORKER_ENV),
        } | cluster_kwargs
        self._start(client, lambda: distributed.LocalCluster(**kwargs), parts, self._join)

    def _join(self):
        # workers started elsewhere too, before any NCCL use
        self.client.run(_set_env, WORKER_ENV)
        self.workers = self._alive()
        if not self.workers:
            raise GravelError("the Dask cluster has no workers")

    def _alive(self):
        return alive(self.client)

    def worker_of(self, index):
        """The address of the worker that holds part `index` (parts go round the workers).

        Parameters
        ----------
        index : int

        Returns
        -------
        str
        """
        return self.workers[index % len(self.workers)]

    def load(self, G, parts=None, bounds=None):
        """Partition `G` and scatter part k to worker ``k % workers``, pinned there.

        Parameters
        ----------
        G : Graph or PartitionedGraph
            A Graph is cut here (:func:`~gravel.distributed.split`, with `parts` and `bounds`); a
            PartitionedGraph's parts are sent as they are.
        parts : int, optional
            Default: the number of workers.
        bounds : array_like of int64, optional

        Returns
        -------
        DistributedGraph

        Raises
        ------
        InvalidArgumentError
            `parts` or `bounds` that :func:`~gravel.distributed.split` refuses.
        """
        from .partition import PartitionedGraph

        if isinstance(G, PartitionedGraph):
            pieces, meta = G.parts, G
        else:
            pieces, meta = split(G, len(self.workers) if parts is None else parts, bounds), G
        futures = [
            self.client.scatter(p, workers=[self.worker_of(i)], hash=False)
            for i, p in enumerate(pieces)
        ]
        return DistributedGraph(self, futures, pieces[0], meta)

    def run(self, dg, program, *args, stats=None, keep=False):
        """Each part's result of ``program(part, *args)`` run on the part's worker, in part
        order; with `keep`, futures of the results, left on the workers.

        The driver steps every part's program to its next collective, routes what the parts
        yielded (:func:`~gravel.distributed.exchange.route`) and sends each part its share with
        the next step.

        Parameters
        ----------
        dg : DistributedGraph
        program : callable
            A distributed program (:mod:`gravel.distributed.exchange`).
        *args
            Passed to `program` after the part.
        stats : Stats, optional
            Counts the exchange; a fresh one where None.
        keep : bool, default False

        Returns
        -------
        list

        Raises
        ------
        WorkerLostError
            A worker holding a part left the cluster during the run.
        Exception
            A part's error. Either way the run's tasks are cancelled and its state dropped.
        """
        c, run = self.client, uuid.uuid4().hex[:12]
        name = getattr(program, "__name__", "program")
        stats = Stats() if stats is None else stats
        workers = [self.worker_of(i) for i in range(len(dg.futures))]
        where = {"workers": None, "allow_other_workers": False, "pure": False}

        def submit(fn, s, i, *a):  # step s of part i
            return c.submit(fn, *a, key=f"gravel-{name}-{run}-{s}-{i}", **where)

        futures = []
        try:
            for i, (f, w) in enumerate(zip(dg.futures, workers)):
                where["workers"] = [w]
                futures.append(submit(_start, 0, i, run, f, program, args, keep))
            for s in itertools.count(1):
                requests = self._gather(futures, workers)
                if all(isinstance(r, Finished) for r in requests):
                    if not keep:
                        return [r.value for r in requests]
                    futures = []
                    for i, w in enumerate(workers):
                        where["workers"] = [w]
                        futures.append(submit(_take, s, i, run, i))
                    self._gather_errors(futures, workers)
                    return futures
                t = time.perf_counter()
                replies = route(requests)
                stats.exchange_s += time.perf_counter() - t
                stats.routed(requests)
                futures = []
                for i, (reply, w) in enumerate(zip(replies, workers)):
                    where["workers"] = [w]
                    futures.append(submit(_resume, s, i, run, i, reply))
        except BaseException:
            c.cancel(futures)
            try:
                present = set(self._alive())
                c.run(_discard, run, workers=[w for w in set(workers) if w in present])
            except Exception:  # the cluster itself is going: nothing left to clean
                pass
            raise

    def _gather(self, futures, workers):
        return gather(self.client, futures, workers, lambda w: f"worker {w}")

    def _gather_errors(self, futures, workers):
        gather(self.client, futures, workers, lambda w: f"worker {w}", fetch=False)

    def close(self):
        """Shut the workers down if this object started them (waiting up to WORKER_EXIT_S for
        their processes to end), and close the client if it made it from an address (a given
        client is left running)."""
        self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<gravel.distributed.Cluster workers={len(self.workers)}>"


class DistributedGraph:
    """A partitioned graph whose parts live on a :class:`Cluster`'s workers (futures), made by
    :meth:`Cluster.load`. Same attributes as :class:`PartitionedGraph`: n, nnz, directed,
    weighted, order, bounds, nparts.

    Parameters
    ----------
    cluster : Cluster
    futures : list of distributed.Future
        Part k's at k.
    first : Part
        A part, for bounds, n and directed.
    meta : Graph or PartitionedGraph
        The graph cut, for nnz, weighted and order.
    """

    def __init__(self, cluster, futures, first, meta):
        self.cluster, self.futures, self._nparts = cluster, futures, len(futures)
        self.bounds, self.n, self.directed = first.bounds, first.n, first.directed
        self.nnz, self.weighted, self.order = meta.nnz, meta.weighted, meta.order

    @property
    def nparts(self):
        """How many parts (kept after :meth:`free`)."""
        return self._nparts

    def run(self, program, *args, stats=None, keep=False):
        """Each part's result of ``program(part, *args)``, as :meth:`Cluster.run` gives it.

        Parameters
        ----------
        program : callable
        *args
        stats : Stats, optional
        keep : bool, default False

        Returns
        -------
        list

        Raises
        ------
        GravelError
            The graph was freed.
        """
        if not self.futures:
            raise GravelError("this DistributedGraph was freed")
        return self.cluster.run(self, program, *args, stats=stats, keep=keep)

    def free(self):
        """Drop the parts from the workers."""
        self.cluster.client.cancel(self.futures)
        self.futures = []

    def __repr__(self):
        return f"<gravel.distributed.DistributedGraph n={self.n} parts={self.nparts}>"
