"""Edge lists as SNAP distributes them: '#' or '%' comments, whitespace or comma separated, an
optional weight column. Ids are kept as written (n = largest id + 1) unless the caller relabels
them.

A line holds two ids and at most a weight: a line of more columns is an error naming it, and a file
with no edges an error unless gravel's header below declares its vertices.

gravel's own edge lists start with the line ``# gravel edge list: N vertices, directed`` (or
``undirected``), then ``, weighted`` or ``, unweighted``; reading it back restores the vertex
count (trailing isolated vertices included), the direction and (for a graph with no edges) the
weights, so that every graph gravel writes loads as the same graph."""

import re

import numpy as np

from ..errors import GraphFormatError
from ._declared import check_vertex_count
from ._files import write_rows

_HEADER = re.compile(
    rb"# gravel edge list: (\d+) vertices, (directed|undirected)(?:, (weighted|unweighted))?\r?$"
)


def read(buf, path):
    """The arcs of an edge list's text.

    Parameters
    ----------
    buf : numpy.ndarray of uint8
        The whole file, decompressed (as :func:`gravel.io.load` reads it).
    path : str or os.PathLike
        The file, for the messages.

    Returns
    -------
    src, dst : numpy.ndarray of int64
        The arcs' ends, the ids as written.
    weights : numpy.ndarray of float64 or None
        A weight per arc as written (an empty array for gravel's weighted file of no edges); None
        without a weight column.
    n : int or None
        The vertex count gravel's header declares, else None.
    directed : bool or None
        The direction gravel's header declares, else None.

    Raises
    ------
    GraphFormatError
        A line that does not parse (one of more than three columns too); no edges without
        gravel's header (an empty file, or comments alone); with gravel's header, a vertex beyond
        its count, or a weighted graph's lines without a weight column.
    GraphTooLargeError
        A vertex count whose arrays would not fit the host memory available.
    """
    from ._parse import line_of_row, parse  # Numba: loaded when a text file is read

    first = bytes(buf[:200]).split(b"\n", 1)[0]
    header = _HEADER.match(first)
    if header is not None:
        check_vertex_count(int(header[1]), path, 1)
    src, dst, w = parse(buf, comments=b"#%", path=path)
    if header is None:
        if not len(src):  # an empty file is more likely a mistake than a graph of no vertices
            raise GraphFormatError(
                "no edges, and no header to declare a graph without any (gravel writes one: "
                "'# gravel edge list: N vertices, directed')",
                path,
            )
        return src, dst, w, None, None
    n = int(header[1])
    for ids in (src, dst):
        if len(ids) and ids.max() >= n:
            row = int((ids >= n).argmax())
            line = line_of_row(buf, row)
            raise GraphFormatError(
                f"vertex {ids[row]} outside 0..{n - 1} (line 1 declares {n} vertices)", path, line
            )
    if w is None and header[3] == b"weighted":
        if len(src):
            raise GraphFormatError(
                "line 1 declares a weighted graph, the lines have no weight column",
                path,
                line_of_row(buf, 0),
            )
        w = np.empty(0)  # no edges, hence no weight column
    return src, dst, w, n, header[2] == b"directed"


def write(f, G, sep=" "):
    """One line per arc; an undirected graph lists each edge once (u <= v).

    Parameters
    ----------
    f : text file
        Open for writing.
    G : Graph
        Its ids are written (not its labels), after gravel's header line.
    sep : str, default " "
        Between the columns (``","`` for a ``.csv``).
    """
    src, dst = G.edges()
    if not G.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
    else:
        keep = slice(None)
    direction = "directed" if G.directed else "undirected"
    weighted = "weighted" if G.weighted else "unweighted"
    f.write(f"# gravel edge list: {G.n} vertices, {direction}, {weighted}\n")
    if G.weights is None:
        write_rows(f, [src, dst], f"%d{sep}%d")
    else:
        write_rows(f, [src, dst, G.weights[keep]], f"%d{sep}%d{sep}%.9g")
