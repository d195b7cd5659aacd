"""The text formats' data lines parsed by whole-array operations, with NumPy or CuPy: a piece of
text in device memory becomes its rows of two integer ids and an optional weight without a loop
over lines, so that a GPU parses it at the speed of its memory.

The piece's bytes are classed by a lookup table (separators, line ends); its fields are the runs
of other bytes, found where the class changes from one byte to the next; each field's line is the
count of line ends before it (a binary search of their positions); a line's first field says
whether it is a comment. Ids and weights are read a character position at a time over all fields
at once (a field of k characters takes k steps), weights by a small automaton of the float
grammar of :mod:`gravel.backends.cpu.text`.

The rows are those that :func:`gravel.backends.cpu.text.parse_lines` reads from the same bytes,
bit for bit: an id is exact in int64; a weight's mantissa is summed a digit at a time in float64
by the tokenizer's operations in its order (a multiplication, then an addition: two operations
of the array module, never fused), then multiplied by the power of ten that the tokenizer itself
computes (:func:`powers_of_ten`). What this path does not vouch for (any line the tokenizer would
refuse, a nan or inf, a weight of more than 40 characters or 4 exponent digits) makes
:func:`parse_piece` return None: the caller then reads the piece with the tokenizer, which reads
it or names its error.
"""

from collections import namedtuple
from functools import lru_cache

import numpy as np

#: a piece's rows: ids as written (int64) and weights (float64; None without a weight column),
#: its data lines' column count (0 without any), its lines as the tokenizer counts them, and the
#: tokenizer's error code (0: none)
Piece = namedtuple("Piece", "src dst weights columns lines error")

#: longest id field (int64 holds every 18-digit number)
ID_DIGITS = 18
#: most exponent digits read here
EXPONENT_DIGITS = 4
#: longest weight field read here (a longer one goes to the tokenizer)
WEIGHT_CHARS = 40
#: the powers of ten of a weight's scale, from 10**-_LOW on
_LOW = WEIGHT_CHARS + 10**EXPONENT_DIGITS
_HIGH = 10**EXPONENT_DIGITS


@lru_cache(maxsize=1)
def powers_of_ten():
    """``10.0 ** k`` for k from -_LOW to _HIGH, as the tokenizer computes it (by parsing
    ``1e<k>``): the same bits, whatever the power its compiled code calls.

    Returns
    -------
    numpy.ndarray of float64
    """
    from ..backends.cpu.text import parse_lines

    scales = range(-_LOW, _HIGH + 1)
    text = "".join(f"0 0 1e{k}\n" for k in scales).encode()
    room = len(scales)
    src, dst, w = np.empty(room, np.int64), np.empty(room, np.int64), np.empty(room)
    parse_lines(np.frombuffer(text, np.uint8), np.empty(0, np.uint8), 0, src, dst, w)
    return w


def _table(xp, chars):
    """A 256-entry lookup table on `xp`, true at the bytes of `chars`."""
    table = np.zeros(256, bool)
    table[np.frombuffer(chars, np.uint8)] = True
    return xp.asarray(table)


