"""Where an array lives: NumPy on the host, CuPy on the device (imported only when one is seen)."""

import numpy as np


def xp(a):
    """The array module of `a`: numpy, or cupy for device arrays."""
    if type(a).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def host(a):
    """A NumPy copy of a device array (sync); NumPy arrays pass through."""
    return a.get() if xp(a) is not np else a


def entry_rows(offsets, nnz):
    """The row of each of a CSR's `nnz` entries (int64), computed with the module of `offsets`."""
    m = xp(offsets)
    return m.searchsorted(offsets, m.arange(nnz, dtype=m.int64), side="right") - 1
