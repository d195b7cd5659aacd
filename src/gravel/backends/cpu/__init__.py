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


def __getattr__(name):
    if name not in KERNELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    fullname = f"{__name__}.{name}"
    module = sys.modules.get(fullname)
    if module is None:
        # the standard library's recipe for lazy imports (importlib.util.LazyLoader)
        spec = importlib.util.find_spec(fullname)
        spec.loader = importlib.util.LazyLoader(_Watching(spec.loader))
        module = importlib.util.module_from_spec(spec)
        sys.modules[fullname] = module
        spec.loader.exec_module(module)
    globals()[name] = module
    return module
