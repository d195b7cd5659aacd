"""Reading the text formats' edges: a text's lines of two integer ids and an optional weight,
parsed a chunk at a time on every thread (:mod:`gravel.backends.cpu.text`) into int32 and float32
blocks, which the graph is built from without an edge list whole (peak memory: the blocks and the
CSR). Errors name the file and line, as the tokenizer finds them, in the order of the lines.

Small texts of plain id pairs (no weights, nothing to report) are read with NumPy instead, so that
a first run does not wait for the tokenizer to compile (SMALL_TEXT_BYTES, docs/tuning.md).
"""

from contextlib import closing
from functools import partial

import numpy as np

from ..backends.cpu import chunks as pieces
from ..backends.cpu.csr import expand_runs
from ..backends.cpu.text import (
    BAD_NUMBER,
    BAD_PREFIX,
    COLUMNS_CHANGE,
    EMPTY_FIELD,
    NEGATIVE_ID,
    NOT_INTEGER,
    OK,
    TOO_FEW,
    TOO_MANY,
    block_rows,
    gather_rows,
    line_cuts,
    parse_blocks,
    parse_lines,
)
from ..compiling import watch
from ..errors import GraphFormatError
from ._ahead import host_buffers, read_ahead
from .device_text import Piece, parse_piece

watch()  # the tokenizer's kernels compile at their first use: long compilations are announced
#: texts up to this many bytes try the NumPy reader first; larger ones go straight to Numba
SMALL_TEXT_BYTES = 1 << 22
#: text parsed at a time by whole-array operations (read_edges's `xp`): their temporaries take
#: up to 32 bytes per byte of text (io/__init__.py: DEVICE_BYTES_PER_PIECE_BYTE)
DEVICE_PIECE_BYTES = 1 << 26

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


def parse(buf, *, comments=b"#%", prefix=b"", path=None, first_line=1):
    """Parse the data lines of ``buf`` (a uint8 array) on one thread, NumPy first where it is
    small. Returns (src, dst, weights or None), int64 and float64."""
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


def check_count(edges, declared, what, path):
    """Raise if `edges` are not the `declared` number of `what` (entries, arcs) that a header
    promised: more names the first extra line, fewer suggests truncation."""
    if edges.m > declared:
        raise GraphFormatError(
            f"more {what} than the {declared} the header declares", path, edges.extra
        )
    if edges.m < declared:
        raise GraphFormatError(
            f"header declares {declared} {what}, the file ends after {edges.m} (truncated?)", path
        )


#: ids of the blocks fit int32 (less the base) up to this; beyond it (an edge list's ids, which
#: the caller relabels or refuses) the blocks are int64
_INT32 = 2**31 - 1


class Edges:
    """The edges of a text, as blocks of arrays, and what the reader found wrong with them in a
    pass over the whole text (reported in the order the old one-pass readers checked them).

    Attributes
    ----------
    blocks : list of (src, dst, weights or None)
        int32 ids (int64 where the ids do not fit; sources sorted in runs as a pair (ids,
        counts), as :func:`gravel.backends.cpu.csr.build_csr_blocks` takes them), float32
        weights; dropped once a problem below is found (the text is read on for errors of its
        lines, which come first).
    m : int
        The data lines read.
    columns : int
        2 or 3 (a weight column); 0 without data lines.
    outside : list of two (row, id, line) or None
        The first id of the source and of the target column outside the bounds the reader gave.
    fraction : (row, weight) or None
        The first weight that is not a whole number, where the reader asked.
    extra : int or None
        The line of the first data line past the count a header declares.
    """

    def __init__(self):
        self.blocks = []
        self.m = self.columns = 0
        self.outside = [None, None]
        self.fraction = self.extra = None

    @property
    def weighted(self):
        """Whether the text has a weight column (bool)."""
        return self.columns == 3

    def arrays(self):
        """The blocks joined (and emptied).

        Returns
        -------
        src, dst : numpy.ndarray
        weights : numpy.ndarray or None
        """
        blocks, self.blocks = self.blocks, []
        if not blocks:
            return np.empty(0, np.int32), np.empty(0, np.int32), self._no_weights()
        blocks = [(expand_runs(src), dst, w) for src, dst, w in blocks]
        joined = [np.concatenate(part) if part[0] is not None else None for part in zip(*blocks)]
        return tuple(joined)

    def _no_weights(self):
        return np.empty(0, np.float32) if self.weighted else None

    def _note(self, src, dst, w, lo, hi, odd, block, line, read):
        """Check one block's rows: ``src``/``dst``/``w`` as parsed, ``block`` their text starting
        at `line`; ``read`` says what the reader checks."""
        comments, bounds, declared = read["comments"], read["bounds"], read["declared"]
        rows, first = src.shape[0], self.m
        if declared is not None and self.extra is None and first + rows > declared:
            self.extra = line_of_row(block, declared - first, comments, line)
        if bounds is not None and (lo < bounds[0] or hi > bounds[1]):
            for k, ids in enumerate((src, dst)):
                bad = np.flatnonzero((ids < bounds[0]) | (ids > bounds[1]))
                if self.outside[k] is None and bad.shape[0]:
                    at = int(bad[0])
                    self.outside[k] = (
                        first + at,
                        int(ids[at]),
                        line_of_row(block, at, comments, line),
                    )
        if odd >= 0 and self.fraction is None:
            self.fraction = (first + odd, float(w[odd]))
        self.m += rows

    @property
    def _faulty(self):
        return self.extra is not None or self.fraction is not None or self.outside != [None, None]


