"""Reading and writing graphs: Matrix Market, edge lists, DIMACS .gr, Parquet edge tables (through
pyarrow), gravel's binary .gravel and the GAP Benchmark Suite's serialized .sg and .wsg.

Text files may be gzip-compressed (detected from their bytes). The first load of a text graph stores
a binary copy in the cache directory ($GRAVEL_CACHE_DIR, default ~/.cache/gravel); later loads of
the same, unchanged file read that copy instead: only the user's own, checked copy
(:mod:`gravel.io._cache` says what it trusts)."""

import errno
import os
from pathlib import Path

import numpy as np

from ..arrays import host
from ..errors import DeviceUnavailableError, GraphFormatError, InvalidGraphError, UnknownNameError
from ..graph import Graph
from . import _cache, arrow, binary, dimacs, edgelist, gapbs, matrix_market
from ._atomic import atomic_write
from ._atomic import check_writable as check_writable  # public: the CLI checks outputs first
from ._files import Text, is_gzip
from ._files import progress as progress  # public: the generators show it too

FORMATS = {
    "mtx": matrix_market,
    "edgelist": edgelist,
    "gr": dimacs,
    "gravel": binary,
    "parquet": arrow,
    "sg": gapbs,
    "wsg": gapbs,
}
_SUFFIX = {
    ".mtx": "mtx",
    ".mm": "mtx",
    ".gr": "gr",
    ".gravel": "gravel",
    ".parquet": "parquet",
    ".sg": "sg",
    ".wsg": "wsg",
}
#: the suffixes of edge lists (``.csv``: comma-separated) that the command line writes;
#: :func:`save` writes an edge list under any suffix it does not know
EDGE_LIST_SUFFIXES = (".txt", ".csv", ".el", ".edges", ".edgelist")
#: every suffix the command line writes a graph under (before a ``.gz``); others are refused
GRAPH_SUFFIXES = tuple(_SUFFIX) + EDGE_LIST_SUFFIXES
#: formats written as bytes
_BINARY = ("gravel", "parquet", "sg", "wsg")
#: formats whose edges may be relabelled or read as undirected by the caller
_EDGE_TABLES = ("edgelist", "parquet")
#: the text formats, which the GPU can parse
_TEXTS = ("mtx", "edgelist", "gr")
#: texts from this many bytes on are parsed on the GPU by ``device="auto"``, where one is present
GPU_MIN_TEXT_BYTES = 1 << 26
#: device memory a byte of text may take at the peak of a GPU load, for its shortest lines ("1
#: 2" and a line end: an edge per 4 bytes): the edges' blocks and the CSR build's arcs
#: (io/device_csr.py), besides the temporaries of a piece of text
DEVICE_BYTES_PER_TEXT_BYTE = 24
#: device memory a byte of a piece of text may take while it is parsed (io/device_text.py)
DEVICE_BYTES_PER_PIECE_BYTE = 32
#: a gzipped text's bytes per byte of the file, as the device memory it needs is estimated
GZIP_RATIO = 5


def _format_of(path, fmt):
    if fmt is not None:
        if fmt not in FORMATS:
            raise UnknownNameError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
        return fmt
    suffixes = [s for s in Path(path).suffixes if s != ".gz"]
    return _SUFFIX.get(suffixes[-1].lower() if suffixes else "", "edgelist")


