"""Where an array lives: NumPy on the host, CuPy on the device (imported only when one is seen)."""

import numpy as np


def xp(a):
    """The array module of `a`: numpy, or cupy for device arrays.

    Parameters
    ----------
    a : object
        An array; anything whose type is not CuPy's counts as host data.

    Returns
    -------
    module
        ``cupy`` where `a`'s type comes from CuPy (imported only then), else ``numpy``.

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.arrays import xp
    >>> xp(np.zeros(3)) is np
    True
    """
    if type(a).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def host(a):
    """A NumPy copy of a device array (sync); NumPy arrays pass through.

    Parameters
    ----------
    a : numpy.ndarray or cupy.ndarray
        The array.

    Returns
    -------
    numpy.ndarray
        ``a.get()`` for a CuPy array (it waits for the device), else `a` itself, not a copy.
    """
    return a.get() if xp(a) is not np else a


def entry_rows(offsets, nnz):
    """The row of each of a CSR's `nnz` entries, computed with the module of `offsets`.

    Parameters
    ----------
    offsets : numpy.ndarray or cupy.ndarray of int64
        The CSR's row offsets, n + 1 of them.
    nnz : int
        The number of entries, ``offsets[-1]``.

    Returns
    -------
    numpy.ndarray or cupy.ndarray of int64
        `nnz` row ids, non-decreasing, on the device of `offsets`.

    Notes
    -----
    NumPy repeats each row id by its length; CuPy, which cannot size a repeat without reading the
    lengths back, counts each row's end at the entry where it ends and sums those counts along the
    entries. Either is a pass over the entries, where a binary search of the offsets for every
    entry read them log n times (docs/tuning.md, "Entry rows").

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.arrays import entry_rows
    >>> entry_rows(np.array([0, 2, 2, 3], dtype=np.int64), 3)
    array([0, 0, 2])
    """
    m = xp(offsets)
    if m is np:
        return np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    if nnz == 0:
        return m.zeros(0, m.int64)  # (CuPy's bincount takes no empty array: a graph of no vertex)
    ends = m.bincount(offsets[1:], minlength=nnz + 1)[:nnz]
    return m.cumsum(ends, dtype=m.int64)


def list_entries(offsets, rows):
    """The entries of the CSR rows `rows`: list after list in the order of `rows`, gathered
    without a loop over the rows, with the module of `offsets`.

    Parameters
    ----------
    offsets : numpy.ndarray or cupy.ndarray of int64
        The CSR's row offsets.
    rows : numpy.ndarray or cupy.ndarray of int
        Row ids (repeats allowed).

    Returns
    -------
    positions : numpy.ndarray or cupy.ndarray of int64
        Each entry's position in the CSR's lists.
    which : numpy.ndarray or cupy.ndarray of int64
        Each entry's index in `rows` (its row is ``rows[which]``).

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.arrays import list_entries
    >>> at, which = list_entries(np.array([0, 2, 2, 5]), np.array([2, 0]))
    >>> at.tolist(), which.tolist()
    ([2, 3, 4, 0, 1], [0, 0, 0, 1, 1])
    """
    m = xp(offsets)
    start = offsets[rows]
    ends = m.cumsum(offsets[rows + 1] - start, dtype=m.int64)
    bounds = m.concatenate([m.zeros(1, m.int64), ends])  # the lists' bounds in the output
    total = int(bounds[-1])  # sync on the GPU: the entries to list
    which = entry_rows(bounds, total)
    return start[which] + (m.arange(total, dtype=m.int64) - bounds[which]), which
