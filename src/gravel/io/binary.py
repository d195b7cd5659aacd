"""gravel's binary format (``.gravel``): NumPy ``.npy`` records back to back in one file.

A header record [magic, version, directed, has weights, has labels, checksum], then offsets,
indices and the optional weights and labels. Reading parses the headers and memory-maps the arrays
(read-only): no zip container, no copy and no memory of the process's own besides the page cache,
so a graph larger than half the host's memory loads, and the cache is at least 10x faster than
parsing text. The checksum (CRC-32 of the arrays' lengths and bytes, about 4 GB/s) is checked on
every read, so a file changed after gravel wrote it is an error naming the file, never a different
graph. Version 1 files (no checksum) are still read, with the graph's own checks only.

A copy in the binary cache (:mod:`gravel.io._cache`) carries one more record after the arrays: a
keyed checksum (HMAC-SHA256 under a key only its user can read, about 1 GB/s) of the header and
the arrays. Read with its key, a file is accepted only in the current version with that record
intact, checked in place of the CRC-32: a file planted or rewritten with a recomputed CRC-32, or
as version 1, is refused.

gravel replaces files whole (written beside, then renamed), so a graph mapped from a file keeps
its arrays when the file is rewritten; a file changed in place by other tools while a graph maps
it changes that graph (or, truncated, ends the process with SIGBUS).
"""

import hashlib
import hmac
import mmap
import zlib

import numpy as np
from numpy.lib import format as npformat

from ..errors import GraphFormatError, InvalidGraphError
from ..graph import Graph

MAGIC = 0x67726176  # "grav"
VERSION = 2
_HEADS = {1: 5, 2: 6}  # version: length of its header record


def checksum(arrays):
    """CRC-32 of the arrays' lengths, then of each array's bytes, in order (None: absent).

    Parameters
    ----------
    arrays : sequence of numpy.ndarray or None
        The arrays; an absent one counts as length -1.

    Returns
    -------
    int
        The CRC-32, 0 .. 2**32 - 1.
    """
    lengths = np.array([-1 if a is None else a.size for a in arrays], np.int64)
    crc = zlib.crc32(lengths.tobytes())
    for a in arrays:
        if a is not None:
            crc = zlib.crc32(np.ascontiguousarray(a).view(np.uint8).reshape(-1), crc)
    return crc


def keyed_checksum(arrays, key):
    """HMAC-SHA256 under `key` of the arrays' lengths, then of each array's bytes, in order.

    Parameters
    ----------
    arrays : sequence of numpy.ndarray or None
        The arrays; an absent one counts as length -1.
    key : bytes
        The secret key.

    Returns
    -------
    bytes
        The 32-byte digest.
    """
    lengths = np.array([-1 if a is None else a.size for a in arrays], np.int64)
    mac = hmac.new(key, lengths.tobytes(), hashlib.sha256)
    for a in arrays:
        if a is not None:
            mac.update(np.ascontiguousarray(a).view(np.uint8).reshape(-1))
    return mac.digest()


def read(path, key=None):
    """The Graph stored at `path`.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.gravel`` file.
    key : bytes, optional
        A cached copy's key: the file must then be of the current version and end in its keyed
        checksum under `key` (:func:`keyed_checksum`), checked in place of the CRC-32.

    Returns
    -------
    Graph
        Its arrays memory-mapped from the file, read-only (a record off its alignment is
        copied). A version 2 file's arrays are trusted once the checksum matches.

    Raises
    ------
    GraphFormatError
        The file is not one gravel wrote (bad header, unknown version, truncated), was changed
        since (checksum mismatch) or, version 1, holds an invalid graph; naming `path`. With
        `key`: a version other than the current one, or a keyed checksum missing or not matching.
    """
    try:
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            head = npformat.read_array(f, allow_pickle=False)
            if head.ndim != 1 or len(head) < 2 or int(head[0]) != MAGIC:
                raise GraphFormatError("not a gravel binary graph (bad header)", path)
            version = int(head[1])
            if version not in _HEADS:
                raise GraphFormatError(
                    f"binary format version {version}, this gravel reads 1 and {VERSION}", path
                )
            if head.shape != (_HEADS[version],):
                raise GraphFormatError("not a gravel binary graph (bad header)", path)
            directed, weighted, labelled = (bool(x) for x in head[2:5])
            present = (True, True, weighted, labelled)
            arrays = [_map_array(f, mapped) if p else None for p in present]
            if key is not None:
                _check_keyed(path, f, mapped, version, [head, *arrays], key)
    except (ValueError, OSError, EOFError) as e:
        if isinstance(e, GraphFormatError):
            raise
        raise GraphFormatError(f"not a gravel binary graph, or truncated ({e})", path) from None
    if key is None and version >= 2 and checksum(arrays) != int(head[5]):
        raise GraphFormatError(
            "checksum mismatch: the file changed after gravel wrote it (damaged or edited)", path
        )
    offsets, indices, weights, labels = arrays
    # a checksummed file holds what gravel wrote from a valid graph: its ids and mirror stand
    whole = version >= 2
    try:
        return Graph.from_csr(
            offsets,
            indices,
            weights,
            directed=directed,
            labels=labels,
            trusted=whole,
            sorted_rows=True,
        )
    except InvalidGraphError as e:
        raise GraphFormatError(f"not a valid graph: {e}", path) from None


