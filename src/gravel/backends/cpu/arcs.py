"""Questions about a built CSR's arcs, each answered by NumPy on graphs of up to SMALL_ARCS arcs
and in parallel past them: self loops, whether given arcs exist, whether every arc has its mirror
(an undirected graph), the gathering of chosen rows, a slice of rows' undirected neighbours and
the rows naming each id."""

import numba
import numpy as np

from ...errors import InvalidGraphError
from .csr import SMALL_ARCS, _row_ids
from .serial import by_size


def count_loops(offsets, indices):
    """Number of self loops: by NumPy up to SMALL_ARCS arcs, else in parallel."""
    if indices.shape[0] <= SMALL_ARCS:
        return int(np.count_nonzero(indices == _row_ids(offsets)))
    return _count_loops(offsets, indices)


@numba.njit(parallel=True, cache=True)
def _count_loops(offsets, indices):
    n = offsets.shape[0] - 1
    c = 0
    for u in numba.prange(n):
        for p in range(offsets[u], offsets[u + 1]):
            if indices[p] == u:
                c += 1
    return c


def has_arcs(offsets, indices, src, dst):
    """Whether each arc src[i] -> dst[i] is in the CSR (ids in range, rows sorted): by NumPy up to
    SMALL_ARCS arcs (a key per arc, searched once), else a binary search in each pair's row on
    every core (no memory per arc)."""
    if indices.shape[0] > SMALL_ARCS:
        out = np.empty(src.shape[0], np.bool_)
        _has_arcs(offsets, indices, src, dst, out)
        return out
    n = offsets.shape[0] - 1
    keys = _row_ids(offsets).astype(np.int64) * n + indices
    q = src * n + dst
    pos = np.minimum(np.searchsorted(keys, q), max(keys.shape[0] - 1, 0))
    return keys[pos] == q if keys.shape[0] else np.zeros(q.shape, bool)


@numba.njit(parallel=True, cache=True)
def _has_arcs(offsets, indices, src, dst, out):
    for i in numba.prange(src.shape[0]):
        lo, end = offsets[src[i]], offsets[src[i] + 1]
        hi = end
        while lo < hi:
            mid = (lo + hi) // 2
            if indices[mid] < dst[i]:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo < end and indices[lo] == dst[i]


@numba.njit(parallel=True, cache=True)
def _gather_rows(offsets, values, rows, starts, out):
    for i in numba.prange(rows.shape[0]):
        begin, s = offsets[rows[i]], starts[i]
        for j in range(offsets[rows[i] + 1] - begin):
            out[s + j] = values[begin + j]


def gather_rows(offsets, values, rows, starts, size):
    """The lists (of `values`, a CSR's per-arc array) of `rows`, row i's at starts[i] of an array
    of `size` entries, copied on every core."""
    out = np.empty(size, values.dtype)
    _gather_rows(offsets, values, np.asarray(rows, np.int64), np.asarray(starts, np.int64), out)
    return out


def undirected_rows(out_offsets, out_ids, in_offsets, in_ids, first, multi):
    """Each row's neighbours in the undirected graph: its out-list and in-list without self loops
    (row r is vertex ``first + r``), as a CSR with int64 offsets and ids of `out_ids`' type,
    sorted within each row. `multi` False: the two lists as one set; True: the distinct
    out-neighbours and the distinct in-neighbours, a neighbour on both kept twice. `in_offsets`
    None: there are no in-lists (an undirected graph's are its out-lists). Each row is laid out,
    sorted and compacted on its own, so the rows run on every core (serially up to SMALL_ARCS
    arcs)."""
    size = out_offsets.shape[0] - 1
    if in_offsets is None:
        in_offsets, in_ids = np.zeros(size + 1, np.int64), out_ids[:0]
    room = out_offsets.astype(np.int64) + in_offsets  # a row's out-list, then its in-list
    k = _undirected(room[-1])
    buf = np.empty(room[-1], out_ids.dtype)
    offsets = np.zeros(size + 1, np.int64)
    k.lay_out(out_offsets, out_ids, in_offsets, in_ids, first, multi, room, buf, offsets[1:])
    np.cumsum(offsets, out=offsets)
    ids = np.empty(offsets[-1], out_ids.dtype)
    k.pack(room, buf, offsets, ids)
    return offsets, ids


