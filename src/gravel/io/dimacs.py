"""DIMACS shortest-path files ('p sp n m', 'a u v w' arcs, directed) and their PACE cousins
('p tw n m', 'u v' edges, undirected), 1-based ids, 'c' comments.

gravel writes a comment ``c gravel: directed, weighted`` (or undirected, unweighted) before the
problem line: a directed unweighted graph gets 'a' arcs of weight 1 and an undirected weighted one
'a' arcs both ways (DIMACS has no undirected weighted form), and the comment tells gravel's reader
to drop those weights or to read the arcs back as edges."""

import re

from ..errors import GraphFormatError
from ._declared import check_vertex_count
from ._files import arc_blocks, split_header, write_lines


def read(text, path, weighted=True, xp=None):
    """The arcs of a DIMACS file's text.

    Parameters
    ----------
    text : gravel.io._files.Text
        The file, read a chunk at a time (as :func:`gravel.io.load` opens it).
    path : str or os.PathLike
        The file, for the messages.
    weighted : bool, default True
        Keep the weights, where there are any.
    xp : module, optional
        Parse by whole-array operations of this module (``cupy``: on the GPU), the blocks on
        its device (:func:`gravel.io._parse.read_edges`).

    Returns
    -------
    edges : gravel.io._parse.Edges
        The arcs' ends, 0-based, and a weight per arc where the file has weights (its
        `weighted`; gravel's weighted file of no arcs too).
    n : int
        The problem line's vertex count.
    directed : bool
        True for 'p sp', False for 'p tw' or a file gravel wrote undirected (one arc of
        each pair is returned).

    Raises
    ------
    GraphFormatError
        No problem line or more than one, a malformed one, a problem type other than sp and
        tw, a negative count, a line that does not parse, a count that differs from the
        problem line's, an 'a' line without a weight, or a vertex outside 1..n.
    GraphTooLargeError
        A vertex count whose arrays would not fit the host memory available.
    """
    from ._parse import check_count, read_edges  # Numba: loaded when a text file is read

    header, body, taken = split_header(
        text.head, lambda line: not line.strip() or line[:1] in (b"c", b"p")
    )
    problem = [h for h in header if h.startswith("p")]
    if len(problem) != 1:
        raise GraphFormatError(
            "expected one 'p sp N M' (or 'p tw N M') problem line before the arcs", path
        )
    words = problem[0].split()
    line_no = header.index(problem[0]) + 1
    try:
        kind, n, m = words[1], int(words[2]), int(words[3])
    except (IndexError, ValueError):
        raise GraphFormatError(f"malformed problem line {problem[0]!r}", path, line_no) from None
    if kind not in ("sp", "tw"):
        raise GraphFormatError(
            f"unsupported problem type {kind!r} (expected sp or tw)", path, line_no
        )
    if m < 0:
        raise GraphFormatError(f"negative arc count {m}", path, line_no)
    check_vertex_count(n, path, line_no)
    directed = kind == "sp"
    ours = [g for h in header if (g := _OURS.match(h))]
    text.skip(text.head.shape[0] - body.shape[0])
    edges = read_edges(
        text,
        path,
        comments=b"c",
        prefix=b"a" if directed else b"",
        first_line=taken + 1,
        base=1,
        bounds=(1, n),
        weighted=weighted,
        xp=xp,
        declared=m,
    )
    check_count(edges, m, "arcs" if directed else "edges", path)
    if directed and m and not edges.weighted:
        raise GraphFormatError("'a' lines need a weight: 'a u v w'", path)
    for row, vertex, _ in filter(None, edges.outside):
        raise GraphFormatError(f"vertex {vertex} outside 1..{n} (arc {row + 1})", path)
    if ours and directed:
        if ours[0][2] == "unweighted":
            edges.columns = 2
            edges.blocks = [(s, d, None) for s, d, _ in edges.blocks]
        else:
            edges.columns = 3  # with no arcs, no weight column
        if ours[0][1] == "undirected":
            # gravel wrote each edge both ways (a self loop once): read one arc of each pair
            for k, block in enumerate(edges.blocks):  # one block at a time: no copy of them all
                edges.blocks[k] = _one_way(*block)
            directed = False
    return edges, n, directed


def _one_way(src, dst, w):
    from ..backends.cpu.csr import expand_runs

    src = expand_runs(src)
    keep = src <= dst
    return src[keep], dst[keep], None if w is None else w[keep]


_OURS = re.compile(r"c gravel: (directed|undirected), (weighted|unweighted)$")


def write(f, G):
    """A directed or weighted graph as 'p sp' with 'a' arcs (weight 1 when unweighted, every
    stored arc when undirected); an undirected unweighted graph as 'p tw'.

    Parameters
    ----------
    f : binary file
        Open for writing.
    G : Graph
        Labels and order are not written.
    """
    direction = "directed" if G.directed else "undirected"
    f.write(f"c gravel: {direction}, {'weighted' if G.weighted else 'unweighted'}\n".encode())
    if G.directed or G.weighted:
        f.write(f"p sp {G.n} {G.nnz}\n".encode())
        write_lines(f, arc_blocks(G), lead=b"a ", add=1, weights="real", rows=G.nnz)
    else:
        f.write(f"p tw {G.n} {G.m}\n".encode())
        write_lines(f, arc_blocks(G, "<="), add=1, rows=G.m)