def _check_keyed(path, f, mapped, version, arrays, key):
    """Raise GraphFormatError naming `path` unless the file is of the current version and its
    last record, at `f`, is the keyed checksum of `arrays` (the header and the graph's)."""
    if version != VERSION:
        raise GraphFormatError(
            f"binary format version {version}: the cache holds version {VERSION} only", path
        )
    if f.tell() == len(mapped):
        raise GraphFormatError("no keyed checksum: not a copy this user's gravel cached", path)
    tag = _map_array(f, mapped)
    if tag.dtype != np.uint8 or f.tell() != len(mapped):
        raise GraphFormatError("not a gravel binary graph (bad keyed checksum record)", path)
    if not hmac.compare_digest(tag.tobytes(), keyed_checksum(arrays, key)):
        raise GraphFormatError(
            "checksum mismatch: the file changed after gravel cached it (damaged, edited, or "
            "not written by this user's gravel)",
            path,
        )


def _map_array(f, mapped):
    """The ``.npy`` record at `f`'s position, as a read-only view of `mapped` (the whole file);
    `f` moves past it."""
    version = npformat.read_magic(f)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f".npy format version {version}")
    read_header = (
        npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0
    )
    shape, _, dtype = read_header(f)
    if dtype.hasobject or len(shape) != 1:
        raise ValueError("a record that is not a 1-D array of numbers or strings")
    start = f.tell()
    end = start + shape[0] * dtype.itemsize
    if end > len(mapped):
        raise EOFError(f"{len(mapped) - start} bytes left of a {end - start}-byte array")
    f.seek(end)
    a = np.frombuffer(mapped, dtype, shape[0], start)
    # records follow one another unpadded: one after an odd count of 4-byte items (labels, after
    # the arcs) may start off its alignment, and is copied rather than read unaligned
    return a if a.flags.aligned else a.copy()


def write(f, G, key=None):
    """Write `G` in gravel's binary format, version 2 with its checksum.

    Parameters
    ----------
    f : binary file
        Open for writing.
    G : Graph
        Its offsets, indices, weights and labels are stored, not its order.
    key : bytes, optional
        A cached copy's key: a last record holds the keyed checksum (:func:`keyed_checksum`) of
        the header and the arrays, which :func:`read` with the same key requires.

    Raises
    ------
    GraphFormatError
        Labels of Python objects (``dtype=object``), which cannot be stored: relabel the graph
        first.
    """
    if G.labels is not None and G.labels.dtype == object:
        raise GraphFormatError("labels of Python objects cannot be stored; relabel the graph first")
    arrays = [
        None if a is None else np.ascontiguousarray(a)
        for a in (G.offsets, G.indices, G.weights, G.labels)
    ]
    head = np.array(
        [
            MAGIC,
            VERSION,
            G.directed,
            G.weights is not None,
            G.labels is not None,
            checksum(arrays),
        ],
        np.int64,
    )
    records = [head, *arrays]
    if key is not None:
        records.append(np.frombuffer(keyed_checksum(records, key), np.uint8))
    for a in records:
        if a is not None:
            npformat.write_array(f, a, allow_pickle=False)