def read_edges(
    text,
    path,
    *,
    comments,
    prefix=b"",
    first_line=1,
    base=0,
    bounds=None,
    whole=False,
    weighted=True,
    declared=None,
    xp=None,
):
    """The edges of `text`'s chunks, parsed on every thread (or by `xp`).

    Parameters
    ----------
    text : gravel.io._files.Text
        The file, its header skipped.
    path : str or os.PathLike
        The file, for the messages.
    comments : bytes
        The bytes that start a comment line.
    prefix : bytes, default b""
        The byte every data line starts with (DIMACS's ``a``).
    first_line : int, default 1
        The line the chunks start at.
    base : int, default 0
        Subtracted from the ids kept (1 for 1-based formats).
    bounds : (int, int), optional
        The ids allowed, as written: the first outside them is noted.
    whole : bool, default False
        Note the first weight that is not a whole number.
    weighted : bool, default True
        Keep the weights.
    declared : int, optional
        The data lines a header declares: the first line past them is noted.
    xp : module, optional
        ``numpy`` or ``cupy``: parse pieces of the text by whole-array operations of this module
        (:mod:`gravel.io.device_text`), DEVICE_PIECE_BYTES at a time, into blocks on its
        device, instead of by the tokenizer.

    Returns
    -------
    Edges

    Raises
    ------
    GraphFormatError
        A line that does not parse, naming the file and line.
    """
    read = {"comments": comments, "bounds": bounds, "declared": declared}
    if xp is not None:
        # the next piece read from the file while the device parses this one
        parts = read_ahead(partial(text.chunks, DEVICE_PIECE_BYTES), host_buffers(xp))
        with closing(parts):  # the reading thread stops when an error ends the parse
            return _read_pieces(xp, parts, path, read, prefix, first_line, base, whole, weighted)
    edges = Edges()
    marks = np.frombuffer(comments, np.uint8)
    lead = prefix[0] if prefix else 0
    room = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0))
    line = first_line
    if text.whole:
        chunks = text.chunks()
    else:  # the next chunk read from the file while this one is parsed
        chunks = read_ahead(partial(text.chunks, None), host_buffers(np))
    with closing(chunks):
        for buf in chunks:
            if text.whole and buf.shape[0] <= SMALL_TEXT_BYTES:
                src, dst, w = parse(
                    buf, comments=comments, prefix=prefix, path=path, first_line=line
                )
                edges.columns = 3 if w is not None else 2 * (src.shape[0] > 0)
                w = np.zeros(src.shape[0]) if w is None else w
                cut, found = None, np.array([[src.shape[0], edges.columns, OK, 0]])
                starts, lines = np.array([0, buf.shape[0]]), np.array([line])
            else:
                cuts = line_cuts(buf, pieces())
                cut = block_rows(cuts)
                if room[0].shape[0] < cut[-1]:
                    room = (
                        np.empty(cut[-1], np.int64),
                        np.empty(cut[-1], np.int64),
                        np.empty(cut[-1]),
                    )
                src, dst, w = room
                found = np.empty((cuts.shape[0] - 1, 4), np.int64)
                parse_blocks(buf, cuts, cut, marks, lead, src, dst, w, found)
                lines = _check_blocks(edges, found, buf, cuts, line, comments, path)
                starts = cuts
            _keep(edges, src, dst, w, cut, found, buf, starts, lines, base, whole, weighted, read)
            line = lines[-1] + found[-1, 3]
    return edges


def _check_blocks(edges, found, buf, cuts, line, comments, path):
    """Raise the first error of the blocks' lines, as a one-pass reader meets it (a block's first
    data line of another column count than the text's first included); set `edges.columns`.
    Returns the line each block starts at."""
    lines = line + np.concatenate([[0], np.cumsum(found[:-1, 3])])
    for b, (rows, columns, err, at) in enumerate(found):
        if rows and edges.columns and columns != edges.columns:
            block = buf[cuts[b] : cuts[b + 1]]
            where = line_of_row(block, 0, comments, int(lines[b]))
            raise GraphFormatError(MESSAGES[COLUMNS_CHANGE], path, where)
        if rows and not edges.columns:
            edges.columns = int(columns)
        if err != OK:
            raise GraphFormatError(MESSAGES[int(err)], path, int(lines[b] + at))
    return lines