def parse_piece(xp, buf, comments=b"#%", prefix=b""):
    """The rows of a piece of text, or None where the tokenizer must read it.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: the module of `buf`, which every array operation uses.
    buf : numpy.ndarray or cupy.ndarray of uint8
        The text: whole lines (the last may lack its line end), LF line ends (a CR before one is
        a separator, as for the tokenizer).
    comments : bytes, default b"#%"
        The bytes that start a comment line (after blanks).
    prefix : bytes, default b""
        The byte every data line starts with, then a separator (DIMACS's ``a``).

    Returns
    -------
    Piece or None
        The rows, on `xp`; None where the piece holds a line the tokenizer would refuse or that
        this path does not read (a nan or inf weight, one of more than 40 characters or 4
        exponent digits).
    """
    size = buf.shape[0]
    if not size:
        return Piece(*_no_rows(xp), 0, 0, 0)
    ends_at = xp.flatnonzero(buf == 10)
    starts, ends = _fields(xp, buf)
    lines = ends_at.shape[0] + _tail_counts(xp, buf, ends_at)
    if not starts.shape[0]:
        if bool(xp.any(buf == 44)):  # commas on a line of no field: an empty field
            return None
        return Piece(*_no_rows(xp), 0, lines, 0)
    line = xp.searchsorted(ends_at, starts)  # each field's line in the piece
    first = _heads(xp, line)  # a line's first field
    marked = _table(xp, comments)[buf[starts[first]]]  # each line with fields: a comment?
    # each field: on a comment line? (a line's fields are together: its first field's answer)
    is_comment = marked[xp.cumsum(first) - 1] if bool(xp.any(marked)) else None
    keep = None if is_comment is None else ~is_comment
    lead = None
    if prefix:
        lead = first if keep is None else first & keep
        at, to = starts[lead], ends[lead]
        after = buf[xp.minimum(to, size - 1)]
        good = (to - at == 1) & (buf[at] == prefix[0]) & (to < size) & (after != 10)
        if not bool(xp.all(good)):
            return None
        keep = ~lead if keep is None else keep & ~lead
    if not _commas_fit(xp, buf, starts, line, ends_at, is_comment, lead):
        return None
    data_lines = None if lead is None else int(xp.count_nonzero(lead))
    if keep is not None:  # the fields of data lines alone
        starts, ends, line = starts[keep], ends[keep], line[keep]
        if not starts.shape[0]:
            return None if data_lines else Piece(*_no_rows(xp), 0, lines, 0)
        first = _heads(xp, line)
    heads = xp.flatnonzero(first)
    rows, total = heads.shape[0], starts.shape[0]
    if data_lines is not None and rows != data_lines:  # a line of its prefix alone
        return None
    columns = total // rows
    if columns not in (2, 3) or rows * columns != total:
        return None
    if bool(xp.any(heads != xp.arange(rows) * columns)):  # a line of another column count
        return None
    starts, ends = starts.reshape(rows, columns), ends.reshape(rows, columns)
    ids = _integers(xp, buf, starts[:, :2].ravel(), ends[:, :2].ravel())
    if ids is None:
        return None
    ids = ids.reshape(rows, 2)
    weights = None
    if columns == 3:
        weights = _reals(xp, buf, starts[:, 2].copy(), ends[:, 2].copy())
        if weights is None:
            return None
    return Piece(ids[:, 0].copy(), ids[:, 1].copy(), weights, columns, lines, 0)


def _no_rows(xp):
    return xp.empty(0, xp.int64), xp.empty(0, xp.int64), None


def _fields(xp, buf):
    """Where the fields (runs of bytes that are neither separators nor line ends) start and end
    (one past their last byte)."""
    other = ~_table(xp, b" \t\r,\n")[buf]
    first, last = other.copy(), other.copy()
    first[1:] &= ~other[:-1]
    last[:-1] &= ~other[1:]
    return xp.flatnonzero(first), xp.flatnonzero(last) + 1


def _tail_counts(xp, buf, ends_at):
    """1 where the text after the last line end holds more than blanks (a last line without its
    line end, which the tokenizer counts), else 0."""
    after = int(ends_at[-1]) + 1 if ends_at.shape[0] else 0
    if after == buf.shape[0]:
        return 0
    return int(bool(xp.any(~_table(xp, b" \t\r")[buf[after:]])))


def _heads(xp, line):
    """True at the first of each run of equal values of the sorted `line`."""
    first = xp.ones(line.shape[0], bool)
    first[1:] = line[1:] != line[:-1]
    return first


def _commas_fit(xp, buf, starts, line, ends_at, is_comment, lead):
    """Whether the commas of the data lines are separators the tokenizer takes: at most one
    between two fields or after the last, none before a line's first field (after its prefix
    `lead`, where there is one). `is_comment`: the fields on comment lines, None for none."""
    at = xp.flatnonzero(buf == 44)
    if not at.shape[0]:
        return True
    before = xp.searchsorted(starts, at)  # the fields before each comma
    prev = xp.maximum(before - 1, 0)
    if not bool(xp.all((before > 0) & (line[prev] == xp.searchsorted(ends_at, at)))):
        return False  # a comma before its line's first field
    data = xp.ones(at.shape[0], bool) if is_comment is None else ~is_comment[prev]
    if lead is not None and bool(xp.any(data & lead[prev])):
        return False  # a comma between the prefix and the first field
    gaps = before[data]
    return not bool(xp.any(gaps[1:] == gaps[:-1]))  # two commas between the same fields


