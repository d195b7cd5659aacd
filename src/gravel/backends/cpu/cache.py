"""Numba's on-disk cache for gravel's kernels, keyed by what their source files hold.

Numba keeps a kernel's machine code beside its source (``__pycache__/*.nbi`` and ``*.nbc``) and
throws it away when the source's stamp changes. Before Numba 0.68 the stamp was the file's
modification time and size, and installing a wheel gives every file the install's time: the
kernels compiled when the wheel was built (``python -m gravel.prebuild_cpu``) would all miss.
:func:`install` puts locators first in Numba's list whose stamp is a hash of the file's bytes, for
gravel's own files only, so a cache stays valid wherever its source is copied, and a changed source
still misses. Numba's version and the CPU stay in the cache's key, as Numba has them. Where the
install's folders cannot be written (a system-wide install), Numba caches in the user's folder
instead: the kernels compiled into the install are copied there first (:func:`seed`).

This leans on Numba's internals (``numba.core.caching``); where they are not as expected,
:func:`install` does nothing and kernels compile at first use, as without the cache.
"""

import contextlib
import functools
import hashlib
import os
import shutil
from pathlib import Path

#: folders whose Python files get content stamps: gravel's package
ROOTS = [Path(__file__).resolve().parents[2]]

_installed = []


@functools.lru_cache(maxsize=None)
def _hash(path, mtime_ns, size):
    # keyed by the file's stat too, so that a file changed while the process runs is hashed again
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def content_stamp(path):
    """A source file's stamp for Numba's cache: the SHA-256 of its bytes.

    Parameters
    ----------
    path : str or path-like
        The Python source file.

    Returns
    -------
    bytes
        The digest; equal for two files of the same bytes, whatever their times.

    Raises
    ------
    OSError
        Where the file cannot be read.
    """
    st = os.stat(path)
    return _hash(os.fspath(path), st.st_mtime_ns, st.st_size)


#: the suffixes of Numba's cache files: an index per function, the machine code of each instance
CACHE_SUFFIXES = (".nbi", ".nbc")


@functools.lru_cache(maxsize=None)
def seed(cache_path, py_file):
    """Copy the cache compiled into the install beside `py_file` into `cache_path`, where Numba
    caches it instead, for what `cache_path` lacks (once per process and pair).

    Parameters
    ----------
    cache_path : str
        The folder Numba caches `py_file`'s kernels in.
    py_file : str
        The kernels' source file.

    Returns
    -------
    int
        How many files were copied.
    """
    source = Path(py_file).parent / "__pycache__"
    target = Path(cache_path)
    if not source.is_dir() or source.resolve() == target.resolve():
        return 0
    copied = 0
    for f in source.glob(f"{Path(py_file).stem}.*"):
        if f.suffix in CACHE_SUFFIXES and not (target / f.name).exists():
            partial = target / f"{f.name}.{os.getpid()}.tmp"
            with contextlib.suppress(OSError):
                shutil.copyfile(f, partial)
                os.replace(partial, target / f.name)  # whole: another process may read it now
                copied += 1
    return copied


def _ours(py_file):
    """Whether `py_file` lies under one of :data:`ROOTS`."""
    path = Path(py_file).resolve()
    return any(path.is_relative_to(root) for root in ROOTS)


def _content_stamped(base):
    """`base`, a Numba locator backed by a source file, for files under :data:`ROOTS` only and
    with :func:`content_stamp` as its stamp."""

    class Locator(base):
        @classmethod
        def from_function(cls, py_func, py_file):
            if not _ours(py_file):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return content_stamp(self._py_file)

        def ensure_cache_path(self):
            super().ensure_cache_path()
            seed(self.get_cache_path(), self._py_file)

    Locator.__name__ = Locator.__qualname__ = f"ContentStamped{base.__name__.lstrip('_')}"
    return Locator


def _numba_locators():
    """Numba's list of locator classes and its file-backed mixin, or None where its internals are
    not those this module knows."""
    try:
        from numba.core import caching
    except ImportError:
        return None
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    mixin = getattr(caching, "_SourceFileBackedLocatorMixin", None)
    classes = getattr(impl, "_locator_classes", None)
    if mixin is None or not isinstance(classes, list):
        return None
    return classes, mixin


def install():
    """Have Numba stamp gravel's cached kernels by their source's content (once per process).

    Numba's own file-backed locators (a user-given ``NUMBA_CACHE_DIR``, the source's
    ``__pycache__`` where it is writable, else the user's cache folder) each get a content-stamped
    twin for gravel's files, put before all of Numba's in the same order. It must run before a
    kernel module's ``@njit(cache=True)`` definitions do: :mod:`gravel.backends.cpu` calls it as
    it loads each kernel module.

    Returns
    -------
    bool
        True where the locators are in place, False where Numba's internals differ (kernels then
        are cached as Numba does by itself).
    """
    if _installed:
        return True
    found = _numba_locators()
    if found is None:
        return False
    classes, mixin = found
    ours = [_content_stamped(cls) for cls in classes if issubclass(cls, mixin)]
    if not ours:
        return False
    classes[:0] = ours
    _installed.extend(ours)
    return True
