"""The arithmetic of a hybrid run's edge split, pure NumPy so that CPU tests check it.

Each set of lists a program reads (out-lists for a push, in-lists for a pull; an undirected
graph's are one set) is cut by rows into three shares: the GPU holds rows ``[0, k)`` in device
memory, reads rows ``[k, j)`` from pinned host memory over the bus, and the CPU takes rows
``[j, n)``. A pull gives each side the destination rows it holds; a push gives each side the
senders whose rows it holds. The device rows are at most what the device-memory budget leaves
for lists (:func:`room_arcs`, :func:`cap_share`); the GPU's whole share (device and bus rows) is
the one at which both sides finish together at their measured rates (:func:`split_share`), the
bus rows only where the device rows alone are fewer than that.
"""

import numpy as np

#: a measured balance moves the split (the GPU's lists copied again, or its bus rows mapped again)
#: only where it moves the share by more than RESPLIT_ABOVE and is expected to cut an iteration's
#: time by more than RESPLIT_GAIN: a copy of the lists costs several sweeps over them
RESPLIT_ABOVE = 0.02
RESPLIT_GAIN = 0.1
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


def bus_offsets(offsets, k, j):
    """Offsets of rows ``[k, j)`` alone, over their own arcs (entries ``offsets[k]`` to
    ``offsets[j]`` of the lists, renumbered from 0): the other rows are empty, so the lists keep
    the graph's n rows and ids.

    Parameters
    ----------
    offsets : numpy.ndarray
        CSR offsets (int64), n + 1 of them.
    k, j : int
        The first row and the row past the last, ``k <= j``.

    Returns
    -------
    numpy.ndarray
        n + 1 offsets (int64), from 0 to ``offsets[j] - offsets[k]``.

    Examples
    --------
    >>> bus_offsets(np.array([0, 3, 5, 9, 10]), 1, 3).tolist()
    [0, 0, 2, 6, 6]
    """
    offsets = np.asarray(offsets, np.int64)
    return np.clip(offsets, offsets[k], offsets[j]) - offsets[k]


def push_arcs(offsets, ids, *cuts):
    """The arcs that each range of senders pushes: the out-lists of the sorted sender `ids` below
    the first cut, between each two cuts, and from the last one on.

    Parameters
    ----------
    offsets : numpy.ndarray
        The out-lists' CSR offsets (int64).
    ids : numpy.ndarray
        Sender ids (int32), sorted.
    *cuts : int
        Split rows, increasing: k (the device rows' end), and j (the bus rows' end) where given.

    Returns
    -------
    tuple of int
        One more than there are cuts: (device, CPU) arcs for one cut, (device, bus, CPU) for two.

    Examples
    --------
    >>> push_arcs(np.array([0, 3, 5, 9, 10]), np.array([0, 2, 3], np.int32), 2)
    (3, 5)
    >>> push_arcs(np.array([0, 3, 5, 9, 10]), np.array([0, 2, 3], np.int32), 1, 3)
    (3, 4, 1)
    """
    bounds = [0, *(senders_below(ids, c) for c in cuts), ids.size]
    degree = offsets[ids + 1] - offsets[ids]
    return tuple(int(degree[a:b].sum()) for a, b in zip(bounds[:-1], bounds[1:], strict=True))


def rate(arcs, seconds):
    """Arcs a second, where a side did work to measure.

    Parameters
    ----------
    arcs : int
        The arcs a side took.
    seconds : float
        The seconds it took for them.

    Returns
    -------
    float or None
        ``arcs / seconds``; None where there were no arcs or no time.

    Examples
    --------
    >>> rate(900, 0.01), rate(0, 0.01), rate(900, 0.0)
    (90000.0, None, None)
    """
    if arcs <= 0 or seconds <= 0:
        return None
    return arcs / seconds


def split_share(cap, device_rate, bus_rate, cpu_rate, serial=0.0, current=None):
    """The GPU's whole share of the arcs (device rows, then bus rows) at which both sides finish
    together, the device rows holding at most `cap` of them.

    Where the device rows alone reach the balance ``d / (d + c)`` (d, c: the device's and the
    CPU's rates) within `cap`, that is the share and the bus takes none. Otherwise the device
    holds `cap` and the bus takes b, the solution of ``cap / d + b / r = (1 - cap - b) / c`` (r:
    the bus's rate), clipped to ``[0, 1 - cap]``: none where the device rows alone outlast the
    CPU's rest.

    A split also costs `serial` seconds an iteration that neither side's SpMV overlaps (the
    copies between the sides). Where the GPU alone, taking every arc, is expected to be quicker
    than the balance plus them by more than :data:`RESPLIT_GAIN`, the share is 1.0 (the CPU takes
    no rows); where neither is quicker by that much, the share stays on the side of 1.0 that
    `current` is on, so that timing noise near the break-even does not move it to and fro.

    Parameters
    ----------
    cap : float
        The largest share the device rows hold (:func:`cap_share`).
    device_rate, bus_rate, cpu_rate : float or None
        Arcs a second of each (:func:`rate`); None: not measured. The device's is not needed
        where `cap` is 0, nor the bus's where the device rows reach the balance.
    serial : float, default 0.0
        Seconds a split adds to an iteration, per arc of the whole.
    current : float, optional
        The GPU's share now.

    Returns
    -------
    float or None
        The share, 0 to 1; None where a rate it needs is not known.

    Examples
    --------
    >>> split_share(1.0, 90_000, None, 10_000)  # the device alone: 90 % of the arcs
    0.9
    >>> round(split_share(0.5, 90_000, 30_000, 10_000), 6)  # 0.5/90k + b/30k = (0.5 - b)/10k
    0.833333
    >>> split_share(0.0, None, 10_000, 10_000)  # nothing on the device: the bus and the CPU halve
    0.5
    >>> split_share(0.5, 90_000, None, 10_000) is None
    True
    >>> split_share(1.0, 90_000, None, 10_000, serial=5e-6)  # 1/90k well below 0.9/90k + 5e-6
    1.0
    >>> [split_share(1.0, 90_000, None, 10_000, 2e-6, current) for current in (0.9, 1.0)]
    [0.9, 1.0]
    """
    share = _balance(cap, device_rate, bus_rate, cpu_rate)
    if not serial or share is None or share >= 1:
        return share
    alone = gpu_seconds(1.0, cap, device_rate, bus_rate)
    split = gpu_seconds(share, cap, device_rate, bus_rate)
    if alone is None or split is None:
        return share
    split += serial
    quicker_alone = alone < split * (1 - RESPLIT_GAIN)
    quicker_split = split < alone * (1 - RESPLIT_GAIN)
    return 1.0 if quicker_alone or (current == 1.0 and not quicker_split) else share


