"""Parts built where they will live: each worker makes its own part from a generator spec or a file,
and the graph is never whole on one host.

A generated graph (``kron:SCALE[:EF]``, ``urand:SCALE[:DEG]``) is a function of (seed, edge number),
so every worker can make any edge. :func:`build_program` (a distributed program, exchange.py) has
each worker count the degrees of its share of the edges, sums the counts with one allreduce (the
only exchange), cuts the same edge-balanced bounds on every worker, then makes every edge once more
and keeps the arcs whose tail is its own: the rows are those of ``gravel.generate.from_spec``'s
graph. A GPU worker does both passes on its GPU (backends/cuda/generate.py), the CPU path in
blocks with NumPy. Other specs and files are read by each worker, which keeps its own rows.
"""

from dataclasses import dataclass

import numpy as np

from .. import generate
from ..arrays import host, xp
from ..backends.cpu import csr as _csr
from ..backends.cpu import generate as _gen
from .exchange import allreduce
from .partition import Part, _check_parts, edge_balanced_bounds, part_of

#: the generators whose edges a worker can make one by one
EDGEWISE = ("kron", "urand")
#: edges per block of the degree count (each block's count is an n-long pass: blocks stay few)
COUNT_BLOCK = 1 << 26


@dataclass(frozen=True)
class Source:
    """Where parts come from: a generator spec or a graph file (with `load`'s keywords), the seed
    of generators, and `weights`: random integer weights 1..weights for an unweighted graph (as
    ``gravel.transform.add_random_weights(G, 1, weights, seed=0)`` gives them).

    Parameters
    ----------
    graph : str
        A generator spec (``kron:SCALE[:EF]``, ``urand:SCALE[:DEG]``, whose edges each worker
        makes itself, or another spec of :func:`gravel.generate.from_spec`) or a graph file's
        path.
    seed : int, default 0
        The generator's seed. The weights' seed is 0 whatever `seed` is.
    weights : int, optional
        Give an unweighted graph random integer weights 1..weights; None leaves it as it is.
    undirected : bool, default False
        A file's edges as undirected (:func:`gravel.load`'s `undirected`).
    relabel : bool, default False
        A file's ids relabelled (:func:`gravel.load`'s `relabel`).

    Examples
    --------
    >>> from gravel.distributed.build import Source
    >>> Source("kron:6").edgewise, Source("grid:2x3").edgewise
    (('kron', 6, 16), None)
    """

    graph: str
    seed: int = 0
    weights: int | None = None
    undirected: bool = False
    relabel: bool = False

    @property
    def edgewise(self):
        """(kind, scale, factor) of a generator spec whose edges come one by one, else None."""
        kind, _, rest = str(self.graph).partition(":")
        args = rest.split(":") if rest else []
        if kind not in EDGEWISE or not 1 <= len(args) <= 2 or not generate.is_spec(self.graph):
            return None
        try:
            numbers = [int(a) for a in args]
        except ValueError:
            return None
        return kind, numbers[0], numbers[1] if len(numbers) == 2 else 16

    def whole(self):
        """The whole graph, as the single-process path builds it (for other specs and files).

        Returns
        -------
        Graph
            ``gravel.generate.from_spec(graph, seed=seed)`` for a spec, else
            ``gravel.load(graph, undirected=undirected, relabel=relabel)``; with random weights
            1..weights where `weights` is set and the graph has none.

        Raises
        ------
        UnknownNameError
            A generator spec that :func:`gravel.generate.from_spec` cannot read.
        InvalidGraphError
            A spec's numbers out of range, or a missing or malformed file
            (:class:`~gravel.errors.GraphFormatError`).
        """
        from ..io import load

        if generate.is_spec(self.graph):
            G = generate.from_spec(self.graph, seed=self.seed)
        else:
            G = load(self.graph, undirected=self.undirected, relabel=self.relabel)
        if self.weights is not None and G.weights is None:
            from ..transform import add_random_weights

            G = add_random_weights(G, 1, self.weights, seed=0)
        return G


def _edges(kind, scale, factor, seed):
    """(n, m, edges(first, count)) of a generator spec."""
    n, m = 1 << scale, factor << scale
    if kind == "kron":
        abc = generate.KRONECKER_ABC
        return n, m, lambda first, count: _gen.kronecker_edges(scale, first, count, seed, *abc)
    return n, m, lambda first, count: _gen.uniform_edges(n, first, count, seed)


def _degrees(n, m, edges, rank, size):
    """Arcs at each vertex among this rank's share of the m edges, loops left out (int32)."""
    counts = np.zeros(n, np.int64)
    first, last = rank * m // size, (rank + 1) * m // size
    for a in range(first, last, COUNT_BLOCK):
        s, d = edges(a, min(COUNT_BLOCK, last - a))
        keep = s != d
        counts += np.bincount(np.concatenate([s[keep], d[keep]]), minlength=n)
    return counts.astype(np.int32)


