"""Graph generators: Graph500 Kronecker, GAP uniform random, 2-D grids, random geometric graphs.

Every generator is deterministic for a given seed, and produces an undirected graph without self
loops or duplicate edges (GAP's builder convention), unless ``directed=True`` is asked of the random
ones. Specs such as ``kron:20:16`` name a generated graph wherever a file name is accepted.

Kronecker and uniform random graphs are built on the GPU where one is available and the graph is
large (``device="auto"``): the same graph, bit for bit, in a fraction of the time and within the
host memory of the CSR itself (backends/cuda/generate.py)."""

import math

from . import seeds
from .arguments import is_integer, is_real
from .backends.cpu import csr as _csr
from .backends.cpu import generate as _gen
from .backends.cpu import shares
from .errors import GravelError, InvalidArgumentError, InvalidGraphError, UnknownNameError
from .graph import Graph
from .io import progress as progress_bar

#: Graph500 initiator probabilities (D = 1 - A - B - C = 0.05).
KRONECKER_ABC = (0.57, 0.19, 0.19)
#: edges from which ``device="auto"`` builds a generated graph on the GPU
GPU_MIN_EDGES = 1 << 24


def _on_gpu(device, m):
    """Whether to build a generated graph of `m` edges on the GPU."""
    from .backends import cuda

    if device not in ("auto", "cpu", "cuda"):
        raise InvalidArgumentError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device == "cuda" and not cuda.available():
        raise InvalidArgumentError(f"device='cuda': {cuda.why_unavailable()}")
    return device == "cuda" or (device == "auto" and m >= GPU_MIN_EDGES and cuda.available())


def _gpu_graph(kind, scale, m, seed, directed, abc=(0.0, 0.0, 0.0)):
    from .backends.cuda import generate as _gpu

    offsets, indices = _gpu.build_csr(kind, scale, m, seed, not directed, abc)
    return Graph.from_csr(offsets, indices, directed=directed, trusted=True)


