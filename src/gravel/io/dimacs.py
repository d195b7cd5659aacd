"""DIMACS shortest-path files ('p sp n m', 'a u v w' arcs, directed) and their PACE cousins
('p tw n m', 'u v' edges, undirected), 1-based ids, 'c' comments.

gravel writes a comment ``c gravel: directed, weighted`` (or undirected, unweighted) before the
problem line: a directed unweighted graph gets 'a' arcs of weight 1 and an undirected weighted one
'a' arcs both ways (DIMACS has no undirected weighted form), and the comment tells gravel's reader
to drop those weights or to read the arcs back as edges."""

import re

import numpy as np

from ..errors import GraphFormatError
from ._declared import check_vertex_count
from ._files import split_header, write_rows


def read(buf, path):
    """The arcs of a DIMACS file's text.

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
        A weight per arc as written (an empty array for gravel's weighted file of no arcs); None
        without a weight column.
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
    from ._parse import check_count, parse  # Numba: loaded when a text file is read

    header, body, taken = split_header(
        buf, lambda line: not line.strip() or line[:1] in (b"c", b"p")
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
    src, dst, w = parse(
        body, comments=b"c", prefix=b"a" if directed else b"", path=path, first_line=taken + 1
    )
    check_count(len(src), m, "arcs" if directed else "edges", body, b"c", taken + 1, path)
    if directed and m and w is None:
        raise GraphFormatError("'a' lines need a weight: 'a u v w'", path)
    for ids in (src, dst):
        if m and (ids.min() < 1 or ids.max() > n):
            bad = int(((ids < 1) | (ids > n)).argmax())
            raise GraphFormatError(f"vertex {ids[bad]} outside 1..{n} (arc {bad + 1})", path)
    if ours and directed:
        if ours[0][2] == "unweighted":
            w = None
        elif w is None:
            w = np.empty(0)  # no arcs, hence no weight column
        if ours[0][1] == "undirected":
            # gravel wrote each edge both ways (a self loop once): read one arc of each pair
            keep = src <= dst
            src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
            directed = False
    return src - 1, dst - 1, w, n, directed


_OURS = re.compile(r"c gravel: (directed|undirected), (weighted|unweighted)$")


def write(f, G):
    """A directed or weighted graph as 'p sp' with 'a' arcs (weight 1 when unweighted, every
    stored arc when undirected); an undirected unweighted graph as 'p tw'.

    Parameters
    ----------
    f : text file
        Open for writing.
    G : Graph
        Labels and order are not written.
    """
    src, dst = G.edges()
    direction = "directed" if G.directed else "undirected"
    f.write(f"c gravel: {direction}, {'weighted' if G.weighted else 'unweighted'}\n")
    if G.directed or G.weighted:
        w = G.weights if G.weights is not None else src * 0 + 1
        f.write(f"p sp {G.n} {G.nnz}\n")
        write_rows(f, [src + 1, dst + 1, w], "a %d %d %.9g")
    else:
        keep = src <= dst
        f.write(f"p tw {G.n} {int(keep.sum())}\n")
        write_rows(f, [src[keep] + 1, dst[keep] + 1], "%d %d")
