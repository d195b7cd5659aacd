"""Files written whole or not at all: a temporary beside the target, renamed over it when the write
succeeds, and the temporaries of killed writers removed."""

import contextlib
import errno
import gzip
import hashlib
import os
import secrets
import socket
import time
from pathlib import Path

from ._gzip import GzipWriter

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
        if str(path).endswith(".gz") and "b" in mode:
            with open(tmp, "wb") as raw:
                f = GzipWriter(raw)
                try:
                    yield f
                except BaseException:
                    f.abandon()
                    raise
                f.close()
        elif str(path).endswith(".gz"):
            with gzip.open(tmp, "wt", compresslevel=6) as f:
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
