"""The GAP Benchmark Suite's serialized graphs: ``.sg``, and ``.wsg`` with int32 weights, the files
its ``converter -b`` writes and its kernels read with ``-f``, so that gravel and GAP run on the very
same file (``benchmarks/gap.py``).

Layout (GAP's ``writer.h``), native byte order: a one-byte bool (directed), the number of arcs
(int64), the number of vertices n (int64), the out-offsets (n + 1 int64) and the out-lists (int32
ids, or int32 (id, weight) pairs in a ``.wsg``); a directed graph then repeats offsets and lists for
its in-edges. An undirected graph's lists hold each edge both ways. The file holds no flag for
weights: the header fixes the size of either form, and the file's size tells which it is.
"""

import numpy as np

from ..errors import GraphFormatError, InvalidGraphError
from ..graph import Graph

#: bytes before the offsets: directed (bool), arcs (int64), vertices (int64)
HEADER = 17


def _layout(directed, arcs, n, weighted):
    """The file's size, by GAP's writer, for this header and form."""
    sides = 2 if directed else 1
    return HEADER + sides * ((n + 1) * 8 + arcs * (8 if weighted else 4))


def read(path, weighted=True, pairs=False):
    """The Graph of GAP's serialized file at `path`.

    The in-edges of a directed one are not read or checked: gravel derives them from the
    out-edges. Peak memory is about twice the lists' bytes.

    Parameters
    ----------
    path : pathlib.Path
        A ``.sg`` or ``.wsg`` file, uncompressed.
    weighted : bool, default True
        False drops a ``.wsg``'s weights.
    pairs : bool, default False
        Whether the lists are (id, weight) pairs (a ``.wsg``): the file's size tells the two
        forms apart, except without arcs, where this decides.

    Returns
    -------
    Graph
        Directed as the file says; the weights (int32 in the file) as float32. Its rows are
        sorted (GAP's, found sorted, without a sort of their own).

    Raises
    ------
    GraphFormatError
        A file too short for its header, gzip-compressed, with an impossible header, of a size
        that fits neither form, or holding an invalid graph.
    """
    size = path.stat().st_size
    if size < HEADER:
        raise GraphFormatError(f"not a GAP serialized graph ({size} bytes, under its header)", path)
    with open(path, "rb") as f:
        head = f.read(HEADER)
    if head[:2] == b"\x1f\x8b":
        raise GraphFormatError(
            "gzip-compressed: GAP's serialized graphs are read uncompressed", path
        )
    flag = head[0]
    arcs, n = (int(x) for x in np.frombuffer(head, np.int64, 2, 1))
    if flag > 1 or arcs < 0 or not 0 <= n < 2**31:
        raise GraphFormatError(
            f"not a GAP serialized graph (header: directed byte {flag}, {arcs} arcs, {n} vertices)",
            path,
        )
    directed = bool(flag)
    forms = [w for w in (False, True) if _layout(directed, arcs, n, w) == size]
    if not forms:
        raise GraphFormatError(
            f"truncated, too long or not a GAP serialized graph: {size} bytes, where {n} "
            f"vertices and {arcs} arcs take {_layout(directed, arcs, n, False)} (.sg) or "
            f"{_layout(directed, arcs, n, True)} (.wsg)",
            path,
        )
    pairs = forms[-1] if len(forms) == 1 else pairs  # no arcs: either form
    offsets = np.fromfile(path, np.int64, n + 1, offset=HEADER)
    lists = np.fromfile(path, np.int32, arcs * (2 if pairs else 1), offset=HEADER + 8 * (n + 1))
    indices, weights = (lists[0::2], lists[1::2]) if pairs else (lists, None)
    if indices.size:  # GAP's builder sorts every list: check, rather than sort again
        down = indices[1:] < indices[:-1]
        down[offsets[1:-1][(offsets[1:-1] > 0) & (offsets[1:-1] < arcs)] - 1] = False
        ordered = not down.any()
    else:
        ordered = True
    try:
        return Graph.from_csr(
            offsets,
            indices,
            weights if weighted else None,
            directed=directed,
            sorted_rows=ordered,
        )
    except InvalidGraphError as e:
        raise GraphFormatError(f"not a valid graph: {e}", path) from None


def write(f, G, *, weighted):
    """`G` in GAP's serialized form to the binary file `f`.

    GAP's own files are simple (its builder drops self loops and parallel edges), and its kernels
    assume so: write ``G.simple_undirected()`` for them where G has loops.

    Parameters
    ----------
    f : binary file
        Open for writing.
    G : Graph
        Labels and id order are not kept; a directed graph's in-edges follow its out-edges.
    weighted : bool
        With its weights (a ``.wsg``, which holds int32 weights only) or without (a ``.sg``).

    Raises
    ------
    GraphFormatError
        `weighted` for a graph without weights, or with weights that are not whole numbers in
        the int32 range.
    """
    if weighted:
        if G.weights is None:
            raise GraphFormatError("a .wsg holds weights, and this graph has none: write a .sg")
        w = G.weights
        if w.size and not (np.all(w == np.rint(w)) and w.min() >= -(2**31) and w.max() < 2**31):
            raise GraphFormatError(
                "GAP's .wsg holds int32 weights; this graph's are not all whole numbers in range"
            )
    sides = [(G.offsets, G.indices, G.weights)]
    if G.directed:
        sides.append(G.csc())
    f.write(bytes([G.directed]))
    f.write(np.array([G.nnz, G.n], np.int64).tobytes())
    for offsets, indices, weights in sides:
        f.write(np.ascontiguousarray(offsets, np.int64).data)
        if weighted:
            pairs = np.empty((indices.size, 2), np.int32)
            pairs[:, 0], pairs[:, 1] = indices, weights
            f.write(pairs.data)
        else:
            f.write(np.ascontiguousarray(indices, np.int32).data)
