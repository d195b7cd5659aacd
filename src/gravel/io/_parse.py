"""A Numba tokenizer for the text formats: lines of two integer ids and an optional weight.

One pass over the raw bytes, no Python objects per line. Errors come back as a code and a line
number, which the format readers turn into a GraphFormatError naming the file and line.

Small texts of plain id pairs (no weights, nothing to report) are read with NumPy instead, so that
a first run does not wait for the tokenizer to compile (SMALL_TEXT_BYTES, docs/tuning.md).
"""

import numba
import numpy as np

from ..compiling import watch

watch()  # this module compiles Numba kernels: long compilations are announced

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
#: texts up to this many bytes try the NumPy reader first; larger ones go straight to Numba
SMALL_TEXT_BYTES = 1 << 22

MESSAGES = {
    BAD_NUMBER: "cannot read a number",
    NEGATIVE_ID: "negative vertex id",
    TOO_FEW: "expected at least two columns (source and target)",
    COLUMNS_CHANGE: "number of columns differs from the first data line",
    BAD_PREFIX: "unexpected line",
    NOT_INTEGER: "vertex id is not an integer",
    EMPTY_FIELD: "empty field (two commas with nothing between them)",
    TOO_MANY: "more than three columns (source, target and weight): gravel reads no others, "
    "remove them",
}


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


def parse(buf, *, comments=b"#%", prefix=b"", path=None, first_line=1):
    """Parse the data lines of ``buf`` (a uint8 array). Returns (src, dst, weights or None)."""
    from ..errors import GraphFormatError

    if not prefix and buf.shape[0] <= SMALL_TEXT_BYTES:
        pairs = id_pairs(buf, comments)
        if pairs is not None:
            return pairs[0], pairs[1], None
    cap = int(np.count_nonzero(buf == 10)) + 1
    src = np.empty(cap, np.int64)
    dst = np.empty(cap, np.int64)
    w = np.empty(cap, np.float64)
    rows, ncols, err, line = parse_lines(
        buf, np.frombuffer(comments, np.uint8), prefix[0] if prefix else 0, src, dst, w
    )
    if err != OK:
        raise GraphFormatError(MESSAGES[err], path, first_line + line)
    return src[:rows], dst[:rows], (w[:rows] if ncols == 3 else None)


def _table(chars):
    """A 256-entry lookup table, true at the bytes of `chars`."""
    table = np.zeros(256, bool)
    table[np.frombuffer(chars, np.uint8)] = True
    return table


_BLANK = _table(b" \t\r")
_DIGIT = _table(b"0123456789")
_PAIR_BYTES = _table(b"0123456789 \t\r,\n")
_POW10 = 10 ** np.arange(18, dtype=np.int64)


def id_pairs(buf, comments=b"#%"):
    """(src, dst) of ``buf`` read with NumPy, or None unless every data line is two ids that
    ``parse_lines`` would accept with no weight column (it then parses, or names the error).

    Lines are split, and comments recognised, as ``parse_lines`` does: a comment line's first byte
    other than a blank (space, tab, CR) is in `comments`; ids are runs of at most 18 digits between
    separators (blanks and commas). Memory: about 16 bytes per byte of text.
    """
    is_newline = buf == 10
    line = np.cumsum(is_newline, dtype=np.int32) - is_newline  # each byte's line, its \n included
    lines = int(line[-1]) + 1 if buf.shape[0] else 0
    seen = np.cumsum(~_BLANK[buf], dtype=np.int32)  # non-blank bytes up to each byte
    before = np.r_[0, seen[is_newline]]  # non-blank bytes before each line
    marks = np.flatnonzero(_table(comments)[buf])
    data = np.ones(lines, bool)
    data[line[marks][seen[marks] - before[line[marks]] == 1]] = False  # lines that are comments
    data = data[line]
    if not _PAIR_BYTES[buf[data]].all():
        return None
    edge = np.diff((_DIGIT[buf] & data).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts, ends = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    length = ends - starts
    if np.any(length > 18):
        return None
    per_line = np.bincount(line[starts], minlength=lines)
    if np.any((per_line != 0) & (per_line != 2)):
        return None
    if np.any(buf[(per_line == 0)[line] & data] == 44):  # commas alone: too few columns
        return None
    commas = np.flatnonzero((buf == 44) & data)
    if np.any(np.bincount(line[commas], minlength=lines) > 1):  # an empty field?
        return None
    first = np.full(lines, buf.shape[0], np.int64)  # each line's first digit
    np.minimum.at(first, line[starts], starts)
    if np.any(commas < first[line[commas]]):  # a comma before the first field: an empty one
        return None
    ids = np.zeros(starts.shape[0], np.int64)
    for k in range(int(length.max()) if length.size else 0):
        more = length > k
        ids[more] = ids[more] * 10 + (buf[starts[more] + k] - 48)
    return ids[0::2].copy(), ids[1::2].copy()


def line_of_row(buf, row, comments=b"#%", first_line=1):
    """The line number of data line `row` (0-based) of ``buf``, counted as ``parse`` counts; for
    error messages only (it splits the bytes in Python)."""
    for i, line in enumerate(bytes(buf).split(b"\n")):
        line = line.strip(b" \t\r")
        if not line or line[0] in comments:
            continue
        if row == 0:
            return first_line + i
        row -= 1
    return None


def check_count(found, declared, what, buf, comments, first_line, path):
    """Raise if the data lines of ``buf`` are not the `declared` number of `what` (entries,
    arcs) that a header promised: more names the first extra line, fewer suggests truncation."""
    from ..errors import GraphFormatError

    if found > declared:
        line = line_of_row(buf, declared, comments, first_line)
        raise GraphFormatError(f"more {what} than the {declared} the header declares", path, line)
    if found < declared:
        raise GraphFormatError(
            f"header declares {declared} {what}, the file ends after {found} (truncated?)", path
        )
