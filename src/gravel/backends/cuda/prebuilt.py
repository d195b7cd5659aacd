"""Kernels built ahead of time: where their cubins lie and how the runtime finds one.

:mod:`gravel.prebuild` compiles the built-in algorithms' kernel instances into
``prebuilt/sm_<cc>/``: a cubin named by :func:`key`, the hash of the instance's full source, name,
options and launch kind, and ``names.json``, the lowered (mangled) names by key. It also keeps the
kernels CuPy compiled for the algorithms, in ``sm_<cc>/cupy/``, which :func:`seed_cupy_cache`
copies into the user's CuPy cache on a device's first use (their entries are named by CuPy's own
hash of source, options, CuPy and NVRTC versions, so a mismatched one is never read).

At run time :func:`find` looks an instance up by its hash, so an edited kernel, header or functor
never loads a stale cubin: it is compiled at first use instead.
"""

import contextlib
import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

#: options of every kernel module, ahead of time and at first use alike
OPTIONS = ("-std=c++17",)
#: where the cubins go, one folder per architecture
PREBUILT = Path(__file__).parent / "prebuilt"
#: set to "0" in the environment, the first GPU use seeds nothing (a capture's own run)
SEED = "GRAVEL_SEED_CUPY_CACHE"


def key(code, expr, cooperative):
    """The hash that names an instance's cubin.

    Parameters
    ----------
    code : str
        The instance's full source, headers inlined and prelude included.
    expr : str
        The kernel's name expression (a template instance).
    cooperative : bool
        Whether it launches cooperatively.

    Returns
    -------
    str
        32 hexadecimal digits of the SHA-256 of the source, name, launch kind and :data:`OPTIONS`.
    """
    text = "\0".join((code, expr, str(bool(cooperative)), *OPTIONS))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def arch_dir(cc, root=PREBUILT):
    """The folder of one architecture's cubins.

    Parameters
    ----------
    cc : tuple of int or str
        The compute capability, as ``(9, 0)`` or ``"90"``.
    root : path-like, optional
        The root folder of the cubins (the package's by default).

    Returns
    -------
    pathlib.Path
        ``root/sm_<cc>``, whether it exists or not.
    """
    return Path(root) / f"sm_{''.join(map(str, cc))}"


def read_names(folder):
    """The lowered names of the cubins in `folder`, read from its ``names.json``.

    Parameters
    ----------
    folder : pathlib.Path
        An architecture's folder (:func:`arch_dir`).

    Returns
    -------
    dict
        Lowered names by :func:`key`; empty where the file is missing or unreadable.
    """
    try:
        return json.loads((folder / "names.json").read_text())
    except (OSError, ValueError):
        return {}


def write_names(folder, names):
    """Replace `folder`'s ``names.json`` with `names` in one step, so that no reader sees it
    half written, and forget what :func:`find` read of it before.

    Parameters
    ----------
    folder : pathlib.Path
        An architecture's folder (:func:`arch_dir`), which must exist.
    names : dict
        Lowered names by :func:`key`.
    """
    tmp = folder / "names.json.tmp"
    tmp.write_text(json.dumps(names, indent=0, sort_keys=True))
    tmp.replace(folder / "names.json")
    _names.cache_clear()


@functools.cache
def _names(folder):
    return read_names(folder)


def find(code, expr, cooperative, cc, root=PREBUILT):
    """The instance built ahead of time for a card, if there is one.

    Parameters
    ----------
    code, expr, cooperative
        The instance, as :func:`key` takes it.
    cc : tuple of int or str
        The card's compute capability.
    root : path-like, optional
        The root folder of the cubins (the package's by default).

    Returns
    -------
    tuple of (pathlib.Path, str) or None
        The cubin's path and the kernel's lowered name; None where either is missing.
    """
    folder = arch_dir(cc, root)
    k = key(code, expr, cooperative)
    lowered = _names(folder).get(k)
    cubin = folder / f"{k}.cubin"
    if lowered is None or not cubin.is_file():
        return None
    return cubin, lowered


def seed_cupy_cache(cc, root=PREBUILT):
    """Copy the CuPy kernels captured at build time for `cc` into CuPy's cache
    (``CUPY_CACHE_DIR``, else ``~/.cupy/kernel_cache``) where it lacks them.

    Nothing is copied where :data:`SEED` is ``"0"`` or nothing was captured; a kernel that
    vanishes meanwhile (a build replacing the capture) is left to CuPy to compile.

    Parameters
    ----------
    cc : tuple of int or str
        The card's compute capability.
    root : path-like, optional
        The root folder of the cubins (the package's by default).
    """
    captured = arch_dir(cc, root) / "cupy"
    if os.environ.get(SEED) == "0" or not captured.is_dir():
        return
    cache = Path(os.environ.get("CUPY_CACHE_DIR", "~/.cupy/kernel_cache")).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    have = set(os.listdir(cache))
    for name in set(os.listdir(captured)) - have:
        # a temporary of this writer's own: processes seeding one cache at once each rename theirs
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".gravel-tmp", dir=cache)
        os.close(fd)
        try:
            shutil.copyfile(captured / name, tmp)
            os.replace(tmp, cache / name)
        except FileNotFoundError:
            continue
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
