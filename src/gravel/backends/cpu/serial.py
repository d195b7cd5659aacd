"""Serial twins of parallel Numba kernels, for graphs too small to repay a parallel compile.

Compiling a kernel with ``parallel=True`` takes several times longer than compiling the same
source serially, and a first run pays it; on a graph of up to ``SMALL_ARCS`` arcs
(backends/cpu/csr.py) the serial kernel finishes before the parallel one would have compiled
(docs/tuning.md, first run).
"""

import types

import numba

from .csr import SMALL_ARCS


def is_small(arcs):
    """Whether a graph of `arcs` arcs runs the serial twins."""
    return arcs <= SMALL_ARCS


def twins(*kernels):
    """A namespace holding, under each kernel's name, its source compiled without parallel=True
    (``prange`` then runs as ``range``).

    Each twin's qualified name ends in ``_serial``: Numba's cache index ignores ``parallel=``, so a
    twin under the kernel's own name would load the parallel machine code, or overwrite it."""
    serial = {}
    for kernel in kernels:
        f = kernel.py_func
        twin = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__)
        twin.__qualname__ = f"{f.__qualname__}_serial"
        nogil = kernel.targetoptions.get("nogil", False)  # a twin runs where its kernel would
        serial[f.__name__] = numba.njit(nogil=nogil, cache=True)(twin)
    return types.SimpleNamespace(**serial)


def by_size(*kernels):
    """A function of a graph's arc count that gives these kernels, by name in a namespace: the
    parallel ones, or up to SMALL_ARCS arcs their serial twins."""
    parallel = types.SimpleNamespace(**{k.py_func.__name__: k for k in kernels})
    serial = twins(*kernels)

    def choose(arcs):
        return serial if is_small(arcs) else parallel

    return choose
