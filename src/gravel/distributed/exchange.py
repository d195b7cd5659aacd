"""Exchange between parts: the collectives a partitioned algorithm needs, and who performs them.

A distributed algorithm is written once, as a generator run for each part (SPMD): it computes on
its part and yields a collective whenever it needs the others, receiving the collective's result::

    def program(part, ...):
        ...
        received = yield alltoall(sends)  # sends[j]: what this part sends to part j
        total = yield allreduce(count)
        ranks = yield allgather(local_ranks)
        return local_result

Every part yields the same collectives in the same order. Who performs them is the exchange:

- :func:`route` performs one collective for all parts at once, on the driver, from the P values
  the parts yielded. :func:`run_in_process` (no Dask) and the Dask cluster (cluster.py: the driver
  gathers each part's yield from its worker and sends each part its share with the next step) both
  route this way: fine for the CPU path.
- A :class:`Communicator` performs a collective for one part, inside that part's own process,
  with its peers doing the same: :func:`drive` runs a whole program that way, in one task per
  worker. An NCCL communicator (CuPy's ``cupy.cuda.nccl``) implements these three methods with
  grouped send/recv, allGather and allReduce; :func:`route` is the reference it must match.
"""

import functools
from dataclasses import dataclass

import numpy as np

from ..arrays import host

#: the reductions of allreduce, by name
OPS = {"sum": np.add, "min": np.minimum, "max": np.maximum}


@dataclass(frozen=True)
class Collective:
    """One collective as a part yields it: its kind, this part's data and the reduction."""

    kind: str  # "alltoall", "allgather" or "allreduce"
    data: object
    op: str | None = None


@dataclass(frozen=True)
class Finished:
    """What a part's step gives once its program has returned: the part's result."""

    value: object


def alltoall(sends):
    """Send ``sends[j]`` to part j; receive the list of what each part sent to this one.

    Parameters
    ----------
    sends : sequence
        One item per part, in part order (this part's own included): an array, or a tuple of
        arrays (every part sends the same kind of item).

    Returns
    -------
    Collective
        To yield from a distributed program; the reply is a list, in part order, of the items
        every part sent to this one (of the arrays, or tuples of arrays, they sent).

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.exchange import alltoall, run_in_process
    >>> def program(k):
    ...     received = yield alltoall([np.array([10 * k + j]) for j in range(2)])
    ...     return [int(r[0]) for r in received]
    >>> run_in_process([0, 1], program)
    [[0, 10], [1, 11]]
    """
    return Collective("alltoall", list(sends))


def allgather(data):
    """Receive every part's `data` concatenated in part order.

    Parameters
    ----------
    data : array or tuple of arrays
        This part's share (parts may hold different lengths); a tuple is gathered column by
        column.

    Returns
    -------
    Collective
        To yield from a distributed program; the reply is every part's `data` concatenated in
        part order (a tuple of concatenations for a tuple).
    """
    return Collective("allgather", data)


def allreduce(data, op="sum"):
    """Receive the reduction of every part's `data`, element-wise.

    Parameters
    ----------
    data : scalar or array
        This part's value (all parts' of one shape).
    op : {"sum", "min", "max"}, default "sum"
        The reduction.

    Returns
    -------
    Collective
        To yield from a distributed program; the reply is the reduction, on the host (NumPy)
        where the parts gave host values, and always where the driver routes it (:func:`route`).

    Raises
    ------
    ValueError
        `op` is not one of the three.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.exchange import allreduce, run_in_process
    >>> def program(k):
    ...     total = yield allreduce(np.int64(k), "sum")
    ...     return int(total)
    >>> run_in_process([1, 2, 3], program)
    [6, 6, 6]
    """
    if op not in OPS:
        raise ValueError(f"unknown reduction {op!r} (expected {', '.join(OPS)})")
    return Collective("allreduce", data, op)


def _nbytes(item):
    if isinstance(item, (tuple, list)):
        return sum(_nbytes(x) for x in item)
    return int(item.nbytes) if hasattr(item, "nbytes") else np.asarray(item).nbytes


