"""Workers: Dask's ``distributed`` runs one worker process per part (per GPU, on the GPU path).

Each part is scattered to one worker and pinned there; a program's state (its generator, see
exchange.py) stays in that worker's process between steps. The driver steps every part's program
to its next collective, gathers what the parts yielded, routes it (:func:`exchange.route`) and
sends each part its share with the next step: the graph itself never comes back to the driver.
Every wait on the workers is watched (:mod:`.liveness`): a worker lost at any point ends the call
with a WorkerLostError naming it and its part, never a hang.
"""

import itertools
import os
import time
import uuid

from ..errors import GravelError, InvalidArgumentError
from .exchange import Finished, Stats, route, step
from .liveness import (
    Roster,
    WorkerLostError,
    _running,
    alive,
    gather,
    lost_error,
    require_distributed,
    start_local,
    wait_ended,
    watch,
    worker_pids,
)
from .partition import _check_parts, split

#: set in every worker's environment: NCCL's NVLink multicast stays off on the GPU machines
WORKER_ENV = {"NCCL_NVLS_ENABLE": "0"}
# In each worker process: (run id, part index) -> that part's running program and whether its
# result stays on the worker; and the results that stay, till the driver takes them as futures.
_RUNNING = {}
_KEPT = {}


def _start(run, part, program, args, keep):
    key = (run, part.index)
    _RUNNING[key] = program(part, *args), keep
    return _advance(key, None)


def _resume(run, index, reply):
    return _advance((run, index), reply)


def _advance(key, reply):
    program, keep = _RUNNING.get(key, (None, False))
    if program is None:  # a worker restarted at the same address: the part's state went
        import distributed

        raise WorkerLostError(
            f"worker {distributed.get_worker().address}, the worker of part {key[1]}, lost the "
            f"part's state during run {key[0]} (it restarted); the run is abandoned"
        )
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
        try:
            _RUNNING.pop(key)[0].close()
        except ValueError:  # mid-step in the task's thread: dropped here, it ends with the step
            pass
    for key in [k for k in _KEPT if k[0] == run]:
        _KEPT.pop(key)


def _set_env(env):
    os.environ.update(env)


#: seconds a local cluster's close waits, past Dask's own limit, for its worker processes to end:
#: a worker killed while holding a big part can take longer than Dask's 5 s to free its pinned and
#: device memory
WORKER_EXIT_S = 120.0


