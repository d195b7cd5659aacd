"""The exchange over NCCL: a :class:`~.exchange.Communicator` for one GPU among several, through
CuPy's ``cupy.cuda.nccl``, performing each collective directly between the worker processes.

- alltoall: the per-peer lengths go round first (one allGather of a small int64 matrix), then
  every payload column moves by grouped send/recv, received into one buffer per column;
- allgather: lengths first in the same way, then each part's data goes to every peer by grouped
  send/recv into its place in the joined buffer (parts may hold different lengths);
- allreduce: ncclAllReduce with sum, min or max; host scalars in, host values out, as
  :func:`~.exchange.route` gives them.

Payloads move as bytes, so any dtype crosses; each collective ends with a synchronize of the
stream, so that ``exchange_s`` is the time the collective took. CuPy is imported on first use.
"""

import time

import numpy as np

from .exchange import Communicator, sent_bytes


def unique_id():
    """A new NCCL unique id, made by one worker and handed to the others.

    Returns
    -------
    bytes or tuple of int
        The id as CuPy gives it: 128 bytes (a tuple of 128 ints before CuPy 14).
    """
    from cupy.cuda import nccl

    return nccl.get_unique_id()


def _ops():
    from cupy.cuda import nccl

    return {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}


def _dtypes():
    from cupy.cuda import nccl

    return {
        np.dtype(np.int8): nccl.NCCL_INT8,
        np.dtype(np.uint8): nccl.NCCL_UINT8,
        np.dtype(np.int32): nccl.NCCL_INT32,
        np.dtype(np.uint32): nccl.NCCL_UINT32,
        np.dtype(np.int64): nccl.NCCL_INT64,
        np.dtype(np.uint64): nccl.NCCL_UINT64,
        np.dtype(np.float32): nccl.NCCL_FLOAT32,
        np.dtype(np.float64): nccl.NCCL_FLOAT64,
    }