def load(
    path,
    *,
    format=None,
    undirected=False,
    relabel=False,
    dedupe=True,
    weighted=True,
    cache=True,
    progress=None,
    device="cpu",
):
    """Read a graph file.

    Parameters
    ----------
    path : str or Path
        A Matrix Market (.mtx), DIMACS (.gr), binary (.gravel) or edge-list file, optionally
        gzipped, a Parquet edge table (.parquet; needs pyarrow), or a GAP Benchmark Suite
        serialized graph (.sg, or .wsg with weights: :mod:`gravel.io.gapbs`). A Parquet file's
        edges are its ``source`` and ``target`` columns (and ``weight``) where it has them, else
        its first two integer columns (and the first numeric column after them):
        :mod:`gravel.io.arrow`.
    format : {"mtx", "edgelist", "gr", "gravel", "parquet", "sg", "wsg"}, optional
        Overrides the format guessed from the file name.
    undirected : bool, default False
        Edge lists and Parquet files only: treat each row as an undirected edge. Matrix Market and
        DIMACS files say themselves whether they are directed (``symmetric`` / ``p tw`` are
        undirected).
    relabel : bool, default False
        Edge lists and Parquet files only: number the ids that occur 0..n-1 in increasing order,
        keeping the original ids in ``G.labels`` (a Parquet file's ids may then be of any type
        that sorts, such as strings). Without it ids are kept and n is the largest id + 1.
    dedupe : bool, default True
        Merge parallel edges, keeping the minimum weight.
    weighted : bool, default True
        Keep the weight column if the file has one.
    cache : bool, default True
        Use (and fill) the binary cache for text files (Parquet files are read directly): a
        copy as private as the file, in a folder of the user's own, read only while the file
        is unchanged and readable by the caller.
    progress : bool, optional
        Show progress bars for slow loads (default: when the load takes more than a second).
    device : {"cpu", "auto", "cuda"}, default "cpu"
        Where a text file (edge list, Matrix Market, DIMACS) is parsed and its CSR built:
        ``"cuda"`` on the GPU (the text copied there a piece at a time, parsed by whole-array
        operations, the CSR built and kept there: :mod:`gravel.io.device_text`) where its free
        memory holds the load, else on the CPU; ``"auto"`` so too for texts of at least
        GPU_MIN_TEXT_BYTES where a GPU is present; ``"cpu"`` on every core. The graph and the
        errors are the same either way. Other formats ignore it.

    Returns
    -------
    Graph
        On the host. A binary file's arrays (and a cached copy's) are memory-mapped, read-only.
        A text parsed on the GPU keeps its CSR there (``G.device_graph``); its host arrays are
        copied back on first use (at once where `cache` writes the binary copy).

    Raises
    ------
    GraphFormatError
        The file is malformed, missing or a directory; the message names the file and, where
        known, the line (for Parquet, the column and row). Also an edge list's ids beyond int32,
        or too sparse to keep as ids (load it with ``relabel=True``).
    UnknownNameError
        An unknown `format` or `device`.
    DeviceUnavailableError
        ``device="cuda"`` where no GPU can be used (the message says why).
    InvalidGraphError
        `undirected` or `relabel` for a format other than edge lists and Parquet.
    GraphTooLargeError
        A header that declares more vertices than the host memory can hold.
    ImportError
        A Parquet file, without pyarrow installed.
    PermissionError
        With `cache`, a text file the caller cannot read (its cached copy is not read either).

    Warns
    -----
    UserWarning
        A damaged, planted or older-version cached copy (rebuilt), a cached copy that could not
        be written, or a cache folder, copy or key not owned by the user or writable by others
        (ignored; a copy or key so is replaced), naming it.

    See Also
    --------
    save

    Examples
    --------
    >>> import os, tempfile
    >>> import gravel
    >>> path = os.path.join(tempfile.mkdtemp(), "grid.mtx")
    >>> G = gravel.generate.grid(2, 3)
    >>> _ = gravel.save(G, path)
    >>> gravel.load(path, cache=False) == G
    True
    """
    path = Path(path)
    if path.is_dir():
        raise GraphFormatError("is a directory, not a graph file", path)
    if not path.is_file():
        raise GraphFormatError("no such file", path)
    fmt = _format_of(path, format)
    xp = _text_parser(device, path, fmt)
    if fmt == "gravel":
        return binary.read(path)
    if fmt in ("sg", "wsg"):
        return gapbs.read(path, weighted, pairs=fmt == "wsg")
    if fmt not in _EDGE_TABLES and (undirected or relabel):
        raise InvalidGraphError("undirected= and relabel= apply to edge lists and Parquet only")
    options = {
        "format": fmt,
        "undirected": undirected,
        "relabel": relabel,
        "dedupe": dedupe,
        "weighted": weighted,
    }
    entry = None
    if cache and fmt != "parquet":
        # a copy is the file's content: it goes to those who may read the file (root may anyway)
        if not os.access(path, os.R_OK, effective_ids=os.access in os.supports_effective_ids):
            raise PermissionError(errno.EACCES, "not readable by this user", str(path))
        entry = _cache.entry(path, options)
    if entry is not None and (G := _cache.read(entry, path)) is not None:
        return G
    if fmt == "parquet":  # pyarrow reads the file itself, with its own threads
        blocks, n, directed = arrow.read(path, relabel, weighted)
        m = sum(len(dst) for _, dst, _ in blocks)
        weighted = weighted and any(w is not None for *_, w in blocks)
    else:
        with Text(path, progress) as text:
            edges, n, directed = FORMATS[fmt].read(text, path, weighted, xp=xp)
        if relabel:  # on the host: the labels are a host array
            src, dst, w = (None if a is None else host(a) for a in edges.arrays())
            blocks, m, xp = [(src, dst, w)], len(src), None
        else:
            blocks, m = edges.blocks, edges.m
        weighted = weighted and edges.weighted
        del edges
    G = _build(
        blocks,
        m,
        weighted,
        n,
        # an edge list's own header (gravel's) may say undirected; undirected=True always wins
        not undirected if directed is None else directed and not undirected,
        relabel,
        dedupe,
        path,
        xp,
    )
    if entry is not None:
        _cache.write(entry, G)
    return G


#: an edge list whose ids are kept needs a vertex per id up to the largest: beyond this many
#: vertices (8 MB of offsets) and SPARSE_IDS per arc, the ids are too sparse to number densely
DENSE_VERTICES = 1 << 20
SPARSE_IDS = 8
_RELABEL = "load with relabel=True (command line: --relabel) to number the ids that occur 0..n-1"