@numba.njit(inline="always")
def _distinct(buf, lo, hi, at, loop):
    """Sort buf[lo:hi] (unless it is sorted, as a CSR's rows are) and copy its distinct values
    other than `loop` to buf[at:], at <= lo; return the end of the copy."""
    for p in range(lo + 1, hi):
        if buf[p] < buf[p - 1]:
            buf[lo:hi].sort()
            break
    for p in range(lo, hi):
        x = buf[p]
        if x != loop and (p == lo or x != buf[p - 1]):
            buf[at] = x
            at += 1
    return at


@numba.njit(parallel=True, nogil=True, cache=True)
def lay_out(out_offsets, out_ids, in_offsets, in_ids, first, multi, room, buf, lengths):
    """Each row's distinct neighbours at the start of its room in `buf`, their count in
    `lengths` (see undirected_rows)."""
    for r in numba.prange(lengths.shape[0]):
        lo = room[r]
        mid = lo + out_offsets[r + 1] - out_offsets[r]
        for p in range(out_offsets[r], out_offsets[r + 1]):
            buf[lo + p - out_offsets[r]] = out_ids[p]
        for p in range(in_offsets[r], in_offsets[r + 1]):
            buf[mid + p - in_offsets[r]] = in_ids[p]
        loop = first + r
        if multi:
            end = _distinct(buf, mid, room[r + 1], _distinct(buf, lo, mid, lo, loop), loop)
            buf[lo:end].sort()
        else:
            end = _distinct(buf, lo, room[r + 1], lo, loop)
        lengths[r] = end - lo


@numba.njit(parallel=True, nogil=True, cache=True)
def pack(room, buf, offsets, ids):
    """Each row's first ``offsets[r + 1] - offsets[r]`` entries of its room, packed."""
    for r in numba.prange(offsets.shape[0] - 1):
        for j in range(offsets[r + 1] - offsets[r]):
            ids[offsets[r] + j] = buf[room[r] + j]


_undirected = by_size(lay_out, pack)


def naming_rows(offsets, indices, n, order):
    """The transpose of a CSR whose ids are below `n`: for each id, the rows that name it (int32;
    a row naming it twice listed twice), as int64 offsets and rows. A counting sort on one
    thread that visits the rows in `order` (every row once), so each id's list keeps it."""
    starts = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(indices, minlength=n), out=starts[1:])
    rows = np.empty(indices.shape[0], np.int32)
    _place_rows(offsets, indices, order, starts[:-1].copy(), rows)
    return starts, rows


@numba.njit(nogil=True, cache=True)
def _place_rows(offsets, indices, order, cursor, rows):
    for r in order:
        for p in range(offsets[r], offsets[r + 1]):
            rows[cursor[indices[p]]] = r
            cursor[indices[p]] += 1


def mirror_fault(offsets, indices, weights):
    """The first arc found (its index) of a CSR with sorted rows whose mirror is wrong: u -> v
    without v -> u as many times, or (with `weights`) with other weights; -1 when every arc has
    its mirror (an undirected graph's CSR). Up to SMALL_ARCS arcs by NumPy sorts of the arcs'
    keys, else a binary search in row v for each run of equal arcs on every core."""
    n, m = offsets.shape[0] - 1, indices.shape[0]
    if m <= SMALL_ARCS:
        rows = _row_ids(offsets).astype(np.int64)
        keys, back = rows * n + indices, indices.astype(np.int64) * n + rows
        w = np.zeros(m) if weights is None else weights
        mine, theirs = np.lexsort((w, keys)), np.lexsort((w, back))
        differ = (keys[mine] != back[theirs]) | ~(
            (w[mine] == w[theirs]) | np.isnan(w[mine]) & np.isnan(w[theirs])
        )
        if not differ.any():
            return -1
        p = int(np.flatnonzero(differ)[0])
        # the smaller key has no match on the other side: an arc, or the mirror of an arc
        return int(mine[p] if keys[mine[p]] <= back[theirs[p]] else theirs[p])
    faults = np.full(n, -1, np.int64)
    has_w = weights is not None
    _mirror_faults(offsets, indices, weights if has_w else np.empty(0, np.float32), has_w, faults)
    bad = np.flatnonzero(faults >= 0)
    return int(faults[bad[0]]) if bad.size else -1


