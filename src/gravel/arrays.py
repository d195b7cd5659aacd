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
    """The row of each of a CSR's `nnz` entries (int64; ``nnz == offsets[-1]``), computed with the
    module of `offsets`: NumPy repeats each row id by its length; CuPy, which cannot size a repeat
    without reading the lengths back, counts each row's end at the entry where it ends and sums
    those counts along the entries. Either is a pass over the entries, where a binary search of
    the offsets for every entry read them log n times (docs/tuning.md, "Entry rows")."""
    m = xp(offsets)
    if m is np:
        return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    if nnz == 0:
        return m.zeros(0, m.int64)  # (CuPy's bincount takes no empty array: a graph of no vertex)
    ends = m.bincount(offsets[1:], minlength=nnz + 1)[:nnz]
    return m.cumsum(ends, dtype=m.int64)
