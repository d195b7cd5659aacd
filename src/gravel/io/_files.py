"""File plumbing shared by the readers and writers: texts read in chunks (gzip decompressed as they
are read), progress bars, text written in lines."""

import functools
import os
import queue
import stat
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..errors import GraphFormatError

_CHUNK = 1 << 22


def progress(total, desc, enabled=None, unit="B"):
    """A tqdm bar on stderr that appears only if the work takes more than a second.

    Parameters
    ----------
    total : int
        Units of work, for the bar's length.
    desc : str
        The bar's label.
    enabled : bool, optional
        False hides the bar; None or True shows it once the work outlasts a second.
    unit : str, default "B"
        The unit counted (bytes, scaled as kB, MB, ...).

    Returns
    -------
    tqdm.tqdm
        A context manager; ``update(k)`` advances it by k units.
    """
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=True,
        delay=1.0,
        leave=False,
        disable=(enabled is False),
    )


def is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


#: decompressed bytes parsed at a time, per thread: a few MB a chunk keep memory flat (the
#: chunk's rows take some 16 bytes each until they are packed), give every thread its share and
#: let Ctrl-C through between chunks (docs/tuning.md)
TEXT_CHUNK = 1 << 20

#: the head of a text, where its header is read, holds at least this many bytes
HEAD_BYTES = 1 << 16

#: a plain file's text is read on several threads at once in parts of at least this many bytes,
#: by READ_THREADS threads at most (docs/tuning.md, Text read in parts)
READ_PART = 1 << 20
READ_THREADS = 8


@functools.cache
def _readers():
    """The threads that read a text's parts (made at the first large read; a forked child, which
    has none of its parent's threads, makes its own)."""
    return ThreadPoolExecutor(READ_THREADS, thread_name_prefix="gravel-read")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_readers.cache_clear)


