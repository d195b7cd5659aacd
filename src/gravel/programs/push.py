"""The CPU push of a vertex program (SpMSpV from the senders): by owner, or blocked as
propagation blocking does (Balaji's thesis): updates binned by destination range, then each bin
folded into totals that fit the cache. :func:`pays` chooses; the settings below force either.
"""

import functools
from pathlib import Path

import numba
import numpy as np

from ..backends.cpu.binning import bin_counts, gather_reached

#: how the CPU push folds: "auto" (:func:`pays`), "blocked" or "unblocked" (set it to force one)
push_blocking = "auto"
#: vertices per bin of a blocked push (rounded down to a power of two); None: by PUSH_BIN_BYTES
push_bin_width = None
#: the bytes of totals (and received flags) a bin of a blocked push folds into
PUSH_BIN_BYTES = 256 * 1024
#: a push is blocked where its totals outgrow this share of the last-level cache
#: (:func:`llc_bytes`) ...
PUSH_LLC_SHARE = 1 / 3
#: ... and it brings at least this many arcs per 64-byte line of totals
PUSH_ARCS_PER_LINE = 4
#: a blocked push bins and folds its senders in batches of about this many arcs
PUSH_BATCH_ARCS = 1 << 24


def bin_width(vertex_bytes):
    """A blocked push's vertices per bin: the largest power of two up to ``push_bin_width`` if
    set, else whose totals fit in PUSH_BIN_BYTES.

    Parameters
    ----------
    vertex_bytes : int
        The bytes a push folds into per vertex: the message fields and a received flag.

    Returns
    -------
    int
        A power of two, at least 1.

    Examples
    --------
    >>> from gravel.programs.push import bin_width
    >>> bin_width(9), bin_width(5)  # a float64 sum's totals, an int32's (256 KiB bins)
    (16384, 32768)
    """
    most = PUSH_BIN_BYTES // vertex_bytes if push_bin_width is None else push_bin_width
    return 1 << max(0, int(most).bit_length() - 1)


@functools.cache
def llc_bytes():
    """The size of the CPU's last-level cache (sysfs; 32 MiB where it says nothing).

    Returns
    -------
    int
        Bytes: the largest data or unified cache that sysfs lists for CPU 0, read once per
        process.
    """
    sizes = [32 << 20]
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            if (index / "type").read_text().strip() != "Instruction":
                size = (index / "size").read_text().strip()
                sizes.append(int(size[:-1]) << {"K": 10, "M": 20}[size[-1]])
        except (OSError, ValueError, KeyError):
            continue
    return max(sizes[1:] or sizes)


def pays(arcs, n, vertex_bytes):
    """Whether a push of `arcs` arcs into n vertices' totals is blocked: as ``push_blocking``
    says, or under "auto" by the rule of docs/tuning.md ("CPU push of vertex programs").

    Parameters
    ----------
    arcs : int
        The arcs the push reads.
    n : int
        The vertices whose totals it folds into.
    vertex_bytes : int
        The bytes of a vertex's totals and received flag.

    Returns
    -------
    bool
        Under "auto": the totals outgrow PUSH_LLC_SHARE of the last-level cache
        (:func:`llc_bytes`) and the push brings at least PUSH_ARCS_PER_LINE arcs per 64-byte
        line of totals. Else whether ``push_blocking`` is "blocked".
    """
    if push_blocking == "auto":
        total = n * vertex_bytes
        return total > PUSH_LLC_SHARE * llc_bytes() and arcs >= PUSH_ARCS_PER_LINE * total / 64
    return push_blocking == "blocked"


def _cuts(ends, parts):
    """Where to cut senders whose out-lists end at the arc counts `ends` (cumulative) into
    `parts` runs of about equal arcs: ``[0, .., ends.size]``."""
    arcs = int(ends[-1])
    marks = np.searchsorted(ends, np.arange(1, parts) * (arcs / parts), side="right")
    return np.r_[0, marks, ends.size].astype(np.int64)


