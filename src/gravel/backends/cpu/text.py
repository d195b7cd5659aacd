"""The text formats' tokenizer: lines of two integer ids and an optional weight, read from raw
bytes with no Python object per line, one block of lines per thread.

A text is cut at line ends into blocks (``line_cuts``); ``parse_blocks`` runs the serial tokenizer
``parse_lines`` on every block at once, each into its own stretch of the output arrays (rows never
outnumber a quarter of a block's bytes: a data line is at least two digits and a separator), and
``gather_rows`` packs the blocks' rows into the arrays a graph is built from. Errors come back as a
code and a line number, which the format readers turn into a GraphFormatError naming the file and
line.
"""

import numba
import numpy as np

(
    OK,
    BAD_NUMBER,
    NEGATIVE_ID,
    TOO_FEW,
    COLUMNS_CHANGE,
    BAD_PREFIX,
    NOT_INTEGER,
    EMPTY_FIELD,
    TOO_MANY,
) = range(9)


@numba.njit(cache=True, inline="always")
def _is_sep(c):
    return c == 32 or c == 9 or c == 44 or c == 13  # space, tab, comma, CR


@numba.njit(cache=True)
def _parse_float(buf, p, end):
    """Parse a decimal float (or nan/inf) at buf[p:]; returns (value, next position, ok)."""
    sign = 1.0
    if p < end and (buf[p] == 45 or buf[p] == 43):
        if buf[p] == 45:
            sign = -1.0
        p += 1
    if (
        p + 2 < end
        and (buf[p] | 32) == 110
        and (buf[p + 1] | 32) == 97
        and (buf[p + 2] | 32) == 110
    ):
        return np.nan, p + 3, True
    if (
        p + 2 < end
        and (buf[p] | 32) == 105
        and (buf[p + 1] | 32) == 110
        and (buf[p + 2] | 32) == 102
    ):
        p += 3
        rest = (105, 110, 105, 116, 121)  # "inity"
        if p + 5 <= end:
            spelled = True
            for k in range(5):
                spelled = spelled and (buf[p + k] | 32) == rest[k]
            if spelled:
                p += 5
        return sign * np.inf, p, True
    mant = 0.0
    digits = 0
    scale = 0
    while p < end and 48 <= buf[p] <= 57:
        mant = mant * 10.0 + (buf[p] - 48)
        digits += 1
        p += 1
    if p < end and buf[p] == 46:
        p += 1
        while p < end and 48 <= buf[p] <= 57:
            mant = mant * 10.0 + (buf[p] - 48)
            digits += 1
            scale -= 1
            p += 1
    if digits == 0:
        return 0.0, p, False
    if p < end and (buf[p] | 32) == 101:
        p += 1
        esign = 1
        if p < end and (buf[p] == 45 or buf[p] == 43):
            if buf[p] == 45:
                esign = -1
            p += 1
        e = 0
        ed = 0
        while p < end and 48 <= buf[p] <= 57:
            e = e * 10 + (buf[p] - 48)
            ed += 1
            p += 1
        if ed == 0:
            return 0.0, p, False
        scale += esign * e
    return sign * mant * 10.0**scale, p, True