def _integers(xp, buf, starts, ends):
    """The fields' values as int64, or None where one is not 1 to 18 digits."""
    length = ends - starts
    longest = int(length.max())
    if longest > ID_DIGITS:
        return None
    value = xp.zeros(starts.shape[0], xp.int64)
    bad = xp.zeros(starts.shape[0], bool)
    last = buf.shape[0] - 1
    for k in range(longest):
        more = length > k
        digit = buf[xp.minimum(starts + k, last)].astype(xp.int64) - 48
        bad |= more & ((digit < 0) | (digit > 9))
        value = xp.where(more, value * 10 + digit, value)
    return None if bool(xp.any(bad)) else value


# the phases of a weight's characters: sign or mantissa, mantissa's whole digits, fraction,
# exponent's sign or digits, exponent's digits
_START, _WHOLE, _FRACTION, _EXPONENT, _EXPONENT_DIGITS = range(5)


def _reals(xp, buf, starts, ends):
    """The fields' values as float64, as the tokenizer reads them, or None where one is not a
    decimal number of at most 4 exponent digits (or is nan or inf)."""
    length = ends - starts
    longest = int(length.max())
    if longest > WEIGHT_CHARS:
        return None
    count = starts.shape[0]
    phase = xp.zeros(count, xp.int32)
    mantissa, exponent = xp.zeros(count), xp.zeros(count, xp.int64)
    digits, fraction, exponent_digits = (xp.zeros(count, xp.int32) for _ in range(3))
    negative, exponent_negative = xp.zeros(count, bool), xp.zeros(count, bool)
    bad = xp.zeros(count, bool)
    last = buf.shape[0] - 1
    for k in range(longest):
        more = length > k
        c = buf[xp.minimum(starts + k, last)]
        digit = more & (c >= 48) & (c <= 57)
        value = c.astype(xp.int64) - 48
        sign = more & ((c == 43) | (c == 45))
        dot = more & (c == 46)
        mark = more & ((c | 32) == 101)
        bad |= more & ~(digit | sign | dot | mark)
        # mantissa digits before the exponent; exponent digits after its mark
        in_mantissa = digit & (phase <= _FRACTION)
        mantissa = xp.where(in_mantissa, mantissa * 10.0 + value, mantissa)
        digits += in_mantissa
        fraction += in_mantissa & (phase == _FRACTION)
        in_exponent = digit & (phase >= _EXPONENT)
        exponent = xp.where(in_exponent, exponent * 10 + value, exponent)
        exponent_digits += in_exponent
        # a sign opens the mantissa or the exponent; elsewhere it ends the number
        bad |= sign & (phase != _START) & (phase != _EXPONENT)
        negative |= sign & (phase == _START) & (c == 45)
        exponent_negative |= sign & (phase == _EXPONENT) & (c == 45)
        bad |= dot & (phase > _WHOLE)
        bad |= mark & ((phase == _START) | (phase >= _EXPONENT))
        to_whole = (in_mantissa | sign) & (phase == _START)
        to_digits = in_exponent | (sign & (phase == _EXPONENT))
        phase = xp.where(to_whole, _WHOLE, phase)
        phase = xp.where(dot, _FRACTION, phase)
        phase = xp.where(mark, _EXPONENT, phase)
        phase = xp.where(to_digits, _EXPONENT_DIGITS, phase)
    bad |= (digits == 0) | (exponent_digits > EXPONENT_DIGITS)
    bad |= (phase >= _EXPONENT) & (exponent_digits == 0)
    if bool(xp.any(bad)):
        return None
    scale = xp.where(exponent_negative, -exponent, exponent) - fraction
    sign = xp.where(negative, -1.0, 1.0)
    # as the tokenizer: (sign * mantissa) * 10.0**scale, in float64 (inf, 0 or nan past its range)
    with np.errstate(over="ignore", invalid="ignore"):
        return sign * mantissa * xp.asarray(powers_of_ten())[scale + _LOW]
