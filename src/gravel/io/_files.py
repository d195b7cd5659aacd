"""File plumbing shared by the readers and writers: gzip, progress, atomic writes."""

import contextlib
import errno
import gzip
import hashlib
import os
import secrets
import socket
import time
import zlib
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


def read_bytes(path, show_progress=None):
    """The whole (decompressed) file as a uint8 array, with a progress bar for slow reads; a file
    whose lines end in a CR alone comes back with LFs."""
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
    if b"\n" not in data and b"\r" in data:  # classic Mac line ends: a CR alone ends each line
        data = data.replace(b"\r", b"\n")
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


#: temporaries of atomic_write: ".<name>.<host>-<pid>-<random>.gravel-tmp" beside the target
_TMP_SUFFIX = ".gravel-tmp"
_HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]
#: another host's temporary older than this is taken as abandoned
_FOREIGN_TMP_AGE_S = 24 * 3600


def check_writable(path):
    """Raise OSError naming `path` unless a file can be written there: its folder exists and is
    writable, and `path` is not a folder. Called before slow work and by atomic_write."""
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no such folder {str(folder)!r}", str(path))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"folder {str(folder)!r} is not writable", str(path))


def _remove_stale_temporaries(folder):
    """Delete temporaries of atomic_write in `folder` whose writer is gone (killed): its process
    no longer runs on this host, or it was another host's and is a day old."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for e in entries:
            if not (e.name.startswith(".") and e.name.endswith(_TMP_SUFFIX)):
                continue
            host, _, rest = e.name[: -len(_TMP_SUFFIX)].rpartition(".")[2].partition("-")
            pid = rest.partition("-")[0]
            if host == _HOST and pid.isdigit():
                if _running(int(pid)):
                    continue
            elif time.time() - e.stat().st_mtime < _FOREIGN_TMP_AGE_S:
                continue
            with contextlib.suppress(OSError):
                os.unlink(e.path)


def _running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


@contextlib.contextmanager
def atomic_write(path, mode="wb", perm=0o666):
    """Write to a temporary file beside `path`, renamed over it only when the block succeeds.

    The file is created with mode `perm` (0o666 by default) less the umask, as any tool's output
    is (a temporary file module would give 0600); one with fewer bits than 0o600 gets them only
    once written. Temporaries left by a killed write in the same folder are removed first. Errors
    name `path`, never the temporary (a full disk's too)."""
    path = Path(path)
    check_writable(path)
    folder = path.parent
    _remove_stale_temporaries(folder)
    token = f"{_HOST}-{os.getpid()}-{secrets.token_hex(4)}"
    tmp = folder / f".{path.name}.{token}{_TMP_SUFFIX}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, perm | 0o600)
    except OSError as e:
        raise type(e)(e.errno, e.strerror, str(path)) from None
    os.close(fd)
    try:
        if str(path).endswith(".gz"):
            with gzip.open(tmp, mode if "b" in mode else "wt", compresslevel=6) as f:
                yield f
        else:
            with open(tmp, mode) as f:
                yield f
        if perm | 0o600 != perm:  # created (perm | 0o600) less the umask: now perm less the umask
            os.chmod(tmp, os.stat(tmp).st_mode & perm)
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.errno is not None and e.filename is None:
            # a write's error (a full disk) names no file: this one names the output
            raise type(e)(e.errno, e.strerror, str(path)) from None
        raise


def write_rows(f, cols, fmt, chunk=1 << 20):
    """Write columns of numbers as text lines, a chunk at a time to bound memory."""
    for a in range(0, len(cols[0]), chunk):
        np.savetxt(f, np.column_stack([c[a : a + chunk] for c in cols]), fmt=fmt)