def _rows(n, m, edges, lo, hi):
    """The deduplicated, sorted rows lo .. hi - 1 of the undirected graph of the m edges."""

    def blocks():
        for a in range(0, m, _csr.BLOCK_EDGES):
            s, d = edges(a, min(_csr.BLOCK_EDGES, m - a))
            keep = s != d
            s, d = s[keep], d[keep]
            src, dst = np.concatenate([s, d]), np.concatenate([d, s])
            mine = (src >= lo) & (src < hi)
            yield (src[mine] - lo).astype(np.int32), dst[mine], None

    return _csr.stream_csr(blocks, 2 * m, hi - lo, False, dedupe=True)


def _gpu_degrees(kind, scale, seed, m, rank, size):
    """`_degrees` counted on the GPU (a CuPy array)."""
    from ..backends.cuda import generate as _gpu

    first, last = rank * m // size, (rank + 1) * m // size
    return _gpu.count_rows(*_gpu_kind(kind), scale, seed, True, first, last).astype(np.int32)


def _gpu_rows(kind, scale, seed, degree, lo, hi, m):
    """`_rows` made on the GPU, given all rows' arc counts `degree` (CuPy): (offsets, targets)
    on the host."""
    from ..backends.cuda import generate as _gpu

    code, abc = _gpu_kind(kind)
    return _gpu.build_csr(code, scale, m, seed, True, abc, rows=(lo, hi), degree=degree)


def _gpu_kind(kind):
    """The GPU generator's kind code and Kronecker quadrants of `kind`."""
    return (1, generate.KRONECKER_ABC) if kind == "kron" else (0, (0.0, 0.0, 0.0))


def _weights(offsets, targets, lo, n, high):
    """add_random_weights' weights (1..high, a function of the unordered pair) of these rows,
    COUNT_BLOCK arcs at a time, on the device that holds `offsets` and `targets`."""
    from ..transform import mix64

    m = xp(targets)
    salt = np.uint64(np.random.default_rng(0).integers(0, 2**63))
    out = m.empty(targets.shape[0], np.float32)
    for a in range(0, targets.shape[0], COUNT_BLOCK):
        at = m.arange(a, min(a + COUNT_BLOCK, targets.shape[0]))
        rows = m.searchsorted(offsets, at, side="right") - 1 + lo
        u, v = np.minimum(rows, targets[at]), np.maximum(rows, targets[at])
        key = u.astype(np.uint64) * np.uint64(n) + v.astype(np.uint64)
        out[at] = 1 + mix64(key ^ salt) % np.uint64(high)
    return out


def build_program(rank, source, size, device="cpu"):
    """Part `rank` of `size` of `source`, made on its own worker (a distributed program: run it
    with the exchange, one per rank).

    Parameters
    ----------
    rank : int
        Which part, ``0 .. size - 1``.
    source : Source
        What to build.
    size : int
        How many parts, at least 1.
    device : {"cpu", "cuda"}, default "cpu"
        Where the degree counts are summed and the rows made: "cuda" does both on the GPU (the
        sum over NCCL).

    Yields
    ------
    Collective
        For a ``kron`` or ``urand`` spec, one allreduce (sum) of the degree counts of this
        rank's share of the edges; nothing for other specs and files.

    Returns
    -------
    Part
        The part in host memory, cut by the same edge-balanced bounds on every rank: a generated
        graph's rows (undirected) are those of ``gravel.generate.from_spec``'s graph; other specs
        and files are built whole (:meth:`Source.whole`) on each rank, which keeps its own rows.

    Raises
    ------
    InvalidArgumentError
        `size` is not a positive integer.

    Examples
    --------
    >>> from gravel.distributed.build import Source, build_program
    >>> from gravel.distributed.exchange import run_in_process
    >>> parts = run_in_process(range(2), build_program, Source("kron:6"), 2)
    >>> [(part.lo, part.hi, part.out_arcs) for part in parts]
    [(0, 38, 415), (38, 64, 351)]
    """
    size = _check_parts(size)
    spec = source.edgewise
    if spec is None:
        G = source.whole()
        return part_of(G, rank, edge_balanced_bounds(G.offsets, size))
    n, m, edges = _edges(*spec, source.seed)
    on_gpu = device == "cuda"
    if on_gpu:
        counts = _gpu_degrees(spec[0], spec[1], source.seed, m, rank, size)
    else:
        counts = _degrees(n, m, edges, rank, size)
    total = yield allreduce(counts, "sum")
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(host(total), out=offsets[1:])
    bounds = edge_balanced_bounds(offsets, size)
    bounds.flags.writeable = False
    lo, hi = int(bounds[rank]), int(bounds[rank + 1])
    if on_gpu:
        off, idx = _gpu_rows(spec[0], spec[1], source.seed, total, lo, hi, m)
    else:
        off, idx, _ = _rows(n, m, edges, lo, hi)
    w = None
    if source.weights is not None:
        rows = (off, idx)
        if on_gpu:
            import cupy

            rows = map(cupy.asarray, rows)
        w = host(_weights(*rows, lo, n, source.weights))
    return Part(rank, bounds, n, False, off, idx, w, off, idx, w)