@numba.njit(cache=True)
def parse_lines(buf, comments, prefix, src, dst, w):
    """Fill src/dst/w from the data lines of buf.

    Lines that are empty or start with a byte in `comments` are skipped. When `prefix` is non-zero,
    every data line must start with that byte and a separator (DIMACS "a u v w"). A line of more
    than three columns is an error (TOO_MANY), not read in part.
    Returns (rows, columns, error code, 0-based line of the error).
    """
    end = buf.shape[0]
    p = 0
    line = 0
    rows = 0
    ncols = 0
    while p < end:
        # skip leading blanks
        while p < end and (buf[p] == 32 or buf[p] == 9 or buf[p] == 13):
            p += 1
        if p >= end:
            break
        c = buf[p]
        skip = c == 10
        for k in range(comments.shape[0]):
            if c == comments[k]:
                skip = True
        if skip:
            while p < end and buf[p] != 10:
                p += 1
            p += 1
            line += 1
            continue
        if prefix != 0:
            if c != prefix or p + 1 >= end or not _is_sep(buf[p + 1]):
                return rows, ncols, BAD_PREFIX, line
            p += 1
        cols = 0
        while True:
            commas = 0
            while p < end and _is_sep(buf[p]):
                commas += buf[p] == 44
                p += 1
            # two commas with nothing between them, or one before the first field (one comma
            # after the last field is a trailing separator)
            if commas > 1 or (commas == 1 and cols == 0):
                return rows, ncols, EMPTY_FIELD, line
            if p >= end or buf[p] == 10:
                break
            if cols < 2:
                if buf[p] == 45:
                    return rows, ncols, NEGATIVE_ID, line
                v = 0
                nd = 0
                while p < end and 48 <= buf[p] <= 57:
                    v = v * 10 + (buf[p] - 48)
                    nd += 1
                    p += 1
                if nd == 0 or nd > 18:
                    return rows, ncols, BAD_NUMBER, line
                if p < end and not (_is_sep(buf[p]) or buf[p] == 10):
                    if buf[p] == 46 or (buf[p] | 32) == 101:
                        return rows, ncols, NOT_INTEGER, line
                    return rows, ncols, BAD_NUMBER, line
                if cols == 0:
                    src[rows] = v
                else:
                    dst[rows] = v
            elif cols == 2:
                x, p, ok = _parse_float(buf, p, end)
                if not ok or (p < end and not (_is_sep(buf[p]) or buf[p] == 10)):
                    return rows, ncols, BAD_NUMBER, line
                w[rows] = x
            else:
                # a fourth column (a SNAP file's timestamp after its weight, say) is not read
                # silently: the caller would take the graph for the file's whole content
                return rows, ncols, TOO_MANY, line
            cols += 1
        if cols < 2:
            return rows, ncols, TOO_FEW, line
        if rows == 0:
            ncols = cols
        elif cols != ncols:
            return rows, ncols, COLUMNS_CHANGE, line
        rows += 1
        p += 1
        line += 1
    return rows, ncols, OK, line


@numba.njit(cache=True)
def line_cuts(buf, pieces):
    """Where `pieces` blocks of about equal bytes start, each at a line's start; the last entry is
    the text's length (empty blocks where lines are longer than a block)."""
    end = buf.shape[0]
    cuts = np.empty(pieces + 1, np.int64)
    cuts[0] = 0
    for k in range(1, pieces):
        p = max(k * end // pieces, cuts[k - 1])
        while 0 < p < end and buf[p - 1] != 10:
            p += 1
        cuts[k] = p
    cuts[pieces] = end
    return cuts


@numba.njit(cache=True)
def block_rows(cuts):
    """Where each block's rows start in the output arrays, and their total room: a block's data
    lines are at most a quarter of its bytes, plus one."""
    firsts = np.empty(cuts.shape[0], np.int64)
    firsts[0] = 0
    for b in range(cuts.shape[0] - 1):
        firsts[b + 1] = firsts[b] + (cuts[b + 1] - cuts[b] + 1) // 4 + 1
    return firsts


@numba.njit(parallel=True, cache=True, nogil=True)
def parse_blocks(buf, cuts, firsts, comments, prefix, src, dst, w, found):
    """``parse_lines`` on every block ``buf[cuts[b]:cuts[b + 1]]`` at once, into the outputs from
    ``firsts[b]`` on. ``found[b]`` receives the block's (rows, columns, error code, line)."""
    for b in numba.prange(cuts.shape[0] - 1):
        lo, hi = firsts[b], firsts[b + 1]
        rows, ncols, err, line = parse_lines(
            buf[cuts[b] : cuts[b + 1]], comments, prefix, src[lo:hi], dst[lo:hi], w[lo:hi]
        )
        found[b, 0] = rows
        found[b, 1] = ncols
        found[b, 2] = err
        found[b, 3] = line


@numba.njit(cache=True, nogil=True)
def gather_rows(src, dst, w, firsts, found, base, whole, out_src, out_dst, out_w, stats):
    """Pack the blocks' rows (``found[b, 0]`` of them from ``firsts[b]`` on) into the outputs, ids
    less `base` (out_w empty: weights dropped). ``stats[b]`` receives the block's
    smallest and largest id as written and, where `whole`, its first row whose weight is not a
    whole number (-1: none). One thread: a copy at memory speed, which a loaded machine's
    stragglers would slow down in parallel."""
    keep_w = out_w.shape[0] > 0
    q = 0
    for b in range(found.shape[0]):
        lo = np.iinfo(np.int64).max
        hi = np.iinfo(np.int64).min
        odd = -1
        p = firsts[b]
        for i in range(found[b, 0]):
            s, d = src[p + i], dst[p + i]
            lo = min(lo, s, d)
            hi = max(hi, s, d)
            out_src[q] = s - base
            out_dst[q] = d - base
            if keep_w:
                out_w[q] = w[p + i]
            if whole and odd < 0 and w[p + i] != np.floor(w[p + i]):
                odd = i
            q += 1
        stats[b, 0] = lo
        stats[b, 1] = hi
        stats[b, 2] = odd