def gpu_seconds(share, cap, device_rate, bus_rate):
    """Seconds per arc of the whole that the GPU's part takes at `share`: its device rows up to
    `cap` at `device_rate`, the rest over the bus at `bus_rate`.

    Parameters
    ----------
    share, cap : float
    device_rate, bus_rate : float or None
        Arcs a second (:func:`rate`); None: not measured.

    Returns
    -------
    float or None
        None where a rate it needs is not known.

    Examples
    --------
    >>> gpu_seconds(0.75, 0.5, 1.0, 0.5), gpu_seconds(0.75, 0.5, 1.0, None)
    (1.0, None)
    """
    held, over = min(share, cap), max(share - cap, 0.0)
    if (held > 0 and device_rate is None) or (over > 0 and bus_rate is None):
        return None
    return (held / device_rate if held > 0 else 0.0) + (over / bus_rate if over > 0 else 0.0)


def _balance(cap, device_rate, bus_rate, cpu_rate):
    """:func:`split_share` without the serial seconds."""
    if cpu_rate is None or (cap > 0 and device_rate is None):
        return None
    device_s = 0.0
    if cap > 0:
        alone = device_rate / (device_rate + cpu_rate)
        if alone <= cap:
            return alone
        device_s = cap / device_rate
    if bus_rate is None:
        return None
    bus = ((1 - cap) / cpu_rate - device_s) / (1 / bus_rate + 1 / cpu_rate)
    return cap + min(max(bus, 0.0), 1 - cap)


def held_lists(lists, k):
    """The rows ``[0, k)`` of a set of lists, as the part holds them: :func:`share_offsets` and
    the ids and weights of their arcs (views).

    Parameters
    ----------
    lists : tuple
        ``(offsets, ids, (weights, weighted))``: a set of host lists.
    k : int
        The split row.

    Returns
    -------
    tuple
        ``(offsets, ids, (weights, weighted))`` of n rows, those from k on empty.

    Examples
    --------
    >>> offsets, ids, _ = held_lists((np.array([0, 2, 3]), np.array([1, 0, 0]), (None, False)), 1)
    >>> offsets.tolist(), ids.tolist()
    ([0, 2, 2], [1, 0])
    """
    offsets, ids, (weights, weighted) = lists
    offsets = share_offsets(offsets, k)
    m = int(offsets[-1])
    return offsets, ids[:m], (weights[:m] if weighted else weights, weighted)


def next_share(current, measured):
    """The GPU's share for the next iteration: the `measured` balance (None: none, else at most 1,
    as :func:`split_share` gives it) where it differs from `current` by more than
    :data:`RESPLIT_ABOVE` and moving there is expected to cut the iteration's time by more than
    :data:`RESPLIT_GAIN`; else the `current` one.

    The side that gives up arcs is the one that finished last, and its time falls with its share:
    the CPU's from ``1 - current`` to ``1 - measured`` where the balance gives the GPU more, the
    GPU's from `current` to `measured` otherwise. So a move of a few points counts where it halves
    a small share (0.90 -> 0.95 halves the CPU's time), not where it trims a large one, nor where
    it moves too few arcs to pay for the copy (0.990 -> 0.997).

    Parameters
    ----------
    current : float
        The GPU's share now.
    measured : float or None
        The balance measured over the last iteration (:func:`split_share`); None: none.

    Returns
    -------
    float

    Examples
    --------
    >>> next_share(0.5, 0.9), next_share(0.5, 0.52), next_share(0.9, 0.95), next_share(0.99, 0.997)
    (0.9, 0.5, 0.95, 0.99)
    >>> next_share(0.5, None)
    0.5
    """
    if measured is None or abs(measured - current) <= RESPLIT_ABOVE:
        return current
    if measured > current:  # the CPU finished last
        kept = (1 - measured) / (1 - current)
    else:
        kept = measured / current
    return measured if 1 - kept > RESPLIT_GAIN else current