@numba.njit(parallel=True, cache=True)
def _mirror_faults(offsets, indices, weights, has_w, faults):
    for u in numba.prange(offsets.shape[0] - 1):
        e, end = offsets[u], offsets[u + 1]
        while e < end:
            v = indices[e]
            run = e + 1
            while run < end and indices[run] == v:
                run += 1
            lo, hi = offsets[v], offsets[v + 1]
            while lo < hi:  # the first u in row v
                mid = (lo + hi) // 2
                if indices[mid] < u:
                    lo = mid + 1
                else:
                    hi = mid
            back = lo
            while back < offsets[v + 1] and indices[back] == u:
                back += 1
            if back - lo != run - e or (has_w and not _same_weights(weights, e, lo, run - e)):
                faults[u] = e
                break
            e = run


@numba.njit(cache=True)
def _same_weights(w, a, b, k):
    """Whether w[a:a+k] and w[b:b+k] hold the same weights in some order (NaN equal to NaN)."""
    x, y = np.sort(w[a : a + k]), np.sort(w[b : b + k])
    for i in range(k):
        if not (x[i] == y[i] or (x[i] != x[i] and y[i] != y[i])):
            return False
    return True


def check_mirrored(offsets, indices, weights):
    """InvalidGraphError, naming an arc, unless every arc u -> v of an undirected graph's sorted
    rows has its v -> u, as often and with the same weights (the CSR lists each edge both ways)."""
    forward, back = mirror_sums(offsets, indices, weights)
    if forward == back:  # a hash of the arcs against one of their mirrors: O(m), no sort
        return
    e = mirror_fault(offsets, indices, weights)
    if e < 0:
        return
    u = int(np.searchsorted(offsets, e, side="right")) - 1
    v = int(indices[e])
    ours = np.flatnonzero(indices[offsets[u] : offsets[u + 1]] == v) + offsets[u]
    theirs = np.flatnonzero(indices[offsets[v] : offsets[v + 1]] == u) + offsets[v]
    if not theirs.size:
        fault = f"has no {v} -> {u}"
    elif theirs.size != ours.size:
        fault = f"is listed {ours.size} times, {v} -> {u} {theirs.size} times"
    else:
        mine, back = sorted(weights[ours].tolist()), sorted(weights[theirs].tolist())
        fault = f"has weights {mine}, {v} -> {u} {back}"
    raise InvalidGraphError(
        f"undirected graph: arc {u} -> {v} {fault} (an undirected CSR lists each edge both ways, "
        "alike; or pass directed=True)"
    )


def mirror_sums(offsets, indices, weights, chunk=1 << 22):
    """(sum of a 64-bit hash of every arc (u, v, weight), the same of every reversed arc (v, u,
    weight)), modulo 2**64: equal when every arc has its mirror as often with the same weights (an
    undirected graph's CSR), and unequal, but for a chance of 2**-64, otherwise. NumPy passes over
    the arcs in chunks; :func:`mirror_fault` then finds the arc at fault."""
    n = np.uint64(offsets.shape[0] - 1)
    sums = [np.uint64(0), np.uint64(0)]
    row_of = _row_ids(offsets)
    for lo in range(0, indices.shape[0], chunk):
        hi = min(lo + chunk, indices.shape[0])
        rows, cols = row_of[lo:hi].astype(np.uint64), indices[lo:hi].astype(np.uint64)
        salt = np.uint64(0)
        if weights is not None:
            w = weights[lo:hi] + np.float32(0)  # -0.0 as 0.0
            w[np.isnan(w)] = np.nan  # one NaN
            salt = _mix64(w.view(np.uint32).astype(np.uint64))
        with np.errstate(over="ignore"):
            for k, key in enumerate((rows * n + cols, cols * n + rows)):
                sums[k] += np.add.reduce(_mix64(key) ^ salt, dtype=np.uint64)
    return sums[0], sums[1]


def _mix64(x):
    """SplitMix64's finaliser of each uint64 in `x`."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
