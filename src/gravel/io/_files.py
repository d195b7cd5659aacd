"""File plumbing shared by the readers and writers: gzip, progress, atomic writes, the binary
cache."""

import contextlib
import gzip
import hashlib
import os
import tempfile
import zlib
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..errors import GraphFormatError

_CHUNK = 1 << 22


def progress(total, desc, enabled=None, unit="B"):
    """A tqdm bar on stderr that appears only if the work takes more than a second."""
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


def read_bytes(path, show_progress=None):
    """The whole (decompressed) file as a uint8 array, with a progress bar for slow reads."""
    path = Path(path)
    size = path.stat().st_size
    gz = is_gzip(path)
    parts = []
    with open(path, "rb") as f, progress(size, f"reading {path.name}", show_progress) as bar:
        z = zlib.decompressobj(16 + zlib.MAX_WBITS) if gz else None
        while chunk := f.read(_CHUNK):
            bar.update(len(chunk))
            if z is None:
                parts.append(chunk)
                continue
            try:
                parts.append(z.decompress(chunk))
                # concatenated gzip members: start a new decompressor on what is left
                while z.eof and z.unused_data:
                    rest = z.unused_data
                    z = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    parts.append(z.decompress(rest))
            except zlib.error as e:
                raise GraphFormatError(f"corrupt gzip data ({e})", path) from None
        if z is not None and not z.eof:
            raise GraphFormatError("truncated gzip file", path)
    data = b"".join(parts)
    # a UTF-8 byte-order mark (Windows editors write one) is not part of the first line
    return np.frombuffer(data, np.uint8, offset=3 if data[:3] == b"\xef\xbb\xbf" else 0)


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


@contextlib.contextmanager
def atomic_write(path, mode="wb"):
    """Write to a temporary file beside `path`, renamed over it only when the block succeeds."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    os.close(fd)
    try:
        if str(path).endswith(".gz"):
            with gzip.open(tmp, mode if "b" in mode else "wt", compresslevel=6) as f:
                yield f
        else:
            with open(tmp, mode) as f:
                yield f
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def cache_dir():
    return Path(os.environ.get("GRAVEL_CACHE_DIR") or Path.home() / ".cache" / "gravel")


def cache_path(path, options):
    """Where the binary copy of a text graph loaded with `options` lives."""
    st = Path(path).stat()
    key = f"{Path(path).resolve()}|{st.st_size}|{st.st_mtime_ns}|{sorted(options.items())}|v3"
    return cache_dir() / (hashlib.sha1(key.encode()).hexdigest()[:24] + ".gravel")


def write_rows(f, cols, fmt, chunk=1 << 20):
    """Write columns of numbers as text lines, a chunk at a time to bound memory."""
    for a in range(0, len(cols[0]), chunk):
        np.savetxt(f, np.column_stack([c[a : a + chunk] for c in cols]), fmt=fmt)