def _simple_graph(name, edges, m, n, directed, show_progress):
    """Graph of the `m` edges that ``edges(first, count)`` makes, without loops or duplicates.

    The edges are made in blocks, twice (once to count the rows, once to fill them): they are a
    function of (seed, edge number), so both passes see the same graph and no edge list is kept.
    """
    block = _csr.BLOCK_EDGES
    passes = progress_bar(2 * -(-m // block), f"generating {name}", show_progress, unit="block")
    # Ctrl-C between blocks; the blocks' parallel kernels on one thread of their own
    with passes as bar, shares.interruptible(), shares.parallel_thread():

        def blocks():
            for first in range(0, m, block):
                yield *edges(first, min(block, m - first)), None
                bar.update()

        offsets, indices, _ = _csr.stream_csr(
            blocks, m, n, not directed, dedupe=True, drop_loops=True
        )
    return Graph.from_csr(offsets, indices, directed=directed, trusted=True)


def kronecker(scale, edge_factor=16, *, seed=0, directed=False, progress=None, device="auto"):
    """Graph500 Kronecker graph: 2**scale vertices, edge_factor * 2**scale generated edges.

    Vertex ids are scrambled by a keyed bijection (from `seed`), as the Graph500 specification's
    random permutation requires, so that the id order carries no locality.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices, 0..30.
    edge_factor : int, default 16
        Edges generated per vertex, at least 1 (self loops and duplicates then go, so the graph
        has fewer).
    seed : int, default 0
        The generator's key: every edge is a hash of (seed, edge number).
    directed : bool, default False
        Keep each generated edge as one arc u -> v.
    progress : bool, optional
        False hides the progress bar of a build on the CPU; None or True shows it once the build
        outlasts a second.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where the graph is built; the graph is the same on either. "auto": the GPU from
        GPU_MIN_EDGES generated edges where one is available.

    Returns
    -------
    Graph
        On the host; no self loops or duplicate arcs, initiator probabilities KRONECKER_ABC.

    Raises
    ------
    InvalidGraphError
        `scale` or `edge_factor` not an integer in range.
    InvalidArgumentError
        An unknown `device`, ``"cuda"`` where no GPU can be used, or a `seed` that is not an
        integer in 0..2**63-1.

    Examples
    --------
    >>> from gravel.generate import kronecker
    >>> kronecker(4, 4, device="cpu", progress=False).n
    16
    """
    _check_scale(scale)
    _check_count(edge_factor, "edge factor", 1)
    _check_seed(seed)
    n, m = 1 << scale, edge_factor << scale
    if _on_gpu(device, m):
        return _gpu_graph(1, scale, m, seed, directed, KRONECKER_ABC)
    return _simple_graph(
        f"kron:{scale}:{edge_factor}",
        lambda first, count: shares.call(
            _gen.kronecker_edges, scale, first, count, seed, *KRONECKER_ABC
        ),
        m,
        n,
        directed,
        progress,
    )


def uniform_random(scale, degree=16, *, seed=0, directed=False, progress=None, device="auto"):
    """GAP's uniform random graph: 2**scale vertices, degree * 2**scale edges with uniform
    endpoints.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices, 0..30.
    degree : int, default 16
        Edges generated per vertex, at least 1 (self loops and duplicates then go).
    seed, directed, progress, device
        As for :func:`kronecker`.

    Returns
    -------
    Graph
        On the host; no self loops or duplicate arcs.

    Raises
    ------
    InvalidGraphError
        `scale` or `degree` not an integer in range.
    InvalidArgumentError
        An unknown `device`, ``"cuda"`` where no GPU can be used, or a `seed` that is not an
        integer in 0..2**63-1.
    """
    _check_scale(scale)
    _check_count(degree, "degree", 1)
    _check_seed(seed)
    n, m = 1 << scale, degree << scale
    if _on_gpu(device, m):
        return _gpu_graph(0, scale, m, seed, directed)
    return _simple_graph(
        f"urand:{scale}:{degree}",
        lambda first, count: shares.call(_gen.uniform_edges, n, first, count, seed),
        m,
        n,
        directed,
        progress,
    )


def grid(rows, cols, *, diagonals=False):
    """A rows x cols 2-D mesh (4-neighbour, or 8 with diagonals); vertex r*cols + c.

    Parameters
    ----------
    rows, cols : int
        The mesh's sides, integers >= 0.
    diagonals : bool, default False
        Join each vertex to its diagonal neighbours too.

    Returns
    -------
    Graph
        Undirected and unweighted, ``rows * cols`` vertices.

    Raises
    ------
    InvalidGraphError
        `rows` or `cols` not an integer >= 0, or 2**31 vertices or more.

    Examples
    --------
    >>> from gravel.generate import grid
    >>> G = grid(2, 3)
    >>> G.n, G.m, G.out_degree.tolist()
    (6, 7, [2, 3, 2, 2, 3, 2])
    >>> grid(2, 3, diagonals=True).m
    11
    """
    _check_count(rows, "rows", 0)
    _check_count(cols, "cols", 0)
    if rows * cols >= 2**31:
        raise InvalidGraphError(f"grid {rows}x{cols} is empty-sized or too large")
    with shares.interruptible():
        src, dst = _gen.grid_edges(rows, cols, diagonals)
    return Graph.from_edges(src, dst, n=rows * cols, directed=False)


def random_geometric(scale, degree=8, *, seed=0):
    """2**scale points uniform in the unit square, joined when closer than r = sqrt(degree / (pi
    n)), so the expected average degree is about `degree` (a mesh-like graph with locality).

    Parameters
    ----------
    scale : int
        log2 of the number of points (vertices), 0..30.
    degree : float, default 8
        The expected average degree, a finite number > 0 (the radius is capped at 1).
    seed : int, default 0
        The points are a hash of (seed, point number).

    Returns
    -------
    Graph
        Undirected and unweighted, built on the host.

    Raises
    ------
    InvalidGraphError
        `scale` not an integer in 0..30, or `degree` not a finite number > 0.
    InvalidArgumentError
        A `seed` that is not an integer in 0..2**63-1.
    """
    _check_scale(scale)
    _check_seed(seed)
    real = is_real(degree)
    if not (real and math.isfinite(degree) and degree > 0):
        raise InvalidGraphError(f"degree must be a number > 0, not {degree!r}")
    n = 1 << scale
    radius = math.sqrt(degree / (math.pi * n))
    with shares.interruptible():
        src, dst = _gen.geometric_edges(n, min(radius, 1.0), seed)
    return Graph.from_edges(src, dst, n=n, directed=False)


def from_spec(spec, *, seed=0, progress=None, device="auto"):
    """Build the graph a spec names: ``kron:SCALE[:EDGEFACTOR]``, ``urand:SCALE[:DEGREE]``,
    ``grid:RxC[:diag]`` or ``rgg:SCALE[:DEGREE]``.

    Parameters
    ----------
    spec : str
        The spec; its numbers are integers (an rgg's degree too).
    seed : int, default 0
        As for :func:`kronecker` (a grid takes none).
    progress, device
        As for :func:`kronecker` ("kron" and "urand" only).

    Returns
    -------
    Graph

    Raises
    ------
    UnknownNameError
        A spec of none of these forms, or whose numbers are not integers.
    InvalidGraphError
        Numbers the generator refuses (``kron:31``, say).
    InvalidArgumentError
        For "kron" and "urand", an unknown `device` or ``"cuda"`` without a usable GPU; a `seed`
        that is not an integer in 0..2**63-1.

    Examples
    --------
    >>> from gravel.generate import from_spec
    >>> from_spec("grid:2x3")
    <gravel.Graph n=6 m=7 undirected>
    """
    kind, _, rest = spec.partition(":")
    args = rest.split(":") if rest else []
    makers = {"kron": kronecker, "urand": uniform_random, "rgg": random_geometric}
    try:
        if kind in makers and 1 <= len(args) <= 2:
            numbers = [int(a) for a in args]
            extra = {} if kind == "rgg" else {"progress": progress, "device": device}
            return makers[kind](*numbers, seed=seed, **extra)
        if kind == "grid" and len(args) in (1, 2) and args[1:] in ([], ["diag"]):
            r, c = (int(x) for x in args[0].lower().split("x"))
            return grid(r, c, diagonals=len(args) == 2)
    except ValueError as e:
        if isinstance(e, GravelError):  # the generator's own refusal, which names the value
            raise
    raise UnknownNameError(
        f"unknown generator spec {spec!r}: expected kron:SCALE[:EDGEFACTOR], "
        "urand:SCALE[:DEGREE], grid:RxC[:diag] or rgg:SCALE[:DEGREE]"
    )


def is_spec(text):
    """Whether `text` looks like a generator spec rather than a file name.

    Parameters
    ----------
    text : str or os.PathLike
        A spec or a path.

    Returns
    -------
    bool
        True where ``str(text)`` starts with ``kron:``, ``urand:``, ``grid:`` or ``rgg:``; the
        rest is checked by :func:`from_spec`.

    Examples
    --------
    >>> from gravel.generate import is_spec
    >>> is_spec("kron:20:16"), is_spec("graph.mtx")
    (True, False)
    """
    return str(text).split(":", 1)[0] in ("kron", "urand", "grid", "rgg") and ":" in str(text)


def _check_seed(seed):
    """InvalidArgumentError, naming `seed`, unless it is an integer in 0..2**63-1: the key the
    generators' kernels hash (a negative, fractional or wider one would wrap, truncate or
    overflow inside them)."""
    if seed is None or not is_integer(seed):
        raise InvalidArgumentError(f"seed must be an integer in 0..2**63-1, not {seed!r}")
    seeds.check(seed)


def _check_scale(scale):
    _check_count(scale, "scale", 0)
    if scale > 30:
        raise InvalidGraphError(f"scale {scale} outside 0..30")


def _check_count(value, name, least):
    """InvalidGraphError unless `value` is an integer of at least `least`."""
    if not is_integer(value) or value < least:
        raise InvalidGraphError(f"{name} must be an integer of at least {least}, not {value!r}")
