"""The arithmetic of a hybrid run's edge split, pure NumPy so that CPU tests check it.

Each set of lists a program reads (out-lists for a push, in-lists for a pull; an undirected
graph's are one set) is cut by rows: the GPU holds rows ``[0, k)`` in device memory, the CPU
takes rows ``[k, n)``. A pull gives each side the destination rows it holds; a push gives each
side the senders whose rows it holds. The GPU's share of the arcs is the smaller of what the
device-memory budget leaves for lists (:func:`room_arcs`) and what makes both sides finish
together at their measured rates (:func:`balanced_share`).
"""

import numpy as np

#: a measured balance moves the split (the GPU's lists copied again) only when it differs from
#: the current share by more than this: a copy of the lists costs several sweeps over them
RESPLIT_ABOVE = 0.05
#: device bytes of an offset (int64): every set of lists the GPU holds has n + 1 of them
OFFSET_BYTES = 8


def room_arcs(limit, n, vertex_bytes, sets, arc_bytes):
    """Arcs the GPU may hold within `limit` device bytes, after its vertex arrays and the offsets
    of its sets of lists.

    Parameters
    ----------
    limit : int or None
        Device bytes the split may fill; None: no limit.
    n : int
        The vertices.
    vertex_bytes : int
        Device bytes per vertex of the GPU's part.
    sets : int
        The sets of lists the GPU holds rows of, each with n + 1 offsets (int64).
    arc_bytes : int
        Bytes per arc: an id, and a weight where the lists have them.

    Returns
    -------
    int or None
        At least 0; None where `limit` is None.

    Examples
    --------
    >>> room_arcs(10_000, 100, 20, 1, 8)  # 10,000 - 2,000 - 808 bytes of offsets, 8 an arc
    899
    """
    if limit is None:
        return None
    free = limit - n * vertex_bytes - sets * OFFSET_BYTES * (n + 1)
    return max(int(free) // int(arc_bytes), 0)


def cap_share(room, arcs):
    """The largest share of `arcs` arcs that `room` holds.

    Parameters
    ----------
    room : int or None
        The arcs the GPU may hold (:func:`room_arcs`); None: unlimited.
    arcs : int
        The arcs of the lists to split.

    Returns
    -------
    float
        ``room / arcs``, or 1.0 where `room` holds them all.

    Examples
    --------
    >>> cap_share(899, 2000), cap_share(None, 2000), cap_share(10, 0)
    (0.4495, 1.0, 1.0)
    """
    if room is None or arcs <= room:
        return 1.0
    return room / arcs


def rows_for(offsets, share):
    """The split row k: the most leading rows ``[0, k)`` whose arcs are at most `share` of all.

    Parameters
    ----------
    offsets : array_like
        CSR offsets (int64), n + 1 of them.
    share : float
        The GPU's share of the arcs, 0 to 1.

    Returns
    -------
    int
        k, 0 to n.

    Examples
    --------
    >>> rows_for(np.array([0, 3, 5, 9, 10]), 0.5)  # rows 0 and 1 hold 5 of the 10 arcs
    2
    >>> rows_for(np.array([0, 3, 5, 9, 10]), 1.0), rows_for(np.array([0, 3, 5, 9, 10]), 0.0)
    (4, 0)
    """
    offsets = np.asarray(offsets)
    target = int(np.floor(share * int(offsets[-1]) + 1e-9))
    return int(np.searchsorted(offsets, target, side="right")) - 1


def share_offsets(offsets, k):
    """Offsets of rows ``[0, k)`` alone, over the first ``offsets[k]`` arcs: the rows from k on
    are empty, so the lists keep the graph's n rows and ids.

    Parameters
    ----------
    offsets : numpy.ndarray
        CSR offsets (int64), n + 1 of them.
    k : int
        The split row.

    Returns
    -------
    numpy.ndarray
        n + 1 offsets, each clipped at ``offsets[k]``.

    Examples
    --------
    >>> share_offsets(np.array([0, 3, 5, 9, 10]), 2).tolist()
    [0, 3, 5, 5, 5]
    """
    return np.minimum(offsets, offsets[k])


def senders_below(ids, k):
    """How many of the sorted sender `ids` lie below row k (the GPU's senders of a push).

    Parameters
    ----------
    ids : numpy.ndarray
        Sender ids (int32), sorted.
    k : int
        The split row.

    Returns
    -------
    int
        The senders of ``ids[:count]`` are those below k.

    Examples
    --------
    >>> senders_below(np.array([0, 2, 3], np.int32), 2)
    1
    """
    return int(np.searchsorted(ids, k))


def push_arcs(offsets, ids, k):
    """(arcs the GPU pushes, arcs the CPU pushes): the out-lists of the sorted sender `ids` below
    row k, and of those from k on.

    Parameters
    ----------
    offsets : numpy.ndarray
        The out-lists' CSR offsets (int64).
    ids : numpy.ndarray
        Sender ids (int32), sorted.
    k : int
        The split row.

    Returns
    -------
    gpu_arcs, cpu_arcs : int

    Examples
    --------
    >>> push_arcs(np.array([0, 3, 5, 9, 10]), np.array([0, 2, 3], np.int32), 2)
    (3, 5)
    """
    c = senders_below(ids, k)
    degree = offsets[ids + 1] - offsets[ids]
    return int(degree[:c].sum()), int(degree[c:].sum())


def balanced_share(gpu_arcs, gpu_s, cpu_arcs, cpu_s):
    """The GPU's share of the arcs that has both sides finish together, from the arcs each side
    took in `gpu_s` and `cpu_s` seconds.

    Parameters
    ----------
    gpu_arcs, cpu_arcs : int
        The arcs each side took.
    gpu_s, cpu_s : float
        The seconds each side took for them.

    Returns
    -------
    float or None
        The GPU's rate over both rates; None where a side did no work to measure (no arcs, or no
        time).

    Examples
    --------
    >>> balanced_share(900, 0.01, 100, 0.02)  # 90,000 and 5,000 arcs a second
    0.9473684210526315
    """
    if min(gpu_arcs, cpu_arcs) <= 0 or min(gpu_s, cpu_s) <= 0:
        return None
    gpu, cpu = gpu_arcs / gpu_s, cpu_arcs / cpu_s
    return gpu / (gpu + cpu)


def next_share(current, measured, cap):
    """The GPU's share for the next iteration: the `measured` balance (None: none) within `cap`,
    where it moves the share by more than :data:`RESPLIT_ABOVE`; else the `current` one.

    Parameters
    ----------
    current : float
        The GPU's share now.
    measured : float or None
        The balance measured over the last iteration (:func:`balanced_share`); None: none.
    cap : float
        The largest share the GPU's memory holds (:func:`cap_share`).

    Returns
    -------
    float

    Examples
    --------
    >>> next_share(0.5, 0.9, 0.7), next_share(0.5, 0.52, 1.0), next_share(0.5, None, 1.0)
    (0.7, 0.5, 0.5)
    """
    if measured is None:
        return current
    target = min(measured, cap)
    return target if abs(target - current) > RESPLIT_ABOVE else current
