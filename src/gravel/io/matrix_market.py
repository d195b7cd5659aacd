"""Matrix Market coordinate files: pattern/real/integer, general/symmetric, 1-based ids."""

import numpy as np

from ..errors import GraphFormatError
from ._declared import check_vertex_count
from ._files import split_header, write_rows

FIELDS = ("pattern", "real", "integer", "double")
SYMMETRIES = ("general", "symmetric")


def read(buf, path):
    """The entries of a Matrix Market file's text.

    Parameters
    ----------
    buf : numpy.ndarray of uint8
        The whole file, decompressed (as :func:`gravel.io.load` reads it).
    path : str or os.PathLike
        The file, for the messages.

    Returns
    -------
    src, dst : numpy.ndarray of int64
        The arcs' ends, 0-based.
    weights : numpy.ndarray of float64 or None
        A weight per arc as written (an empty array for a valued matrix of no entries); None
        without a weight column.
    n : int
        The matrix's size.
    directed : bool
        True for 'general', False for 'symmetric' (the entries as stored, one triangle).

    Raises
    ------
    GraphFormatError
        A missing or malformed banner; a layout other than coordinate; an unsupported field or
        symmetry; a malformed size line, a matrix that is not square, a negative count; a line
        that does not parse or a count that differs from the size line's; a value column where
        the field says (or does not say) pattern; a non-integer value in an integer matrix; an
        index outside 1..n.
    GraphTooLargeError
        A size whose arrays would not fit the host memory available.
    """
    from ._parse import check_count, parse  # Numba: loaded when a text file is read

    header, body, taken = split_header(buf, lambda line: line.startswith(b"%") or not line.strip())
    if not header or not header[0].lower().startswith("%%matrixmarket"):
        raise GraphFormatError("missing '%%MatrixMarket' banner", path, 1)
    words = header[0].lower().split()
    if len(words) != 5 or words[1] != "matrix":
        raise GraphFormatError(f"malformed banner {header[0]!r}", path, 1)
    layout, field, symmetry = words[2:]
    if layout != "coordinate":
        raise GraphFormatError(f"only 'coordinate' matrices are graphs, not {layout!r}", path, 1)
    if field not in FIELDS:
        raise GraphFormatError(
            f"unsupported field {field!r} (expected one of {', '.join(FIELDS)})", path, 1
        )
    if symmetry not in SYMMETRIES:
        raise GraphFormatError(
            f"unsupported symmetry {symmetry!r} (expected general or symmetric)", path, 1
        )
    # size line: rows cols entries
    nl = bytes(body[:4096]).find(b"\n")
    first = bytes(body[: nl if nl >= 0 else len(body)]).decode("utf-8", "replace").split()
    line_no = taken + 1
    try:
        rows, cols, nnz = (int(x) for x in first)
    except ValueError:
        raise GraphFormatError(
            f"expected 'rows cols entries', found {' '.join(first)!r}", path, line_no
        ) from None
    if rows != cols:
        raise GraphFormatError(
            f"a graph needs a square matrix, this one is {rows} x {cols}", path, line_no
        )
    if nnz < 0:
        raise GraphFormatError(f"negative entry count {nnz}", path, line_no)
    check_vertex_count(rows, path, line_no)
    body = body[nl + 1 :] if nl >= 0 else body[:0]
    src, dst, w = parse(body, comments=b"%", path=path, first_line=line_no + 1)
    check_count(len(src), nnz, "entries", body, b"%", line_no + 1, path)
    if field == "pattern" and w is not None:
        raise GraphFormatError("pattern matrix with a value column", path)
    if field != "pattern" and w is None:
        if nnz:
            raise GraphFormatError(f"{field} matrix without a value column", path)
        w = np.empty(0)
    if field == "integer" and w is not None and np.any(w != np.floor(w)):
        bad = int(np.flatnonzero(w != np.floor(w))[0])
        raise GraphFormatError(f"non-integer value {w[bad]} in an integer matrix", path)
    for ids in (src, dst):
        if nnz and (ids.min() < 1 or ids.max() > rows):
            bad = int(np.flatnonzero((ids < 1) | (ids > rows))[0])
            raise GraphFormatError(f"index {ids[bad]} outside 1..{rows} (entry {bad + 1})", path)
    return src - 1, dst - 1, w, rows, symmetry == "general"


def write(f, G):
    """Write G as Matrix Market; an undirected graph is written 'symmetric', lower triangle only.

    The field is pattern unweighted, integer where every weight is a finite whole number, else
    real.

    Parameters
    ----------
    f : text file
        Open for writing.
    G : Graph
        Its ids are written, 1-based (not its labels).
    """
    src, dst = G.edges()
    keep = slice(None) if G.directed else src >= dst
    src, dst = src[keep], dst[keep]
    field = (
        "pattern"
        if G.weights is None
        # integer only when every value prints as one (inf and nan do not)
        else (
            "integer"
            if np.all(np.isfinite(G.weights) & (G.weights == np.round(G.weights)))
            else "real"
        )
    )
    sym = "general" if G.directed else "symmetric"
    f.write(f"%%MatrixMarket matrix coordinate {field} {sym}\n% written by gravel\n")
    f.write(f"{G.n} {G.n} {len(src)}\n")
    cols = [src + 1, dst + 1]
    fmt = "%d %d"
    if G.weights is not None:
        w = G.weights[keep]
        cols.append(w)
        fmt += " %d" if field == "integer" else " %.9g"
    write_rows(f, cols, fmt)
