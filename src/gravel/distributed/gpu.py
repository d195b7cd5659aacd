"""Several GPUs: one Dask worker process per GPU, parts in device memory, exchange over NCCL.

:class:`GPUCluster` starts (or joins) Dask workers, worker k seeing only GPU k (its
``CUDA_VISIBLE_DEVICES``), and joins them in one NCCL communicator (the unique id made by worker 0
and handed to the others through Dask). A graph's part k lives on worker k's GPU, built there from a
generator spec or a file (:mod:`.build`) or sent from a Graph held here. A run submits one task per
worker that drives the part's program to its end (exchange.drive) with the worker's
:class:`~.nccl.NcclCommunicator`: payloads go from GPU to GPU; the driver only starts the tasks and
collects the results.

A worker lost mid-run strands its peers inside NCCL, so a failed run takes the workers down with
it (a cluster started here is closed, a given one restarted) and raises one error naming the
worker and its GPU; a new cluster runs again.

This module is the driver's side; the tasks each worker runs are in :mod:`.gpu_worker`, the
part on a GPU in :mod:`.device_part` and the operator calls of its programs' steps in
:mod:`.device_steps`.
"""

import logging
import operator
import os
import uuid

from ..errors import GravelError, InvalidArgumentError
from .cluster import WORKER_ENV, Owner, _set_env
from .device_part import to_device
from .exchange import Stats
from .gpu_worker import _build, _connect, _facts, _facts_of, _run
from .liveness import WorkerLostError, gather, require_distributed
from .partition import _check_parts, split

# -- GPUs and their workers --------------------------------------------------------------------


def device_count():
    """GPUs this process can see (0 without CuPy or a GPU).

    Returns
    -------
    int
    """
    from ..backends import cuda

    if not cuda.available():
        return 0
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def check_gpus(gpus, count=None):
    """`gpus` checked against the GPUs present (`count`, default :func:`device_count`): an error
    before any work where it is not a positive integer or more than there are.

    Parameters
    ----------
    gpus : int
    count : int, optional

    Returns
    -------
    int

    Raises
    ------
    InvalidArgumentError
        `gpus` is not a positive integer, or is more than `count` (the message says why CUDA is
        unavailable where there are none).

    Examples
    --------
    >>> from gravel.distributed.gpu import check_gpus
    >>> check_gpus(2, count=4)
    2
    """
    gpus = _check_parts(gpus, "gpus")
    count = device_count() if count is None else count
    if gpus > count:
        from ..backends import cuda

        why = "" if count else f" ({cuda.why_unavailable()})"
        raise InvalidArgumentError(f"asked for {gpus} GPUs, but this machine has {count}{why}")
    return gpus


