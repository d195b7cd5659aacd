"""gzip output compressed on every core: the bytes written are cut into pieces, each compressed
on a thread of a pool as a gzip member of its own (zlib lets go of the GIL while it works), and the
members written in order. A file of concatenated members is a gzip file (RFC 1952): gunzip, zcat,
Python's gzip module and gravel's reader read it whole."""

import collections
import gzip
import os
from concurrent.futures import ThreadPoolExecutor

#: bytes compressed as one member: large enough that a member's header and trailer (18 bytes) and
#: its fresh dictionary cost nothing, small enough to keep every core busy on a file of tens of MB
PIECE_BYTES = 1 << 22


class GzipWriter:
    """A binary file that gzip-compresses what is written to it, a piece at a time on a pool of
    threads, into `f`.

    Parameters
    ----------
    f : binary file
        Open for writing; left open.
    level : int, default 6
        zlib's compression level (gzip's default).
    """

    def __init__(self, f, level=6):
        self._f = f
        self._level = level
        self._workers = os.cpu_count() or 1
        self._pool = ThreadPoolExecutor(max_workers=self._workers)
        self._pending = collections.deque()
        self._piece = bytearray()
        self._written = 0

    def write(self, data):
        """Compress `data` (bytes-like) after what was written before.

        Parameters
        ----------
        data : bytes-like

        Returns
        -------
        int
            Its length.
        """
        view = memoryview(data).cast("B")
        self._piece += view
        self._written += len(view)
        while len(self._piece) >= PIECE_BYTES:
            self._submit(bytes(self._piece[:PIECE_BYTES]))
            del self._piece[:PIECE_BYTES]
        return len(view)

    def tell(self):
        """Bytes written so far, before compression (int)."""
        return self._written

    def flush(self):
        """Nothing to do before close: members are written in order as they are compressed."""

    def _submit(self, piece):
        self._pending.append(self._pool.submit(gzip.compress, piece, self._level, mtime=0))
        while len(self._pending) > 2 * self._workers:
            self._f.write(self._pending.popleft().result())

    def close(self):
        """Compress what is left and write every member, in order."""
        if self._piece or not self._written:  # an empty text is one empty member
            self._submit(bytes(self._piece))
            self._piece = bytearray()
        while self._pending:
            self._f.write(self._pending.popleft().result())
        self._pool.shutdown()

    def abandon(self):
        """Drop what is pending, after a failed write."""
        for future in self._pending:
            future.cancel()
        self._pool.shutdown()
