"""The binary cache of text graphs: a .gravel copy of each text file loaded, read in its place
while the file is unchanged.

What it trusts, and why another user cannot plant a graph in it:

- The folder ($GRAVEL_CACHE_DIR, default ~/.cache/gravel) is created 0700 (an existing one of the
  user's own is narrowed to 0700). A folder, copy or key not owned by the user, or writable by
  group or others, is ignored with a warning naming it: a folder so is not used at all, a copy
  so is rebuilt (replaced), a key so is replaced by a new one. So no other user can write in a
  folder gravel uses: this check alone makes planting impossible.
- A per-user secret (the file ``key`` in the folder, 0600, 32 random bytes) derives each copy's
  name and the key of its keyed checksum (:func:`gravel.io.binary.keyed_checksum`) from the
  source's identity: its resolved path, device, inode, size, modification and change times, the
  load options, and the binary format's and the cache's versions. Names are not predictable
  without the secret, and a copy is read only in the current format with its keyed checksum: one
  rewritten as an older version, or edited with its plain CRC-32 recomputed, is rebuilt.
- A copy is no more open than its source (the source's permission bits less the umask; the
  owner may always read it), and is read only when the caller can read the source.
"""

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
import warnings
from pathlib import Path
from typing import NamedTuple

from ..errors import GraphFormatError
from . import binary
from ._atomic import atomic_write

#: the identity's version: 3 named a copy by a plain SHA-1 of the identity
_LAYOUT = 4
_KEY_NAME = "key"
_KEY_BYTES = 32
#: warnings point at the caller of gravel.load: it -> load -> entry, read or write -> _warn
_STACK = 4


class Entry(NamedTuple):
    """Where a source's copy lives, under which key, and the permission bits it gets."""

    file: Path
    key: bytes
    perm: int


def cache_dir():
    """The cache folder: $GRAVEL_CACHE_DIR, default ~/.cache/gravel.

    Returns
    -------
    pathlib.Path
    """
    return Path(os.environ.get("GRAVEL_CACHE_DIR") or Path.home() / ".cache" / "gravel")


def _warn(message, deeper=0):
    warnings.warn(message, UserWarning, stacklevel=_STACK + deeper)


def _untrusted(st):
    """Why a folder or file with stat `st` is not to be trusted, or None."""
    if st.st_uid != os.geteuid():
        return f"owned by uid {st.st_uid}, not by this user (uid {os.geteuid()})"
    if st.st_mode & 0o022:
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def entry(source, options):
    """The cache entry of `source` loaded with `options`, or None where the cache is not used
    (its folder cannot be made or is not trusted: one warning names it).

    Parameters
    ----------
    source : pathlib.Path
        The text file, readable by the caller.
    options : dict
        The load options that shape the graph.

    Returns
    -------
    Entry or None
    """
    folder = cache_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.stat()
    except OSError as e:
        _warn(f"could not write the binary cache {folder}: {e}")
        return None
    why = "not a folder" if not stat.S_ISDIR(st.st_mode) else _untrusted(st)
    if why is not None:
        _warn(f"not using the binary cache {folder}: {why}")
        return None
    if st.st_mode & 0o077:  # the user's own, made by an older gravel: copies were readable
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
    secret = _secret(folder / _KEY_NAME)
    if secret is None:
        return None
    src = source.stat()
    identity = repr(
        (
            str(source.resolve()),
            src.st_dev,
            src.st_ino,
            src.st_size,
            src.st_mtime_ns,
            src.st_ctime_ns,  # which no one sets: a file rewritten and its time set back
            sorted(options.items()),
            binary.VERSION,
            _LAYOUT,
        )
    ).encode()
    name = hmac.new(secret, b"name\0" + identity, hashlib.sha256).hexdigest()[:32]
    key = hmac.new(secret, b"checksum\0" + identity, hashlib.sha256).digest()
    return Entry(folder / f"{name}.gravel", key, (stat.S_IMODE(src.st_mode) & 0o666) | 0o400)


def _secret(path):
    """The user's secret at `path`, made where absent and replaced where not trusted (with a
    warning naming it); None where it can be neither read nor made (with a warning)."""
    why = None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO never blocks
    except FileNotFoundError:
        pass
    except OSError as e:
        why = f"unreadable ({e.strerror})"
    else:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            secret = f.read(_KEY_BYTES + 1)
        why = _untrusted(st)
        if why is None and st.st_mode & 0o077:
            why = f"readable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
        if why is None and (not stat.S_ISREG(st.st_mode) or len(secret) != _KEY_BYTES):
            why = "not a key gravel wrote"
        if why is None:
            return secret
    if why is not None:
        _warn(f"replacing the binary cache's key {path}: {why}", deeper=1)
    secret = secrets.token_bytes(_KEY_BYTES)
    try:
        with atomic_write(path, perm=0o600) as f:
            f.write(secret)
    except OSError as e:
        _warn(f"could not write the binary cache {path}: {e}", deeper=1)
        return None
    # another process may have written one at the same time: the copies are found under the
    # key that stayed
    with contextlib.suppress(OSError), open(path, "rb") as f:
        kept = f.read(_KEY_BYTES + 1)
        secret = kept if len(kept) == _KEY_BYTES else secret
    return secret


def read(e, source):
    """The graph of cache entry `e` of `source`, or None where there is none to trust (a copy
    damaged, planted or not trusted is rebuilt by :func:`write`: one warning names it).

    Parameters
    ----------
    e : Entry
        From :func:`entry`.
    source : pathlib.Path
        The text file, named in the warnings.

    Returns
    -------
    Graph or None
    """
    try:
        st = os.lstat(e.file)
    except FileNotFoundError:
        return None
    except OSError as err:
        _warn(f"rebuilding the binary cache of {source}: {err}")
        return None
    why = "not a regular file" if not stat.S_ISREG(st.st_mode) else _untrusted(st)
    if why is not None:
        _warn(f"rebuilding the binary cache of {source}: {e.file}: {why}")
        return None
    try:
        return binary.read(e.file, key=e.key)
    except GraphFormatError as err:
        # the copy is rebuilt (and replaced) by write, so this warns once per damage
        _warn(f"rebuilding the binary cache of {source}: {err}")
        return None


def write(e, G):
    """Store `G` as cache entry `e` (a warning where it cannot be written).

    Parameters
    ----------
    e : Entry
        From :func:`entry`.
    G : Graph
        The graph parsed from the entry's source.
    """
    try:
        with atomic_write(e.file, perm=e.perm) as f:
            binary.write(f, G, key=e.key)
    except OSError as err:
        _warn(f"could not write the binary cache {e.file}: {err}")
