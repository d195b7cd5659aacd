"""Graph generators: Graph500 Kronecker, GAP uniform random, 2-D grids, random geometric graphs.

Every generator is deterministic for a given seed, and produces an undirected graph without self
loops or duplicate edges (GAP's builder convention), unless ``directed=True`` is asked of the random
ones. Specs such as ``kron:20:16`` name a generated graph wherever a file name is accepted."""

import math

from .backends.cpu import generate as _gen
from .backends.cpu.csr import build_csr
from .errors import InvalidGraphError, UnknownNameError
from .graph import Graph
from .io._files import progress

#: Graph500 initiator probabilities (D = 1 - A - B - C = 0.05).
KRONECKER_ABC = (0.57, 0.19, 0.19)


def _simple_graph(edges, n, directed):
    """Graph of ``edges = [src, dst, None]`` without loops or duplicates; frees the edges early."""
    offsets, indices, _ = build_csr(edges, n, not directed, dedupe=True, drop_loops=True)
    return Graph(offsets, indices, directed=directed, _sorted=True)


def kronecker(scale, edge_factor=16, *, seed=0, directed=False, progress=None):
    """Graph500 Kronecker graph: 2**scale vertices, edge_factor * 2**scale generated edges.

    Vertex ids are scrambled by a keyed bijection (from `seed`), as the Graph500 specification's
    random permutation requires, so that the id order carries no locality."""
    _check_scale(scale)
    n, m = 1 << scale, edge_factor << scale
    with _stage_bar(f"kron:{scale}:{edge_factor}", progress) as bar:
        edges = [*_gen.kronecker_edges(scale, m, seed, *KRONECKER_ABC), None]
        bar.update()
        return _simple_graph(edges, n, directed)


def uniform_random(scale, degree=16, *, seed=0, directed=False, progress=None):
    """GAP's uniform random graph: 2**scale vertices, degree * 2**scale edges with uniform
    endpoints."""
    _check_scale(scale)
    n, m = 1 << scale, degree << scale
    with _stage_bar(f"urand:{scale}:{degree}", progress) as bar:
        edges = [*_gen.uniform_edges(n, m, seed), None]
        bar.update()
        return _simple_graph(edges, n, directed)


def grid(rows, cols, *, diagonals=False):
    """A rows x cols 2-D mesh (4-neighbour, or 8 with diagonals); vertex r*cols + c."""
    if rows < 0 or cols < 0 or rows * cols >= 2**31:
        raise InvalidGraphError(f"grid {rows}x{cols} is empty-sized or too large")
    src, dst = _gen.grid_edges(rows, cols, diagonals)
    return Graph.from_edges(src, dst, n=rows * cols, directed=False)


def random_geometric(scale, degree=8, *, seed=0):
    """2**scale points uniform in the unit square, joined when closer than r = sqrt(degree / (pi
    n)), so the expected average degree is about `degree` (a mesh-like graph with locality)."""
    _check_scale(scale)
    n = 1 << scale
    radius = math.sqrt(degree / (math.pi * n))
    src, dst = _gen.geometric_edges(n, min(radius, 1.0), seed)
    return Graph.from_edges(src, dst, n=n, directed=False)


def from_spec(spec, *, seed=0, progress=None):
    """Build the graph a spec names: ``kron:SCALE[:EDGEFACTOR]``, ``urand:SCALE[:DEGREE]``,
    ``grid:RxC[:diag]`` or ``rgg:SCALE[:DEGREE]``."""
    kind, _, rest = spec.partition(":")
    args = rest.split(":") if rest else []
    makers = {"kron": kronecker, "urand": uniform_random, "rgg": random_geometric}
    try:
        if kind in makers and 1 <= len(args) <= 2:
            numbers = [int(a) for a in args]
            extra = {} if kind == "rgg" else {"progress": progress}
            return makers[kind](*numbers, seed=seed, **extra)
        if kind == "grid" and len(args) in (1, 2) and args[1:] in ([], ["diag"]):
            r, c = (int(x) for x in args[0].lower().split("x"))
            return grid(r, c, diagonals=len(args) == 2)
    except ValueError as e:
        if isinstance(e, InvalidGraphError):
            raise
    raise UnknownNameError(
        f"unknown generator spec {spec!r}: expected kron:SCALE[:EDGEFACTOR], "
        "urand:SCALE[:DEGREE], grid:RxC[:diag] or rgg:SCALE[:DEGREE]"
    )


def is_spec(text):
    return str(text).split(":", 1)[0] in ("kron", "urand", "grid", "rgg") and ":" in str(text)


def _check_scale(scale):
    if not 0 <= scale <= 30:
        raise InvalidGraphError(f"scale {scale} outside 0..30")


def _stage_bar(name, enabled):
    return progress(2, f"generating {name}", enabled, unit="stage")