class Push:
    """A program's CPU push (SpMSpV): every sender of `ids` folds its values into the totals of
    the vertices it reaches, each vertex's values in the order of the senders, then of the lists,
    as a serial push folds them (so either way gives the serial push's totals, bit for bit).

    Unblocked, each of the threads owns a range of destinations and reads every list, folding
    what lands in its range. Blocked (propagation blocking, Balaji's thesis 5.2.1), each thread
    bins the (destination, value) pairs of a run of senders by destination range, in one pass
    counting and one writing; then each bin, its pairs in sender order, is folded into a range of
    totals that fits the cache. Senders go by batches of about PUSH_BATCH_ARCS arcs, which bounds
    the bins' memory. :func:`pays` chooses.

    Parameters
    ----------
    k : dict
        The program's kernels (:func:`kernels`).
    program : Program

    Notes
    -----
    Called as the kernel it replaced: ``push(ids, g_off, g_idx, offsets, targets, weights,
    weighted, *params, *st, *ms, *tt, received, touched, k)``; appends the vertices reached for
    the first time to ``touched`` from k on and returns the new end.
    """

    def __init__(self, k, program):
        self.kernels = k
        self.fields = len(program.params) + len(program.state) + len(program.message)
        self.vertex_bytes = 1 + sum(f.dtype.itemsize for f in program.message)
        self.reached = None
        self.bins = ()

    def __call__(self, ids, g_off, g_idx, offsets, targets, weights, weighted, *rest):
        *arrays, touched, k = rest
        if not ids.size:
            return k
        received = arrays[-1]
        n = received.size
        if self.reached is None or self.reached.size < n:
            self.reached = np.empty(n, touched.dtype)
        ends = np.cumsum(offsets[ids + 1] - offsets[ids])
        lists = (g_off, g_idx, offsets, targets, weights, weighted)
        threads = numba.get_num_threads()
        if not pays(int(ends[-1]), n, self.vertex_bytes):
            width = -(-n // threads)
            found = np.empty(-(-n // width), np.int64)
            self.kernels["push_owned"](ids, width, *lists, *arrays, self.reached, found)
            return gather_reached(self.reached, width, found, touched, k)
        width = bin_width(self.vertex_bytes)
        shift = width.bit_length() - 1
        bins = -(-n // width)
        sending, totals = arrays[: self.fields], arrays[self.fields :]
        batches = np.unique(_cuts(ends, max(1, -(-int(ends[-1]) // PUSH_BATCH_ARCS))))
        for a, b in zip(batches[:-1], batches[1:], strict=True):
            batch = ids[a:b]
            base = ends[a - 1] if a else 0
            cuts = _cuts(ends[a:b] - base, min(threads, b - a))
            counts = np.zeros((cuts.size - 1, bins), np.int64)
            bin_counts(batch, cuts, offsets, targets, shift, counts)
            flat = counts.T.ravel()  # bin by bin, each bin's chunks in sender order
            place = np.cumsum(flat) - flat
            starts = np.r_[place[:: cuts.size - 1], flat.sum()]
            place = np.ascontiguousarray(place.reshape(bins, -1).T)
            pairs = self._buffers(int(starts[-1]), targets.dtype, totals[:-1])
            self.kernels["bin_fill"](batch, cuts, shift, place, *lists, *sending, *pairs)
            found = np.empty(bins, np.int64)
            self.kernels["bin_fold"](starts, shift, *pairs, *totals, self.reached, found)
            k = gather_reached(self.reached, width, found, touched, k)
        return k

    def _buffers(self, size, ids_dtype, totals):
        """The bins' arrays (destinations, then a value per message field) of at least `size`
        pairs, kept between calls."""
        if not self.bins or self.bins[0].size < size:
            self.bins = (
                np.empty(size, ids_dtype),
                *(np.empty(size, t.dtype) for t in totals),
            )
        return self.bins