def sent_bytes(collective, rank, size):
    """The payload bytes part `rank` of `size` sends to the others in `collective`.

    Parameters
    ----------
    collective : Collective or object
        What the part yielded; anything else (a :class:`Finished`) sends nothing.
    rank : int
        The sending part.
    size : int
        How many parts.

    Returns
    -------
    int
        Its alltoall items for the other parts; its allgather data, and its allreduce data, once
        for each other part (the bytes every peer must see, whatever route the transport takes).

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.exchange import allgather, sent_bytes
    >>> sent_bytes(allgather(np.zeros(4, np.int32)), 0, 3)
    32
    """
    if not isinstance(collective, Collective):
        return 0
    if collective.kind == "alltoall":
        return sum(_nbytes(x) for j, x in enumerate(collective.data) if j != rank)
    return _nbytes(collective.data) * (size - 1)


def step(program, reply):
    """Run `program` up to its next collective, sending it `reply`.

    Parameters
    ----------
    program : generator
        A distributed program's generator.
    reply : object
        What the last collective gave this part; None for the first step (a generator not yet
        started takes only None).

    Returns
    -------
    Collective or Finished
        The :class:`Collective` it yields, or :class:`Finished` with its result once it returns.

    Raises
    ------
    TypeError
        The program yielded something other than a :class:`Collective`.
    """
    try:
        out = program.send(reply)
    except StopIteration as stop:
        return Finished(stop.value)
    if not isinstance(out, Collective):
        raise TypeError(f"a distributed program yielded {out!r}, not a collective")
    return out


def _concat(pieces):
    if isinstance(pieces[0], tuple):
        return tuple(np.concatenate(col) for col in zip(*pieces))
    return np.concatenate(pieces)


def route(requests):
    """Perform one collective for all parts, here.

    Parameters
    ----------
    requests : list of Collective
        What each part yielded, in part order.

    Returns
    -------
    list
        What each part receives, in part order: for alltoall, the list of items sent to it; for
        allgather, the joined data; for allreduce, the reduction of the parts' data brought to
        the host (NumPy).

    Raises
    ------
    RuntimeError
        The parts are out of step: they yielded different collectives (or finished at different
        steps), a bug in the program.
    ValueError
        An alltoall part did not send one item to each part, or the collective is of an unknown
        kind.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.exchange import allgather, route
    >>> [r.tolist() for r in route([allgather(np.array([0])), allgather(np.array([1, 2]))])]
    [[0, 1, 2], [0, 1, 2]]
    """
    kinds = {(r.kind, r.op) if isinstance(r, Collective) else ("finished", None) for r in requests}
    if len(kinds) != 1:
        raise RuntimeError(f"the parts are out of step: they yielded {sorted(map(str, kinds))}")
    first = requests[0]
    parts = len(requests)
    if first.kind == "alltoall":
        if any(len(r.data) != parts for r in requests):
            raise ValueError(f"alltoall: every part must send one item to each of {parts} parts")
        return [[r.data[j] for r in requests] for j in range(parts)]
    if first.kind == "allgather":
        return [_concat([r.data for r in requests])] * parts
    if first.kind == "allreduce":
        total = functools.reduce(OPS[first.op], [host(r.data) for r in requests])
        return [total] * parts
    raise ValueError(f"unknown collective {first.kind!r}")


class Communicator:
    """The collectives for one part (rank) among `size`, performed where the part lives. An
    implementation overrides the three methods; all parts call them in the same order.

    Attributes
    ----------
    rank : int
        This part.
    size : int
        How many parts.

    See Also
    --------
    gravel.distributed.nccl.NcclCommunicator : The implementation over NCCL.
    route : The reference the three methods must match.
    """

    rank: int
    size: int

    def alltoall(self, sends):
        """Send ``sends[j]`` to part j; receive what each part sent to this one.

        Parameters
        ----------
        sends : sequence
            One array, or tuple of arrays, per part, in part order.

        Returns
        -------
        list
            What each part sent to this one, in part order, as :func:`route` gives it.

        Raises
        ------
        NotImplementedError
            Always, here: an implementation overrides it.
        """
        raise NotImplementedError

    def allgather(self, data):
        """Every part's `data` concatenated in part order.

        Parameters
        ----------
        data : array or tuple of arrays
            This part's share.

        Returns
        -------
        array or tuple of arrays
            As :func:`route` gives it.

        Raises
        ------
        NotImplementedError
            Always, here: an implementation overrides it.
        """
        raise NotImplementedError

    def allreduce(self, data, op):
        """The element-wise reduction of every part's `data`.

        Parameters
        ----------
        data : scalar or array
            This part's value.
        op : {"sum", "min", "max"}
            The reduction.

        Returns
        -------
        scalar or array
            As :func:`route` gives it.

        Raises
        ------
        NotImplementedError
            Always, here: an implementation overrides it.
        """
        raise NotImplementedError

    def perform(self, collective):
        """Perform a collective this part yielded, by the method of its kind.

        Parameters
        ----------
        collective : Collective
            What the part yielded.

        Returns
        -------
        object
            What the part receives: the result of :meth:`alltoall`, :meth:`allgather` or
            :meth:`allreduce`.
        """
        c = collective
        if c.kind == "allreduce":
            return self.allreduce(c.data, c.op)
        return getattr(self, c.kind)(c.data)


