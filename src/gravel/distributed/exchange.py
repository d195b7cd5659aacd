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
    """Send ``sends[j]`` (an array, or a tuple of arrays) to part j; receive the list of what
    each part sent to this one, in part order."""
    return Collective("alltoall", list(sends))


def allgather(data):
    """Receive every part's `data` (an array, or a tuple of arrays) concatenated in part order."""
    return Collective("allgather", data)


def allreduce(data, op="sum"):
    """Receive the reduction (``"sum"``, ``"min"`` or ``"max"``) of every part's `data` (a
    scalar or an array), element-wise."""
    if op not in OPS:
        raise ValueError(f"unknown reduction {op!r} (expected {', '.join(OPS)})")
    return Collective("allreduce", data, op)


def _nbytes(item):
    if isinstance(item, (tuple, list)):
        return sum(_nbytes(x) for x in item)
    return int(item.nbytes) if hasattr(item, "nbytes") else np.asarray(item).nbytes


def sent_bytes(collective, rank, size):
    """The payload bytes part `rank` of `size` sends to the others in `collective`: its alltoall
    items for the other parts; its allgather data, and its allreduce data, once for each other
    part (the bytes every peer must see, whatever route the transport takes)."""
    if not isinstance(collective, Collective):
        return 0
    if collective.kind == "alltoall":
        return sum(_nbytes(x) for j, x in enumerate(collective.data) if j != rank)
    return _nbytes(collective.data) * (size - 1)


def step(program, reply):
    """Run `program` (a started generator) up to its next collective, sending it `reply`; returns
    the :class:`Collective` it yields, or :class:`Finished` with its result."""
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
    """Perform one collective for all parts: `requests` holds what each part yielded, in part
    order; returns what each part receives. Parts that yield different collectives (or finish at
    different steps) are out of step: a bug in the program, reported as such."""
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
    implementation overrides the three methods; all parts call them in the same order."""

    rank: int
    size: int

    def alltoall(self, sends):
        raise NotImplementedError

    def allgather(self, data):
        raise NotImplementedError

    def allreduce(self, data, op):
        raise NotImplementedError

    def perform(self, collective):
        c = collective
        if c.kind == "allreduce":
            return self.allreduce(c.data, c.op)
        return getattr(self, c.kind)(c.data)


def drive(program, comm):
    """Run `program` (a started generator) to its end inside one part's process, performing each
    collective on `comm` (a :class:`Communicator`); returns the program's result."""
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
        """Count one collective routed on the driver for all parts (what each part yielded)."""
        size = len(requests)
        self.supersteps += 1
        self.exchange_bytes += sum(sent_bytes(r, k, size) for k, r in enumerate(requests))

    def as_dict(self):
        out = {
            "supersteps": self.supersteps,
            "exchange_bytes": self.exchange_bytes,
            "exchange_s": self.exchange_s,
        }
        return out if self.worker_s is None else out | {"worker_s": self.worker_s}


def run_in_process(parts, program, *args, stats=None):
    """Run `program(part, *args)` for every part in this process, routing each collective: the
    exchange without workers (tests, debugging, P = 1). Returns each part's result."""
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