def worker_gpus(gpus, visible=None):
    """The GPU each of `gpus` workers sees, worker k taking the k-th visible GPU: the entries of
    `visible` (``CUDA_VISIBLE_DEVICES`` as this process has it), or 0, 1, ... when it is unset.
    Part k lives on worker k.

    Parameters
    ----------
    gpus : int
    visible : str, optional
        GPU ids (or UUIDs) separated by commas.

    Returns
    -------
    list of str

    Raises
    ------
    InvalidArgumentError
        `visible` names fewer than `gpus` GPUs.

    Examples
    --------
    >>> from gravel.distributed.gpu import worker_gpus
    >>> worker_gpus(2, "3,5,7"), worker_gpus(2, "")
    (['3', '5'], ['0', '1'])
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES") if visible is None else visible
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible else None
    if ids is None:
        return [str(k) for k in range(gpus)]
    if gpus > len(ids):
        raise InvalidArgumentError(f"asked for {gpus} GPUs, but CUDA_VISIBLE_DEVICES={visible}")
    return ids[:gpus]


def _visible():
    return os.environ.get("CUDA_VISIBLE_DEVICES", "?")


def _release():
    """Hand CuPy's cached device and pinned blocks back to the driver, so that the worker's exit
    (which Dask waits on for a few seconds only) does not have to tear down tens of GB."""
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


# -- the driver's side -------------------------------------------------------------------------


def _spec_cluster(distributed, ids):
    """A ``distributed.SpecCluster`` here: a scheduler and one worker process per GPU id of `ids`,
    each seeing that GPU alone."""
    nanny = {"nthreads": 1, "memory_limit": 0, "host": "127.0.0.1"}
    workers = {
        f"gpu-{g}": {
            "cls": distributed.Nanny,
            "options": nanny | {"env": WORKER_ENV | {"CUDA_VISIBLE_DEVICES": g}},
        }
        for g in ids
    }
    scheduler = {
        "cls": distributed.Scheduler,
        "options": {"host": "127.0.0.1", "dashboard_address": ":0"},
    }
    return distributed.SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR)


class GPUCluster(Owner):
    """Dask workers, one per GPU, joined by NCCL.

    Parameters
    ----------
    gpus : int, optional
        Start a ``distributed.SpecCluster`` of this many worker processes here, worker k on the
        k-th visible GPU (an error, before anything starts, where there are fewer GPUs).
    client : distributed.Client or str, optional
        Use the workers of an existing Dask cluster instead (each must see one GPU): the same
        code then spans several machines. They are ordered by GPU id, then address, and
        restarted (not shut down) after a failed run.

    Attributes
    ----------
    workers : list of str
        The workers' addresses: part k lives on ``workers[k]``.
    gpu_of : dict of str to str
        Each worker's ``CUDA_VISIBLE_DEVICES``.

    Raises
    ------
    InvalidArgumentError
        Neither `gpus` nor `client`, or `gpus` is not a positive integer or more than the GPUs
        visible here.
    MissingDependencyError
        Dask's distributed is not installed.
    GravelError
        The Dask cluster has no workers.

    Examples
    --------
    >>> with GPUCluster(2) as cluster:  # doctest: +SKIP
    ...     DG = cluster.load("kron:20")  # each worker builds its own part
    ...     depth = gravel.distributed.bfs(DG, 0).depth
    """

    def __init__(self, gpus=None, *, client=None):
        distributed = require_distributed("GPUCluster")

        self._ready = False  # joined: a failed step may restart and join the workers again
        ids = None
        if client is None:
            if gpus is None:
                raise InvalidArgumentError("GPUCluster needs gpus (workers to start) or a client")
            ids = worker_gpus(check_gpus(gpus))
        self._start(client, lambda: _spec_cluster(distributed, ids), len(ids or ()), self._connect)
        self._ready = True

    def _connect(self):
        """Worker order (by GPU) and one NCCL communicator over the workers."""
        c = self.client
        c.run(_set_env, WORKER_ENV)
        self.gpu_of = c.run(_visible)
        self.workers = sorted(self.gpu_of, key=lambda w: (_number(self.gpu_of[w]), w))
        if not self.workers:
            raise GravelError("the Dask cluster has no workers")
        self.key = uuid.uuid4().hex[:12]
        from .nccl import unique_id

        uid = self._each([(unique_id, ())], "nccl-id")[0]
        size = len(self.workers)
        self._each([(_connect, (self.key, uid, r, size)) for r in range(size)], "nccl-init")

    @property
    def gpus(self):
        """How many workers (GPUs)."""
        return len(self.workers)

    def describe(self, worker):
        """A worker as errors name it: its address and GPU.

        Parameters
        ----------
        worker : str

        Returns
        -------
        str
        """
        return f"worker {worker} (GPU {self.gpu_of.get(worker, '?')})"

    def _each(self, calls, what, *, fetch=True):
        """Run ``calls[k] = (fn, args)`` on worker k, all at once: their results, or (without
        `fetch`) their futures, the results kept on the workers. A failure takes the workers
        down (see the module's notes) and is raised."""
        c, tag = self.client, uuid.uuid4().hex[:8]
        futures = [
            c.submit(
                fn,
                *args,
                key=f"gravel-{what}-{tag}-{k}",
                workers=[self.workers[k]],
                allow_other_workers=False,
                pure=False,
            )
            for k, (fn, args) in enumerate(calls)
        ]
        try:
            out = gather(c, futures, self.workers[: len(calls)], self.describe, fetch=fetch)
        except BaseException as e:
            after = "the cluster was shut down" if self._local else "the workers were restarted"
            self._abandon(futures)
            if isinstance(e, WorkerLostError):
                raise WorkerLostError(f"{e}; {after}") from None
            raise
        return out if fetch else futures

    def _abandon(self, futures):
        """After a failed collective step: no worker may stay inside NCCL. Workers this object
        started are shut down (nothing run on them: one may be inside NCCL or gone); others are
        restarted and, once this object has joined them, joined again, one try (a failure while
        joining again leaves them restarted)."""
        try:
            self.client.cancel(futures)
            if self._local is not None:
                self._drop()
            else:
                self.client.restart()
                if self._ready:
                    self._ready = False
                    self._connect()
                    self._ready = True
        except Exception:  # the cluster is already going: nothing left to clean
            pass

    def load(self, graph, *, seed=0, weights=None):
        """Part k of `graph` on worker k's GPU.

        Parameters
        ----------
        graph : Source, str, os.PathLike or Graph
            A :class:`~.build.Source`, a generator spec or file name (each worker builds or reads
            its own part), or a Graph held here (cut here and sent, part by part).
        seed : int, default 0
        weights : int, optional
            For a spec or file name, as :class:`~.build.Source` takes them.

        Returns
        -------
        GPUGraph

        Raises
        ------
        WorkerLostError
            A worker left during the build; the workers are taken down, as after any error.
        """
        from .build import Source

        if isinstance(graph, (str, os.PathLike)):
            graph = Source(str(graph), seed=seed, weights=weights)
        size = len(self.workers)
        if isinstance(graph, Source):
            calls = [(_build, (self.key, graph, r, size)) for r in range(size)]
            order, nnz = None, None
        else:
            c = self.client
            hosts = [
                c.scatter(p, workers=[self.workers[r]], hash=False)
                for r, p in enumerate(split(graph, size))
            ]
            calls = [(to_device, (f,)) for f in hosts]
            order, nnz = graph.order, graph.nnz
        futures = self._each(calls, "load", fetch=False)
        facts = self._each_on(futures, _facts)
        return GPUGraph(self, futures, facts, order=order, nnz=nnz)

    def _each_on(self, futures, fn):
        return self._each([(fn, (f,)) for f in futures], fn.__name__.strip("_"))

    def run(self, dg, program, *args, stats=None, keep=False):
        """Each part's result of ``program(part, *args)``, run on its GPU over NCCL: one task per
        worker drives its part's program to the end (:func:`~.exchange.drive`).

        Parameters
        ----------
        dg : GPUGraph
        program : callable
            A distributed program (:mod:`gravel.distributed.exchange`).
        *args
            Passed to `program` after the part.
        stats : Stats, optional
            Gets the supersteps, the bytes every part sent, and the slowest part's seconds in
            collectives (``exchange_s``) and in all (``worker_s``).
        keep : bool, default False

        Returns
        -------
        list
            Each part's result, its arrays copied to the host; with `keep`, futures of the results,
            left in the workers' GPUs.

        Raises
        ------
        WorkerLostError
            A worker left during the run; the workers are taken down (a cluster started here is
            closed, a given one restarted), as after any part's error, which is raised.
        """
        calls = [(_run, (self.key, f, program, args, keep)) for f in dg.futures]
        if keep:
            runs = self._each(calls, "run", fetch=False)
            values = self._each([(operator.itemgetter(0), (f,)) for f in runs], "kept", fetch=False)
            out = list(zip(values, self._each_on(runs, _facts_of), strict=True))
        else:
            out = self._each(calls, "run")
        stats = Stats() if stats is None else stats
        stats.supersteps += out[0][1]["supersteps"]
        stats.exchange_bytes += sum(o[1]["exchange_bytes"] for o in out)
        stats.exchange_s += max(o[1]["exchange_s"] for o in out)
        stats.worker_s = max(o[1]["seconds"] for o in out)
        return [o[0] for o in out]

    def close(self):
        """Shut the workers down if this object started them, their CuPy pools emptied first
        where they still answer (waiting up to WORKER_EXIT_S for their processes to end); close
        the client if this object made it from an address (a given client is left running)."""
        if self._local is not None:
            try:
                self.client.run(_release)
            except Exception:  # a worker gone: the shutdown below is all that is left to do
                pass
        self._drop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<gravel.distributed.GPUCluster gpus={len(self.workers)}>"


def _number(text):
    try:
        return int(text)
    except ValueError:
        return 1 << 30


class GPUGraph:
    """A partitioned graph whose part k is in worker k's GPU (futures on a :class:`GPUCluster`),
    made by :meth:`GPUCluster.load`. Same attributes as :class:`~.partition.PartitionedGraph`,
    and ``device == "cuda"``.

    Parameters
    ----------
    cluster : GPUCluster
    futures : list of distributed.Future
    facts : list of tuple
        Per part: bounds, n, directed, weighted, out-arcs, and (hub, its out-degree).
    order : numpy.ndarray, optional
    nnz : int, optional
        Default: the sum of the parts' out-arcs.
    """

    device = "cuda"
    labels = None

    def __init__(self, cluster, futures, facts, *, order=None, nnz=None):
        self.cluster, self.futures = cluster, futures
        self.bounds, self.n, self.directed, self.weighted = facts[0][:4]
        self.nnz = sum(f[4] for f in facts) if nnz is None else nnz
        self.order = order
        #: the vertex of highest out-degree (internal id): the default source of traversals
        self.hub = max((f[5] for f in facts), key=lambda h: (h[1], -h[0]))[0]

    @property
    def m(self):
        """Edges (arcs, or arc pairs of an undirected graph)."""
        return self.nnz if self.directed else self.nnz // 2

    @property
    def nparts(self):
        """How many parts (0 after :meth:`free`)."""
        return len(self.futures)

    def run(self, program, *args, stats=None, keep=False):
        """Each part's result of ``program(part, *args)``, as :meth:`GPUCluster.run` gives it.

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
            raise GravelError("this GPUGraph was freed")
        return self.cluster.run(self, program, *args, stats=stats, keep=keep)

    def free(self):
        """Drop the parts from the GPUs (a cluster shut down after a failure holds none)."""
        if self.cluster.client.status == "running":
            self.cluster.client.cancel(self.futures)
        self.futures = []

    def __repr__(self):
        return f"<gravel.distributed.GPUGraph n={self.n} parts={self.nparts}>"
