"""CPU kernels, written with Numba and compiled on first use (cached on disk).

Each kernel module is loaded on first use, not when it is imported: ``from ..backends.cpu import
bfs`` gives a module that imports Numba and runs its definitions at its first attribute access.
So ``import gravel`` never imports Numba.

However a kernel module is imported (lazily through this package, or by ``from .serial import``),
:func:`.cache.install` runs before its definitions: its kernels are cached by their source's
content, so the caches that ``python -m gravel.prebuild_cpu`` builds into an install hold.
"""

import importlib.machinery
import importlib.util
import sys
import threading
import types
import weakref

#: the kernel modules of this package, loaded lazily
KERNELS = (
    "arcs",
    "bc",
    "bellman_ford",
    "bfs",
    "cc",
    "coloring",
    "csr",
    "generate",
    "hits",
    "kcore",
    "layout",
    "louvain",
    "lpa",
    "mis",
    "modularity",
    "msf",
    "networkx_order",
    "pagerank",
    "salsa",
    "scc",
    "sssp",
    "tc",
    "text",
)


class _Watching:
    """A module loader that, once the module has run (and imported Numba), has gravel announce long
    compilations (:func:`gravel.compiling.watch`) before any of its kernels first compiles."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        from ...compiling import watch

        self.loader.exec_module(module)
        watch()


class _Stamping:
    """A module loader that has Numba stamp cached kernels by content (:func:`.cache.install`)
    before the module's definitions run."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        from .cache import install

        install()
        self.loader.exec_module(module)


class _KernelFinder:
    """Finds this package's modules as the path finder does, with a :class:`_Stamping` loader."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if not fullname.startswith(f"{__name__}.") or fullname == f"{__name__}.cache":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Stamping(spec.loader)
        return spec


if not any(isinstance(f, _KernelFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _KernelFinder())


def chunks():
    """How many pieces a parallel loop splits its work into (a few per thread, for balance).

    Returns
    -------
    int
        Four times Numba's thread count.
    """
    import numba  # only when a CPU kernel runs: importing gravel does not import Numba

    return 4 * numba.get_num_threads()


class _Lazy(types.ModuleType):
    """A kernel module whose definitions have not run: the first access to an attribute it lacks
    runs them, in this very module object, which then becomes a plain module. A run that fails
    or is cut short (Ctrl-C) leaves the module as it was before it, to run again at the next
    access, as a failed import does; the standard library's LazyLoader would leave it half-built
    for good ("cannot import name ..."). Until then `vars()` and `dir()` show only the module's
    spec and names."""

    def __getattr__(self, attr):
        state = _LAZY[self]
        with state["lock"]:  # another thread waits for the run; this one's re-entry does not
            if type(self) is _Lazy:
                if state["running"]:  # asked for by its own definitions: not there yet
                    raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
                state["running"] = True
                try:
                    self.__spec__.loader.exec_module(self)
                except BaseException as e:
                    fresh = state["fresh"]
                    for key in [k for k in vars(self) if k not in fresh]:
                        delattr(self, key)
                    vars(self).update(fresh)
                    if isinstance(e, AttributeError):  # else read as a missing attribute
                        raise ImportError(f"{self.__name__} failed to load: {e}") from e
                    raise
                finally:
                    state["running"] = False
                self.__class__ = types.ModuleType
        return getattr(self, attr)


#: per lazy module: its lock, whether its definitions are running, its attributes before they ran
_LAZY = weakref.WeakKeyDictionary()
#: held while a lazy module is made, so that two threads make one
_creating = threading.Lock()


def __getattr__(name):
    if name not in KERNELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    fullname = f"{__name__}.{name}"
    with _creating:
        module = sys.modules.get(fullname)
        if module is None:
            module = _lazy(fullname)
    globals()[name] = module
    return module


def _lazy(fullname):
    """A :class:`_Lazy` module of the kernel module `fullname`, in sys.modules."""
    spec = importlib.util.find_spec(fullname)
    spec.loader = _Watching(spec.loader)
    module = importlib.util.module_from_spec(spec)
    _LAZY[module] = {"lock": threading.RLock(), "running": False, "fresh": dict(vars(module))}
    module.__class__ = _Lazy
    sys.modules[fullname] = module
    return module