def _ids(src):
    return src[0] if isinstance(src, tuple) else src


def _text_parser(device, path, fmt):
    """The array module that parses the text at `path` (``cupy``), or None for the CPU's
    tokenizer."""
    from ..dispatch import DEVICES  # lazily: it loads Numba

    if device not in DEVICES:
        raise UnknownNameError(f"unknown device {device!r} (expected auto, cpu or cuda)")
    if device == "cpu" or fmt not in _TEXTS:
        return None
    from ..backends import cuda

    if not cuda.available():
        if device == "cuda":
            raise DeviceUnavailableError(f"device='cuda' but {cuda.why_unavailable()}")
        return None
    size = path.stat().st_size * (GZIP_RATIO if is_gzip(path) else 1)
    if device == "auto" and size < GPU_MIN_TEXT_BYTES:
        return None
    from ..backends.cuda.runtime import free_bytes
    from ._parse import DEVICE_PIECE_BYTES

    piece = min(size, DEVICE_PIECE_BYTES)
    need = DEVICE_BYTES_PER_TEXT_BYTE * size + DEVICE_BYTES_PER_PIECE_BYTE * piece
    if need > free_bytes():
        return None
    import cupy

    return cupy


def _build(blocks, m, weighted, n, directed, relabel, dedupe, path, xp=None):
    """The graph of the edge blocks (emptied as it is built): ids relabelled or checked first;
    blocks on a device (`xp`) built there."""
    labels = None
    if relabel:
        src, dst, w = blocks.pop()
        labels, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
        blocks.append((inverse[: len(src)], inverse[len(src) :], w))
        n, top = len(labels), -1
    else:
        # a block's sources may be runs (ids, counts): their ids are the sources' values
        tops = (max(_ids(src).max(), dst.max()) for src, dst, _ in blocks if len(dst))
        top = int(max(tops, default=-1))
    if top >= 2**31 - 1:
        raise GraphFormatError(f"vertex id {top} exceeds the int32 range: {_RELABEL}", path)
    elif n is None and top >= max(DENSE_VERTICES, SPARSE_IDS * m):
        # refused before any allocation: keeping the ids would allocate a vertex per id
        raise GraphFormatError(
            f"vertex ids reach {top:,} on {m:,} edges: keeping them as ids would make "
            f"{top + 1:,} vertices; {_RELABEL}",
            path,
        )
    n = top + 1 if n is None else n
    if xp is not None:
        from ..construction import check_room
        from .device_csr import graph_of

        check_room(n)
        return graph_of(xp, blocks, n, directed, dedupe, weighted)
    # built once: parallel edges merge (minimum weight) while the rows are compacted
    return Graph.from_edge_blocks(
        blocks,
        n=n,
        directed=directed,
        labels=labels,
        dedupe=dedupe,
        weighted=weighted,
    )


def save(G, path, *, format=None):
    """Write `G` to `path` (Matrix Market, edge list, DIMACS .gr, Parquet, binary .gravel, or GAP's
    serialized .sg or .wsg, by suffix or `format`).

    A ``.gz`` suffix compresses text formats. A Parquet file has columns ``source``, ``target``
    (G's labels where it has them) and ``weight``, one row per edge, and keeps n and the direction
    in its metadata. A .sg holds the lists only (no weights), a .wsg the lists and int32 weights
    (whole-number weights only). The file appears only once it is complete.

    Parameters
    ----------
    G : Graph
    path : str or Path
        The file; its suffix chooses the format (edge list where none matches), a ``.csv`` in
        it makes an edge list comma-separated.
    format : {"mtx", "edgelist", "gr", "gravel", "parquet", "sg", "wsg"}, optional
        Overrides the format the suffix names.

    Returns
    -------
    pathlib.Path
        `path`.

    Raises
    ------
    UnknownNameError
        An unknown `format`.
    GraphFormatError
        A ``.gz`` suffix on a .sg or .wsg; a .wsg of a graph without whole-number weights in
        the int32 range; a .gravel of labels that are Python objects.
    ImportError
        A Parquet file, without pyarrow installed (before the file is opened).
    OSError
        `path` cannot be written (its folder is missing or not writable, or it is a folder).

    See Also
    --------
    load
    """
    path = Path(path)
    fmt = _format_of(path, format)
    if fmt == "parquet":
        arrow.require_pyarrow(f"writing {path}")  # before the file is opened
    options = {"sep": ","} if fmt == "edgelist" and ".csv" in path.suffixes else {}
    if fmt in ("sg", "wsg"):
        if path.suffix.lower() == ".gz":
            raise GraphFormatError("GAP reads serialized graphs uncompressed: leave out .gz", path)
        options = {"weighted": fmt == "wsg"}
    with atomic_write(path, "wb") as f:
        FORMATS[fmt].write(f, G, **options)
    return path
