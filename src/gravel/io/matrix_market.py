"""Matrix Market coordinate files: pattern/real/integer, general/symmetric, 1-based ids."""

import numpy as np

from ..errors import GraphFormatError
from ._declared import check_vertex_count
from ._files import arc_blocks, split_header, write_lines

FIELDS = ("pattern", "real", "integer", "double")
SYMMETRIES = ("general", "symmetric")


def read(text, path, weighted=True, xp=None):
    """The entries of a Matrix Market file's text.

    Parameters
    ----------
    text : gravel.io._files.Text
        The file, read a chunk at a time (as :func:`gravel.io.load` opens it).
    path : str or os.PathLike
        The file, for the messages.
    weighted : bool, default True
        Keep the values, where there are any.
    xp : module, optional
        Parse by whole-array operations of this module (``cupy``: on the GPU), the blocks on
        its device (:func:`gravel.io._parse.read_edges`).

    Returns
    -------
    edges : gravel.io._parse.Edges
        The arcs' ends, 0-based, and a weight per arc where the file has values (its
        `weighted`; a valued matrix of no entries too).
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
    from ._parse import check_count, read_edges  # Numba: loaded when a text file is read

    buf = text.head
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
    text.skip(buf.shape[0] - body.shape[0] + (nl + 1 if nl >= 0 else body.shape[0]))
    edges = read_edges(
        text,
        path,
        comments=b"%",
        first_line=line_no + 1,
        base=1,
        bounds=(1, rows),
        whole=field == "integer",
        weighted=weighted,
        xp=xp,
        declared=nnz,
    )
    check_count(edges, nnz, "entries", path)
    if field == "pattern" and edges.weighted:
        raise GraphFormatError("pattern matrix with a value column", path)
    if field != "pattern" and not edges.weighted:
        if nnz:
            raise GraphFormatError(f"{field} matrix without a value column", path)
        edges.columns = 3  # no entries, hence no value column
    if edges.fraction is not None:
        raise GraphFormatError(f"non-integer value {edges.fraction[1]} in an integer matrix", path)
    for row, index, _ in filter(None, edges.outside):
        raise GraphFormatError(f"index {index} outside 1..{rows} (entry {row + 1})", path)
    return edges, rows, symmetry == "general"


def write(f, G):
    """Write G as Matrix Market; an undirected graph is written 'symmetric', lower triangle only.

    The field is pattern unweighted, integer where every weight is a finite whole number (within
    int64), else real.

    Parameters
    ----------
    f : binary file
        Open for writing.
    G : Graph
        Its ids are written, 1-based (not its labels).
    """
    w = G.weights
    field = "pattern"
    if w is not None:
        # integer only when every value prints as one (inf and nan do not)
        whole = np.all(np.isfinite(w) & (w == np.round(w))) and np.all(np.abs(w) < 2.0**63)
        field = "integer" if whole else "real"
    sym = "general" if G.directed else "symmetric"
    f.write(f"%%MatrixMarket matrix coordinate {field} {sym}\n% written by gravel\n".encode())
    f.write(f"{G.n} {G.n} {G.m}\n".encode())
    write_lines(
        f,
        arc_blocks(G, None if G.directed else ">="),
        add=1,
        weights={"pattern": "none", "integer": "whole", "real": "real"}[field],
        rows=G.m,
    )