class NcclCommunicator(Communicator):
    """Rank `rank` of `size` GPUs joined by the NCCL unique id `uid`; one per worker process.

    Constructing it blocks until all `size` ranks have joined. Counts what it performs:
    ``supersteps`` (collectives), ``exchange_bytes`` (this rank's payload bytes sent to the
    others, :func:`~.exchange.sent_bytes`) and ``exchange_s`` (seconds inside them,
    synchronized).

    Parameters
    ----------
    uid : bytes or tuple of int
        The NCCL unique id all ranks share (:func:`unique_id`).
    rank : int
        This rank, ``0 .. size - 1``: this worker's part.
    size : int
        How many ranks (GPUs).

    Attributes
    ----------
    rank, size : int
    comm : cupy.cuda.nccl.NcclCommunicator
    supersteps, exchange_bytes : int
    exchange_s : float
    """

    def __init__(self, uid, rank, size):
        import cupy
        from cupy.cuda import nccl

        self._cupy, self._nccl = cupy, nccl
        self.rank, self.size = int(rank), int(size)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)
        self.reset_stats()

    def reset_stats(self):
        """Set the counts (``supersteps``, ``exchange_bytes``, ``exchange_s``) back to zero."""
        self.supersteps, self.exchange_bytes, self.exchange_s = 0, 0, 0.0

    def close(self):
        """Free the communicator (abort: peers that are gone cannot join a destroy)."""
        self.comm.abort()

    # -- the collectives ---------------------------------------------------------------------

    def perform(self, collective):
        """Perform a collective this part yielded, then synchronize the stream and count it.

        Parameters
        ----------
        collective : Collective
            What the part yielded.

        Returns
        -------
        object
            What the part receives, as :meth:`alltoall`, :meth:`allgather` or :meth:`allreduce`
            give it.
        """
        t = time.perf_counter()
        out = super().perform(collective)
        self._stream().synchronize()
        self.exchange_s += time.perf_counter() - t
        self.supersteps += 1
        self.exchange_bytes += sent_bytes(collective, self.rank, self.size)
        return out

    def alltoall(self, sends):
        """Send ``sends[p]`` to rank p; receive what each rank sent to this one.

        The per-peer lengths go round first (one allGather of a small int64 matrix), then every
        payload column moves by grouped send/recv, received into one buffer per column.

        Parameters
        ----------
        sends : sequence
            One item per rank: an array, or a tuple of arrays (the columns), host or device;
            column c has one dtype on every rank.

        Returns
        -------
        list
            Per rank, in rank order, the CuPy array (or tuple of arrays) it sent to this one:
            views into one buffer per column.

        Raises
        ------
        ValueError
            `sends` does not hold one item per rank.
        """
        if len(sends) != self.size:
            raise ValueError(f"alltoall: every part must send one item to each of {self.size}")
        tupled = isinstance(sends[0], tuple)
        cols = [self._columns(s) for s in sends]  # cols[peer][column]
        width = len(cols[0])
        lengths = np.array([[c.size for c in peer] for peer in cols], np.int64)
        everyone = self._gather_lengths(lengths.ravel()).reshape(self.size, self.size, width)
        incoming = everyone[:, self.rank, :]  # incoming[peer][column]: what the peer sends me
        out = []
        for c in range(width):
            dtype = cols[self.rank][c].dtype
            buf = self._cupy.empty(int(incoming[:, c].sum()), dtype)
            starts = np.concatenate(([0], np.cumsum(incoming[:, c])))
            views = [buf[starts[p] : starts[p + 1]] for p in range(self.size)]
            self._send_recv([cols[p][c] for p in range(self.size)], views)
            out.append(views)
        per_peer = [tuple(out[c][p] for c in range(width)) for p in range(self.size)]
        return per_peer if tupled else [x[0] for x in per_peer]

    def allgather(self, data):
        """Every rank's `data` concatenated in rank order (ranks may hold different lengths).

        Parameters
        ----------
        data : array or tuple of arrays
            This rank's share, host or device; a tuple is gathered column by column.

        Returns
        -------
        cupy.ndarray or tuple of cupy.ndarray
            The joined data, flattened, on this GPU.
        """
        tupled = isinstance(data, tuple)
        cols = self._columns(data)
        lengths = self._gather_lengths(np.array([c.size for c in cols], np.int64))
        lengths = lengths.reshape(self.size, len(cols))
        out = []
        for c, mine in enumerate(cols):
            starts = np.concatenate(([0], np.cumsum(lengths[:, c])))
            buf = self._cupy.empty(int(starts[-1]), mine.dtype)
            views = [buf[starts[p] : starts[p + 1]] for p in range(self.size)]
            self._send_recv([mine] * self.size, views)
            out.append(buf)
        return tuple(out) if tupled else out[0]

    def allreduce(self, data, op):
        """The element-wise reduction of every rank's `data` (ncclAllReduce).

        Parameters
        ----------
        data : scalar or array
            This rank's value, host or device, of an 8-, 32- or 64-bit integer or a 32- or
            64-bit float dtype.
        op : {"sum", "min", "max"}
            The reduction.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            The reduction in the shape of `data`: on the host (NumPy) for host `data`, as
            :func:`~.exchange.route` gives it, else on this GPU.

        Raises
        ------
        TypeError
            `data`'s dtype is not one NCCL reduces.
        """
        cp = self._cupy
        on_host = not isinstance(data, cp.ndarray)
        x = cp.asarray(data)
        shape = x.shape
        x = cp.ascontiguousarray(x).ravel()  # ascontiguousarray makes a scalar 1-d
        kind = _dtypes().get(x.dtype)
        if kind is None:
            raise TypeError(f"allreduce over NCCL: unsupported dtype {x.dtype}")
        out = cp.empty_like(x)
        self.comm.allReduce(x.data.ptr, out.data.ptr, x.size, kind, _ops()[op], self._sptr())
        out = out.reshape(shape)
        return out.get() if on_host else out

    # -- helpers -----------------------------------------------------------------------------

    def _stream(self):
        return self._cupy.cuda.get_current_stream()

    def _sptr(self):
        return self._stream().ptr

    def _columns(self, item):
        """An item (an array or a tuple of arrays) as a list of contiguous device arrays."""
        cp = self._cupy
        items = item if isinstance(item, tuple) else (item,)
        return [cp.ascontiguousarray(cp.asarray(a)).ravel() for a in items]

    def _gather_lengths(self, mine):
        """Every rank's int64 vector `mine` (all of one length), joined in rank order (host)."""
        cp, nccl = self._cupy, self._nccl
        x = cp.asarray(mine, dtype=cp.int64)
        out = cp.empty(x.size * self.size, cp.int64)
        self.comm.allGather(x.data.ptr, out.data.ptr, x.size, nccl.NCCL_INT64, self._sptr())
        return out.get()  # sync: the payloads' sizes are needed on the host

    def _send_recv(self, sends, views):
        """sends[p] to rank p and views[p] filled from rank p, in one NCCL group; this rank's own
        share is a device copy."""
        nccl, s = self._nccl, self._sptr()
        nccl.groupStart()
        try:
            for p in range(self.size):
                if p == self.rank:
                    continue
                if sends[p].nbytes:
                    self.comm.send(sends[p].data.ptr, sends[p].nbytes, nccl.NCCL_UINT8, p, s)
                if views[p].nbytes:
                    self.comm.recv(views[p].data.ptr, views[p].nbytes, nccl.NCCL_UINT8, p, s)
        finally:
            nccl.groupEnd()
        if views[self.rank].size:
            views[self.rank][...] = sends[self.rank]
