"""Numbers to text for the text formats' writers: lines of two ids and an optional weight, written
into one byte buffer by every thread at once, with no Python object per line.

``format_rows`` cuts the rows into blocks, one region of the buffer each (ROW_BYTES a row, room
for the longest); each block's lines are written from its region's start and its length comes
back, so the writer sends the regions to the file in order. Weights print as C's ``%.9g`` prints a
float32 (nine significant digits, trailing zeros dropped, an exponent below 1e-4 and from 1e9 on,
``nan``, ``inf``), which reads back as the same float32; or as integers.
"""

import numba
import numpy as np

#: room for one line: a lead ("a "), two ids of up to 11 characters and a weight of up to 16,
#: separated, with the line end
ROW_BYTES = 48

#: the weight column's forms
NO_WEIGHT, WHOLE, REAL = range(3)


@numba.njit(cache=True, inline="always")
def _put_int(out, p, v):
    """Write the decimal digits of `v` at ``out[p]``; returns the position after them."""
    if v < 0:
        out[p] = 45
        p += 1
        v = -v
    digits = 1
    rest = v
    while rest >= 10:
        rest //= 10
        digits += 1
    for k in range(digits - 1, -1, -1):
        out[p + k] = 48 + v % 10
        v //= 10
    return p + digits


@numba.njit(cache=True)
def _put_word(out, p, word):
    for k in range(len(word)):
        out[p + k] = ord(word[k])
    return p + len(word)


@numba.njit(cache=True, inline="always")
def _digit(m, digits, k):
    """The character of the k-th of the `digits` digits of `m`, from the left."""
    return 48 + (m // np.int64(10) ** (digits - 1 - k)) % 10


@numba.njit(cache=True)
def _put_real(out, p, x):
    """Write `x` as ``%.9g`` does at ``out[p]``; returns the position after it."""
    if np.isnan(x):
        return _put_word(out, p, "nan")
    if x < 0 or (x == 0 and np.signbit(x)):
        out[p] = 45
        p += 1
        x = -x
    if np.isinf(x):
        return _put_word(out, p, "inf")
    if x == 0:
        out[p] = 48
        return p + 1
    e = int(np.floor(np.log10(x)))
    scaled = x * 10.0 ** (8 - e) if e <= 8 else x / 10.0 ** (e - 8)
    if scaled < 1e8 - 0.5:  # log10 rounded up at a power of ten
        e -= 1
        scaled *= 10.0
    m = np.int64(np.rint(scaled))  # ties to even, as printf rounds an exact tie
    if m >= 1_000_000_000:  # rounded up to the next power of ten
        m //= 10
        e += 1
    digits = 9
    while digits > 1 and m % 10 == 0:
        m //= 10
        digits -= 1
    if -4 <= e < 9:
        if e < 0:
            out[p] = 48
            out[p + 1] = 46
            p += 2
            for _ in range(-e - 1):
                out[p] = 48
                p += 1
            for k in range(digits):
                out[p] = _digit(m, digits, k)
                p += 1
            return p
        for k in range(max(digits, e + 1)):
            if k == e + 1:
                out[p] = 46
                p += 1
            out[p] = _digit(m, digits, k) if k < digits else 48
            p += 1
        return p
    out[p] = _digit(m, digits, 0)
    p += 1
    if digits > 1:
        out[p] = 46
        p += 1
        for k in range(1, digits):
            out[p] = _digit(m, digits, k)
            p += 1
    out[p] = 101
    out[p + 1] = 45 if e < 0 else 43
    p += 2
    e = abs(e)
    if e < 10:
        out[p] = 48
        p += 1
    return _put_int(out, p, e)


@numba.njit(parallel=True, cache=True, nogil=True)
def format_rows(src, dst, w, add, lead, sep, kind, blocks, out, lengths):
    """Write a line per row, ``lead src+add sep dst+add [sep weight]``, the rows cut into `blocks`
    of equal count, block b from ``out[b * rows_per_block * ROW_BYTES]`` on; ``lengths[b]``
    receives its bytes. The weight prints as `kind` says: NO_WEIGHT, WHOLE (an integer) or REAL
    (``%.9g``)."""
    m = src.shape[0]
    per = (m + blocks - 1) // blocks
    for b in numba.prange(blocks):
        p = b * per * ROW_BYTES
        start = p
        for i in range(b * per, min(m, (b + 1) * per)):
            for k in range(lead.shape[0]):
                out[p + k] = lead[k]
            p += lead.shape[0]
            p = _put_int(out, p, np.int64(src[i]) + add)
            out[p] = sep
            p = _put_int(out, p + 1, np.int64(dst[i]) + add)
            if kind != NO_WEIGHT:
                out[p] = sep
                if kind == WHOLE:
                    p = _put_int(out, p + 1, np.int64(w[i]))
                else:
                    p = _put_real(out, p + 1, np.float64(w[i]))
            out[p] = 10
            p += 1
        lengths[b] = p - start