def _keep(edges, src, dst, w, firsts, found, buf, starts, lines, base, whole, weighted, read):
    """Pack the blocks' rows into a block of `edges` and note what is wrong with them (`firsts`
    None: one block, parsed on one thread, packed by NumPy: nothing compiles)."""
    whole = whole and edges.weighted
    weights = edges.weighted and weighted
    if firsts is None:
        out, kept, stats = _pack(src, dst, w, base, whole, weights)
    else:
        total, stats = int(found[:, 0].sum()), np.empty((found.shape[0], 3), np.int64)
        for dtype in (np.int32, np.int64):
            out = (np.empty(total, dtype), np.empty(total, dtype))
            kept = np.empty(total if weights else 0, np.float32)
            gather_rows(src, dst, w, firsts, found, base, whole, *out, kept, stats)
            if total == 0 or stats[:, 1].max() - base <= _INT32:
                break
    for b in range(found.shape[0]):
        if found[b, 0]:
            a = 0 if firsts is None else firsts[b]
            z = a + found[b, 0]
            block = buf[starts[b] : starts[b + 1]]
            lo, hi, odd = stats[b]
            edges._note(src[a:z], dst[a:z], w[a:z], lo, hi, odd, block, int(lines[b]), read)
    if out[0].shape[0] and not edges._faulty:
        edges.blocks.append((runs(out[0]), out[1], kept if weights else None))


def runs(src):
    """Sources sorted in runs (as most edge lists list them) as a pair (ids, counts), a quarter
    of the memory or less; others as they are."""
    starts = np.flatnonzero(src[1:] != src[:-1]) + 1
    if src.dtype != np.int32 or not src.shape[0] or starts.shape[0] > src.shape[0] // 4:
        return src
    bounds = np.concatenate([[0], starts, [src.shape[0]]])
    return src[bounds[:-1]], np.diff(bounds).astype(np.int32)


def _pack(src, dst, w, base, whole, weights):
    """gather_rows of one block, by NumPy."""
    if not src.shape[0]:
        return (src.astype(np.int32), dst.astype(np.int32)), None, np.zeros((1, 3), np.int64)
    lo, hi = min(src.min(), dst.min()), max(src.max(), dst.max())
    odd = np.flatnonzero(w != np.floor(w)) if whole else []
    stats = np.array([[lo, hi, odd[0] if len(odd) else -1]], np.int64)
    dtype = np.int32 if hi - base <= _INT32 else np.int64
    out = ((src - base).astype(dtype), (dst - base).astype(dtype))
    return out, (w.astype(np.float32) if weights else None), stats


def _read_pieces(xp, parts, path, read, prefix, first_line, base, whole, weighted):
    """read_edges by `xp`: each piece copied to its device once and parsed there, or (a piece
    :func:`gravel.io.device_text.parse_piece` does not vouch for) by the tokenizer, which reads
    it or names its first error; the blocks, one a piece, stay on the device."""
    comments = read["comments"]
    edges, line = Edges(), first_line
    for buf in parts:
        got = parse_piece(xp, xp.asarray(buf), comments, prefix)
        if got is None:
            got = _tokenized(xp, buf, comments, prefix)
        found = np.array([[got.src.shape[0], got.columns, got.error, got.lines]])
        _check_blocks(edges, found, buf, np.array([0, buf.shape[0]]), line, comments, path)
        src, dst, w = got.src, got.dst, got.weights
        if src.shape[0]:
            lo = int(xp.minimum(src.min(), dst.min()))
            hi = int(xp.maximum(src.max(), dst.max()))
            odd = -1
            if whole and edges.weighted:
                bad = xp.flatnonzero(w != xp.floor(w))
                odd = int(bad[0]) if bad.shape[0] else -1
            edges._note(src, dst, w, lo, hi, odd, buf, line, read)
            if not edges._faulty:
                dtype = np.int32 if hi - base <= _INT32 else np.int64
                with np.errstate(over="ignore"):  # beyond float32: inf, as the tokenizer's
                    kept = w.astype(np.float32) if edges.weighted and weighted else None
                edges.blocks.append(((src - base).astype(dtype), (dst - base).astype(dtype), kept))
        line += got.lines
    return edges


def _tokenized(xp, buf, comments, prefix):
    """A piece read by the tokenizer, as a device_text Piece on `xp`."""
    cap = int(np.count_nonzero(buf == 10)) + 1
    src, dst, w = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap)
    marks = np.frombuffer(comments, np.uint8)
    rows, columns, err, line = parse_lines(buf, marks, prefix[0] if prefix else 0, src, dst, w)
    weights = xp.asarray(w[:rows]) if columns == 3 else None
    return Piece(xp.asarray(src[:rows]), xp.asarray(dst[:rows]), weights, columns, line, err)