class Text:
    """A text file read a chunk of lines at a time into one buffer (gzip decompressed as it is
    read), with a progress bar of the bytes read. A UTF-8 byte-order mark is not part of the first
    line, and a file whose first chunk holds no LF but a CR has a CR alone end each line (classic
    Mac).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    show_progress : bool, optional
        As for :func:`progress`.

    Attributes
    ----------
    head : numpy.ndarray of uint8
        The text's first HEAD_BYTES bytes or chunk, whichever is more (the whole text, if
        shorter), for the header; valid until :meth:`chunks` runs.
    whole : bool
        Whether `head` is the whole text.
    """

    def __init__(self, path, show_progress=None):
        self.path = Path(path)
        self._file = open(self.path, "rb")
        size = os.fstat(self._file.fileno()).st_size
        self._bar = progress(size, f"reading {self.path.name}", show_progress)
        gz = is_gzip(self.path)
        self._spill = memoryview(b"")  # decompressed bytes that did not fit the buffer
        self._closed = threading.Event()
        self._pieces = queue.Queue(maxsize=2)
        self._inflater = threading.Thread(target=self._inflating, daemon=True) if gz else None
        # a plain text shorter than a chunk needs a buffer no longer than itself
        import numba  # the parse's threads: reading text runs Numba's kernels anyway

        self._chunk = TEXT_CHUNK * numba.get_num_threads()
        self._size, self._gz = size, gz
        # read in parts at offsets: a regular file, where the system has preadv
        mode = os.fstat(self._file.fileno()).st_mode
        self._regular = stat.S_ISREG(mode) and hasattr(os, "preadv")
        room = self._chunk if gz else min(self._chunk, size + 1)
        self._buf = bytearray(max(room, HEAD_BYTES))
        self._start = self._end = 0
        self._eof = self._cr = False
        try:
            if gz:
                self._inflater.start()
            self._fill()
        except BaseException:
            self.__exit__()
            raise
        if self._buf[:3] == b"\xef\xbb\xbf":
            self._start = 3
        text = np.frombuffer(self._buf, np.uint8, self._end)
        self._cr = self._buf.find(b"\n", 0, self._end) < 0 and 13 in text
        if self._cr:
            text[text == 13] = 10
        self.whole = self._eof
        self.head = text[self._start :]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._closed.set()
        if self._inflater is not None and self._inflater.is_alive():
            self._inflater.join()
        self._bar.close()
        self._file.close()

    def _fill(self):
        """Fill the buffer after its text, to its end or the file's."""
        end = self._end
        while self._end < len(self._buf) and not self._eof:
            room = memoryview(self._buf)[self._end :]
            if self._inflater is not None:
                got = self._inflate(room)
            elif self._regular and len(room) >= 2 * READ_PART:
                got = self._read_parts(room)
            else:
                got = self._file.readinto(room)
            self._bar.update(got if self._inflater is None else 0)
            self._eof = got == 0
            self._end += got
        if self._cr:
            text = np.frombuffer(self._buf, np.uint8, self._end - end, end)
            text[text == 13] = 10

    def _read_parts(self, room):
        """Read into `room` in parts on READ_THREADS threads at once (a page cache copies to one
        thread at a fraction of the memory's speed); the bytes read, short only at the end."""
        at = self._file.tell()
        parts = min(READ_THREADS, len(room) // READ_PART)
        bounds = [len(room) * k // parts for k in range(parts + 1)]
        fd = self._file.fileno()

        def read(k):
            part, done = room[bounds[k] : bounds[k + 1]], 0
            while done < len(part) and (got := os.preadv(fd, [part[done:]], at + bounds[k] + done)):
                done += got
            return done

        futures = [_readers().submit(read, k) for k in range(parts)]
        try:
            done = [f.result() for f in futures]
        finally:  # no thread writes into `room` once this returns or raises (Ctrl-C)
            wait(futures)
        got = 0
        for k, part in enumerate(done):
            got += part
            if part < bounds[k + 1] - bounds[k]:  # the file's end: the parts after it read none
                break
        self._file.seek(at + got)
        return got

    def _inflating(self):
        """The file's text, decompressed on a thread of its own while the caller parses: pieces
        of it into the queue, then b"" (or the error met)."""
        try:
            z = zlib.decompressobj(16 + zlib.MAX_WBITS)
            while chunk := self._file.read(_CHUNK):
                try:
                    out = [z.decompress(chunk)]
                    # concatenated gzip members: start a new decompressor on what is left
                    while z.eof and z.unused_data:
                        rest = z.unused_data
                        z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                        out.append(z.decompress(rest))
                except zlib.error as e:
                    raise GraphFormatError(f"corrupt gzip data ({e})", self.path) from None
                if (piece := b"".join(out)) and not self._put((piece, len(chunk))):
                    return
            if not z.eof:
                raise GraphFormatError("truncated gzip file", self.path)
            self._put((b"", 0))
        except Exception as e:  # the caller raises it
            self._put((e, 0))

    def _put(self, item):
        """Queue `item` unless the text is closed meanwhile; whether it was queued."""
        while not self._closed.is_set():
            try:
                self._pieces.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _inflate(self, room):
        """Decompressed text into `room`; the bytes written (0 at the end)."""
        while not self._spill:
            piece, read = self._pieces.get()
            self._bar.update(read)
            if isinstance(piece, Exception):
                raise piece
            if not piece:
                return 0
            self._spill = memoryview(piece)
        got = min(len(room), len(self._spill))
        room[:got] = self._spill[:got]
        self._spill = self._spill[got:]
        return got

    def skip(self, size):
        """Leave out the text's first `size` bytes (a header read from `head`)."""
        self._start += size

    def chunks(self, size=None, buffers=None):
        """The text (less what `skip` left out), in chunks of whole lines. Each chunk is a view of
        the one buffer, valid until the next is asked for, or of a buffer `buffers` gave.

        Parameters
        ----------
        size : int, optional
            The bytes of a chunk (a longer line whole); default TEXT_CHUNK a thread.
        buffers : callable, optional
            ``size -> uint8 array`` of at least `size` bytes: each chunk is read straight into
            the one it returns (the end of a line the chunk before left unfinished copied to its
            start), which the caller owns with the chunk; called again before the chunk comes
            where a line is longer than the buffer. Default: the one buffer of the text.

        Yields
        ------
        numpy.ndarray of uint8
            About `size` bytes each, ending at a line's end but the last.
        """
        if size is not None:
            self._chunk = size
        room = self._chunk if self._gz else min(self._chunk, self._size + 1)
        if buffers is None and room > len(self._buf):
            # a new buffer: `head` stays a view of the old one
            self._buf = self._buf[: self._end] + bytearray(room - self._end)
        take = buffers is not None  # a buffer of the caller's for the next chunk
        while True:
            rest = self._end - self._start
            if take:
                fresh = buffers(max(room, rest + 1))
                fresh[:rest] = np.frombuffer(self._buf, np.uint8, rest, self._start)
                self._buf, take = fresh, False
            elif rest and self._start:
                self._buf[:rest] = self._buf[self._start : self._end]
            self._start, self._end = 0, rest
            self._fill()
            if not self._end:
                return
            cut = _line_end(self._buf, min(self._end, self._chunk), self._end)
            if self._eof and (not cut or self._end <= self._chunk):
                cut = self._end
            if not cut:  # a line longer than the buffer: a larger one
                size = 2 * len(self._buf)
                bigger = bytearray(size) if buffers is None else buffers(size)
                bigger[: self._end] = memoryview(self._buf)[: self._end]
                self._buf = bigger
                continue
            self._start = cut
            yield np.frombuffer(self._buf, np.uint8, cut)
            take = buffers is not None


def _line_end(buf, limit, end, window=1 << 16):
    """One past the last LF of ``buf[:limit]``, else one past the first of ``buf[limit:end]``,
    else 0 (`buf` a bytearray or a uint8 array: searched a window at a time)."""
    text = np.frombuffer(buf, np.uint8, end)
    for hi in range(limit, 0, -window):
        at = np.flatnonzero(text[max(hi - window, 0) : hi] == 10)
        if at.shape[0]:
            return max(hi - window, 0) + int(at[-1]) + 1
    for lo in range(limit, end, window):
        at = np.flatnonzero(text[lo : lo + window] == 10)
        if at.shape[0]:
            return lo + int(at[0]) + 1
    return 0


def split_header(buf, is_header):
    """Split leading lines off ``buf`` while ``is_header(line: bytes)`` holds.

    Returns (header lines as str, the rest of buf, number of lines taken).
    """
    lines = []
    p = 0
    raw = buf.tobytes() if len(buf) < 1 << 16 else bytes(buf[: 1 << 16])
    while p < len(raw):
        q = raw.find(b"\n", p)
        q = len(raw) if q < 0 else q
        line = raw[p:q]
        if not is_header(line):
            break
        lines.append(line.decode("utf-8", "replace").rstrip("\r"))
        p = q + 1
    return lines, buf[p:], len(lines)


#: texts of up to this many lines are written by NumPy (nothing to compile); longer ones by the
#: parallel kernels of gravel.backends.cpu.printing
SMALL_TEXT_ROWS = 1 << 16


def arc_blocks(G, half=None):
    """G's arcs, a block of rows at a time (about a million arcs), as ``(src, dst, weights or
    None)``; `half` ``"<="`` or ``">="`` keeps those with ``src <= dst`` or ``src >= dst`` (an
    undirected graph's edges once)."""
    from ..backends.cpu.csr import row_blocks

    for src, dst, w in row_blocks(G.offsets, G.indices, G.weights)():
        if half is not None:
            keep = src <= dst if half == "<=" else src >= dst
            src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
        yield src, dst, w


def write_lines(f, blocks, *, lead=b"", sep=b" ", add=0, weights="none", rows=None):
    """Write a text line per arc of `blocks`: ``lead src+add sep dst+add [sep weight]``, formatted
    on every thread into a buffer written a block at a time (never a Python string per line).

    Parameters
    ----------
    f : binary file
        Open for writing.
    blocks : iterable of (src, dst, weights or None)
        The arcs.
    lead, sep : bytes
        Before each line, and between the columns.
    add : int, default 0
        Added to the ids (1 for 1-based formats).
    weights : {"none", "whole", "real"}
        No weight column, whole numbers, or C's ``%.9g`` (which reads back as the same float32).
    rows : int, optional
        The lines to write, when known: few of them are written by NumPy (SMALL_TEXT_ROWS).
        Weights None in a block with a weight column write ones.
    """
    from ..backends.cpu import chunks
    from ..backends.cpu import printing as out

    kind = {"none": out.NO_WEIGHT, "whole": out.WHOLE, "real": out.REAL}[weights]
    bar = progress(None, "writing", unit="B")
    buffer = np.empty(0, np.uint8)
    with bar:
        for src, dst, w in blocks:
            m = src.shape[0]
            if rows is not None and rows <= SMALL_TEXT_ROWS:
                _write_small(f, src, dst, w, lead, sep, add, weights)
                continue
            pieces = chunks()
            per = -(-m // pieces)
            if buffer.shape[0] < per * pieces * out.ROW_BYTES:
                # room for the longest lines; only the pages written are ever touched
                buffer = np.empty(per * pieces * out.ROW_BYTES, np.uint8)
            lengths = np.empty(pieces, np.int64)
            if w is None:  # a weight column of ones (DIMACS arcs of an unweighted graph)
                w = np.ones(m if kind != out.NO_WEIGHT else 0, np.float32)
            lead_bytes = np.frombuffer(lead, np.uint8)
            out.format_rows(src, dst, w, add, lead_bytes, sep[0], kind, pieces, buffer, lengths)
            for b in range(pieces):
                start = b * per * out.ROW_BYTES
                f.write(memoryview(buffer[start : start + lengths[b]]))
            bar.update(int(lengths.sum()))


def _write_small(f, src, dst, w, lead, sep, add, weights):
    """write_lines' lines, by NumPy."""
    cols = [src.astype(np.int64) + add, dst.astype(np.int64) + add]
    fmt = lead.decode() + "%d" + sep.decode() + "%d"
    if weights != "none":
        cols.append(w if w is not None else np.ones(len(src)))
        fmt += sep.decode() + ("%d" if weights == "whole" else "%.9g")
    if len(src):
        np.savetxt(f, np.column_stack(cols), fmt=fmt)