class Owner(Roster):
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
                self._local = start_local(local)
                self.client = distributed.Client(self._local)
                self.client.wait_for_workers(workers)
                self._pid_of = worker_pids(self.client)
                self._pids = tuple(self._pid_of.values())  # for `_drop` to wait on
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
        # the workers' processes now, restarted ones too, for a close that gives up on them
        pids = [
            *self._pids,
            *(getattr(n, "pid", None) for n in getattr(local, "workers", {}).values()),
        ]
        try:
            if self.client is not None and (local is not None or own):
                self.client.close()
        finally:
            if local is not None:
                try:
                    local.close()
                except TimeoutError:  # Dask's wait for a killed worker to end ran out
                    left = wait_ended({p for p in pids if p}, WORKER_EXIT_S)
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
    MissingDependencyError
        Dask's distributed is not installed.
    GravelError
        The Dask cluster has no workers.
    WorkerLostError
        A worker started here ended while the cluster started; the cluster is closed.

    Notes
    -----
    A worker lost at any point of a run (the load, a step, a gather, the close of a cluster
    started here) ends it with a :class:`WorkerLostError` naming the worker and its part,
    within ``POLL_S`` of the loss (see :class:`WorkerLostError`), never a hang. A cluster
    started here is closed with its processes when an error leaves a ``with`` block or a call
    that started it; a given one is left running, the lost worker's parts with it.

    Examples
    --------
    >>> with Cluster(parts=2) as cluster:  # doctest: +SKIP
    ...     DG = cluster.load(G)
    ...     depth = gravel.distributed.bfs(DG, 0).depth
    """

    def __init__(self, parts=None, *, client=None, **cluster_kwargs):
        distributed = require_distributed("Cluster")

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
        started = sorted(self._pid_of)  # the workers started here (none for a given client)
        self._parts = len(started)
        try:
            # workers started elsewhere too, before any NCCL use
            self.client.run(_set_env, WORKER_ENV)
            self.workers = alive(self.client)
        except Exception:  # a worker that ended under the call is named
            self._check(started, "while the cluster started", settle=True)
            raise
        self._check(started, "while the cluster started", settle=True)
        if not self.workers:
            raise GravelError("the Dask cluster has no workers")
        self._parts = len(self.workers)

    def describe(self, worker):
        """A worker as errors name it: its address.

        Parameters
        ----------
        worker : str

        Returns
        -------
        str
        """
        return f"worker {worker}"

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
        WorkerLostError
            A worker left before or during the load.
        """
        from .partition import PartitionedGraph

        if isinstance(G, PartitionedGraph):
            pieces, meta = G.parts, G
        else:
            pieces, meta = split(G, len(self.workers) if parts is None else parts, bounds), G
        workers = self._place(len(pieces))
        self._check(workers, "before the load", settle=True)

        def scatter():
            c = self.client
            return [c.scatter(p, workers=[w], hash=False) for p, w in zip(pieces, workers)]

        futures = watch(scatter, lambda: self._lost_error(workers, "during the load"))
        return DistributedGraph(self, futures, pieces[0], meta)

    def _place(self, parts):
        """Part k's worker at k, for `parts` parts (the last load's count, for the close)."""
        self._parts = parts
        return [self.worker_of(i) for i in range(parts)]

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
            A worker holding a part left the cluster before or during the run.
        Exception
            A part's error. Either way the run's tasks are cancelled and its state dropped.
        """
        c, run = self.client, uuid.uuid4().hex[:12]
        name = getattr(program, "__name__", "program")
        stats = Stats() if stats is None else stats
        workers = self._place(len(dg.futures))
        self._check(workers, "since the graph was loaded", settle=True)
        gone = [i for i, f in enumerate(dg.futures) if f.status != "finished"]
        if gone:  # its worker restarted at the same address
            raise lost_error(self.describe, workers, workers[gone[0]], "since the graph was loaded")
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
                present, pid = set(alive(self.client)), self._pid_of.get
                live = [w for w in set(workers) if w in present and _running(pid(w, os.getpid()))]
                c.run(_discard, run, workers=live)
            except Exception:  # the cluster itself is going: nothing left to clean
                pass
            raise

    def _gather(self, futures, workers, fetch=True):
        lost = lambda: self._lost_error(workers, "during the run")  # noqa: E731
        return gather(self.client, futures, workers, self.describe, fetch=fetch, lost=lost)

    def _gather_errors(self, futures, workers):
        self._gather(futures, workers, fetch=False)

    def close(self):
        """Shut the workers down if this object started them (waiting up to WORKER_EXIT_S for
        their processes to end), and close the client if it made it from an address (a given
        client is left running).

        Raises
        ------
        WorkerLostError
            A worker started here was lost, and no error has named it yet (the close itself
            completes first).
        GravelError
            Worker processes still running WORKER_EXIT_S after the close.
        """
        workers, lost = [], None
        if self._local is not None:
            workers = [self.worker_of(i) for i in range(self._parts)]
            try:
                lost = self._lost(workers, settle=True)
            except Exception:  # the scheduler is gone: the close below is all there is to do
                lost = None
            if lost in self._reported:
                lost = None
        self._drop()
        if lost is not None:
            raise lost_error(self.describe, workers, lost, "before the cluster closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.close()
        else:  # the error on its way names what went wrong: the close adds none of its own
            self._drop_quietly()

    def __repr__(self):
        return f"<gravel.distributed.Cluster workers={len(self.workers)}>"


class DistributedGraph:
    """A partitioned graph whose parts live on a :class:`Cluster`'s workers (futures), made by
    :meth:`Cluster.load`. Same attributes as :class:`PartitionedGraph`: n, nnz, directed,
    weighted, order, labels, bounds, nparts.

    Parameters
    ----------
    cluster : Cluster
    futures : list of distributed.Future
        Part k's at k.
    first : Part
        A part, for bounds, n and directed.
    meta : Graph or PartitionedGraph
        The graph cut, for nnz, weighted, order and labels.
    """

    def __init__(self, cluster, futures, first, meta):
        self.cluster, self.futures, self._nparts = cluster, futures, len(futures)
        self.bounds, self.n, self.directed = first.bounds, first.n, first.directed
        self.nnz, self.weighted, self.order = meta.nnz, meta.weighted, meta.order
        self.labels = getattr(meta, "labels", None)

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