def drive(program, comm):
    """Run `program` to its end inside one part's process, performing each collective on `comm`.

    Parameters
    ----------
    program : generator
        A distributed program's generator, for this part.
    comm : Communicator
        This part's communicator; its peers drive their parts' programs at the same time.

    Returns
    -------
    object
        The program's result (its return value).

    Raises
    ------
    TypeError
        The program yielded something other than a collective (:func:`step`).
    """
    reply = None
    while True:
        out = step(program, reply)
        if isinstance(out, Finished):
            return out.value
        reply = comm.perform(out)


class Stats:
    """Counts of a run's exchange: collectives (supersteps), the payload bytes the parts sent
    each other (``exchange_bytes``, :func:`sent_bytes` summed over parts and collectives) and
    the seconds spent routing (on GPUs: the slowest part's seconds inside collectives), and on
    GPUs ``worker_s``, the slowest part's run time inside its worker (synchronized)."""

    def __init__(self):
        self.supersteps = 0
        self.exchange_bytes = 0
        self.exchange_s = 0.0
        self.worker_s = None

    def routed(self, requests):
        """Count one collective routed on the driver for all parts.

        Parameters
        ----------
        requests : list of Collective
            What each part yielded, in part order: one superstep, and each part's
            :func:`sent_bytes` added to ``exchange_bytes``.
        """
        size = len(requests)
        self.supersteps += 1
        self.exchange_bytes += sum(sent_bytes(r, k, size) for k, r in enumerate(requests))

    def as_dict(self):
        """The counts as a result's ``stats`` gives them.

        Returns
        -------
        dict
            ``supersteps``, ``exchange_bytes`` and ``exchange_s``, and ``worker_s`` where it was
            set (on GPUs).
        """
        out = {
            "supersteps": self.supersteps,
            "exchange_bytes": self.exchange_bytes,
            "exchange_s": self.exchange_s,
        }
        return out if self.worker_s is None else out | {"worker_s": self.worker_s}


def run_in_process(parts, program, *args, stats=None):
    """Run ``program(part, *args)`` for every part in this process, routing each collective: the
    exchange without workers (tests, debugging, P = 1).

    Parameters
    ----------
    parts : sequence
        The parts (:class:`~gravel.distributed.Part`, or whatever `program` takes), in part order.
    program : callable
        A distributed program: a generator function of a part and `args`.
    *args
        Passed to `program` after the part.
    stats : Stats, optional
        Counts the exchange: a superstep and the bytes of each collective, the seconds spent
        routing. A fresh one where None.

    Returns
    -------
    list
        Each part's result, in part order.

    Raises
    ------
    RuntimeError
        The parts fell out of step (:func:`route`).

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.distributed.exchange import Stats, allreduce, run_in_process
    >>> def program(k):
    ...     low = yield allreduce(np.int64(k), "min")
    ...     return int(low)
    >>> stats = Stats()
    >>> run_in_process([5, 3], program, stats=stats), stats.supersteps, stats.exchange_bytes
    ([3, 3], 1, 16)
    """
    import time

    programs = [program(p, *args) for p in parts]
    requests = [step(g, None) for g in programs]
    stats = Stats() if stats is None else stats
    while not all(isinstance(r, Finished) for r in requests):
        t = time.perf_counter()
        replies = route(requests)
        stats.exchange_s += time.perf_counter() - t
        stats.routed(requests)
        requests = [step(g, r) for g, r in zip(programs, replies)]
    return [r.value for r in requests]
