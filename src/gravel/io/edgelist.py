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

from ..errors import GraphFormatError
from ._declared import check_vertex_count
from ._files import arc_blocks, write_lines

_HEADER = re.compile(
    rb"# gravel edge list: (\d+) vertices, (directed|undirected)(?:, (weighted|unweighted))?\r?$"
)


def read(text, path, weighted=True, xp=None):
    """The arcs of an edge list's text.

    Parameters
    ----------
    text : gravel.io._files.Text
        The file, read a chunk at a time (as :func:`gravel.io.load` opens it).
    path : str or os.PathLike
        The file, for the messages.
    weighted : bool, default True
        Keep the weight column, where there is one.
    xp : module, optional
        Parse by whole-array operations of this module (``cupy``: on the GPU), the blocks on
        its device (:func:`gravel.io._parse.read_edges`).

    Returns
    -------
    edges : gravel.io._parse.Edges
        The arcs' ends, the ids as written, and a weight per arc where the file has a weight
        column (its `weighted`; gravel's weighted file of no edges too).
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
    from ._parse import line_of_row, read_edges  # Numba: loaded when a text file is read

    first = bytes(text.head[:200]).split(b"\n", 1)[0]
    header = _HEADER.match(first)
    n = None if header is None else int(header[1])
    if n is not None:
        check_vertex_count(n, path, 1)
    # where the lines start, for an error found after the head is gone
    first_data = line_of_row(text.head[: 1 << 16], 0) if header is not None else None
    edges = read_edges(
        text,
        path,
        comments=b"#%",
        bounds=None if n is None else (0, n - 1),
        weighted=weighted,
        xp=xp,
    )
    if header is None:
        if not edges.m:  # an empty file is more likely a mistake than a graph of no vertices
            raise GraphFormatError(
                "no edges, and no header to declare a graph without any (gravel writes one: "
                "'# gravel edge list: N vertices, directed')",
                path,
            )
        return edges, None, None
    for _, vertex, line in filter(None, edges.outside):
        raise GraphFormatError(
            f"vertex {vertex} outside 0..{n - 1} (line 1 declares {n} vertices)", path, line
        )
    if not edges.weighted and header[3] == b"weighted":
        if edges.m:
            raise GraphFormatError(
                "line 1 declares a weighted graph, the lines have no weight column",
                path,
                first_data,
            )
        edges.columns = 3  # no edges, hence no weight column
    return edges, n, header[2] == b"directed"


def write(f, G, sep=" "):
    """One line per arc; an undirected graph lists each edge once (u <= v).

    Parameters
    ----------
    f : binary file
        Open for writing.
    G : Graph
        Its ids are written (not its labels), after gravel's header line.
    sep : str, default " "
        Between the columns (``","`` for a ``.csv``).
    """
    direction = "directed" if G.directed else "undirected"
    weighted = "weighted" if G.weighted else "unweighted"
    f.write(f"# gravel edge list: {G.n} vertices, {direction}, {weighted}\n".encode())
    write_lines(
        f,
        arc_blocks(G, None if G.directed else "<="),
        sep=sep.encode(),
        weights="real" if G.weighted else "none",
        rows=G.m,
    )
