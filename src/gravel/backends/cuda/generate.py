"""Generated graphs built on the GPU: the CPU generators' CSR, bit for bit, made fast and within
the host memory of the CSR itself.

The GPU makes the edges (kernels/generate/csr.cu: the same hashes of (seed, edge number) as
backends/cpu/generate.py), counts each row's arcs, then builds the CSR a slab of rows at a time:
it makes every edge again, keeps the arcs whose row is in the slab as 64-bit keys (row, column),
sorts them, drops duplicates and copies the columns into the host's index array behind the
previous slab's. The host holds only the CSR (offsets, and an index array sized for the arcs
before duplicates are dropped, its unused tail handed back at the end): a graph several times
larger than the GPU is built on a host with little more memory than the graph.
"""

import numpy as np

from ..cpu import generate as _cpu
from . import runtime

#: edges made per launch (a launch must stay well under the display watchdog's limit)
LAUNCH_EDGES = 1 << 30
#: device bytes a slab needs per arc: its key, the sort's buffers, the mask, its scan and the
#: deduplicated copy
SLAB_BYTES_PER_ARC = 40
URAND, KRONECKER = 0, 1


def params(kind, scale, seed, abc=(0.0, 0.0, 0.0)):
    """The kernels' parameter block: seed, n, scale, the Kronecker thresholds (truncated to
    1/65536 as the CPU path truncates them) and the id scrambler's round keys."""
    a, b, c = abc
    perm = [int(_cpu.rand64(seed, np.uint64(0xFFFFFFFF00000000) + np.uint64(r))) for r in range(3)]
    thresholds = [int(a * 65536.0), int((a + b) * 65536.0), int((a + b + c) * 65536.0)]
    block = [seed % 2**64, 1 << scale, scale, *thresholds, *perm]
    return np.array(block, dtype=np.uint64)


def count_rows(kind, abc, scale, seed, both_ways, first, last):
    """Arcs at each row (a CuPy uint32 array of the n rows; duplicates counted, loops not) among
    the generated edges first .. last - 1."""
    import cupy

    block = cupy.asarray(params(kind, scale, seed, abc))
    degree = cupy.zeros(1 << scale, cupy.uint32)
    count = runtime.kernel("generate/csr.cu", "gravel_generate_count", templates=(kind,))
    for f, k in _launches(first, last):
        count(_grid(k), 256, (np.int64(f), np.int64(k), block, np.int32(both_ways), degree))
    return degree


def build_csr(
    kind, scale, m, seed, both_ways, abc=(0.0, 0.0, 0.0), *, rows=None, degree=None, slab_arcs=None
):
    """(offsets, indices) of the `m` generated edges, rows sorted, without loops or duplicates:
    what ``backends.cpu.csr.stream_csr(..., dedupe=True, drop_loops=True)`` makes of the same
    edges. `rows` (lo, hi) keeps rows lo .. hi - 1 only (offsets then start at 0 for row lo);
    `degree` is :func:`count_rows` of all m edges where the caller has it. `slab_arcs` caps the
    arcs of a slab (default: what free device memory holds)."""
    import cupy

    n = 1 << scale
    lo, hi = rows or (0, n)
    block = cupy.asarray(params(kind, scale, seed, abc))
    if degree is None:
        degree = count_rows(kind, abc, scale, seed, both_ways, 0, m)
    # arcs of rows lo..v, duplicates included
    ends = cupy.cumsum(cupy.asarray(degree[lo:hi]), dtype=cupy.int64)
    del degree
    raw = int(ends[-1]) if hi > lo else 0
    cap = slab_arcs or max(runtime.free_bytes() // SLAB_BYTES_PER_ARC, 1 << 20)
    slabs = _slabs(ends, cap)
    del ends
    offsets = np.zeros(hi - lo + 1, np.int64)
    indices = np.empty(raw, np.int32)
    nnz = 0
    slab = runtime.kernel("generate/csr.cu", "gravel_generate_slab", templates=(kind,))
    for row0, row1, arcs in slabs:
        keys = cupy.empty(arcs, cupy.uint64)
        length = cupy.zeros(1, cupy.uint64)
        for first, k in _launches(0, m):
            args = (np.int64(first), np.int64(k), block, np.int32(both_ways), np.int64(lo + row0))
            args += (np.int64(lo + row1), keys, length, np.uint64(arcs))
            slab(_grid(k), 256, args)
        if int(length[0]) != arcs:
            raise RuntimeError(f"slab {row0}..{row1}: {int(length[0])} arcs made, {arcs} counted")
        keys.sort()
        keep = cupy.empty(arcs, bool)
        keep[:1] = True
        cupy.not_equal(keys[1:], keys[:-1], out=keep[1:])
        keys = keys[keep]
        del keep
        # row r's arcs end where the keys of row r + 1 begin
        starts = cupy.arange(1, row1 - row0 + 1, dtype=cupy.uint64) << np.uint64(32)
        offsets[row0 + 1 : row1 + 1] = nnz + cupy.searchsorted(keys, starts).get()
        del starts
        cols = (keys & np.uint64(0xFFFFFFFF)).astype(cupy.int32)
        del keys
        cols.get(out=indices[nnz : nnz + cols.size])
        nnz += cols.size
        del cols
    indices.resize(nnz, refcheck=False)  # the tail the duplicates left goes back to the system
    cupy.get_default_memory_pool().free_all_blocks()  # the slabs' buffers, for whatever comes next
    return offsets, indices


def _launches(first, last):
    """(first edge, count) of the launches that make edges first .. last - 1."""
    return [(f, min(LAUNCH_EDGES, last - f)) for f in range(first, last, LAUNCH_EDGES)]


def _grid(edges):
    return runtime.blocks_for(edges, 256, resident=8)


def _slabs(ends, cap):
    """Row ranges [row0, row1) of at most `cap` arcs each (a row with more is a slab of its own),
    with their arc counts, from the inclusive prefix sums `ends` of the rows' arcs."""
    import cupy

    n = ends.size
    slabs, row0, before = [], 0, 0
    while row0 < n:
        row1 = int(cupy.searchsorted(ends, before + cap, side="right"))
        row1 = max(row1, row0 + 1)
        total = int(ends[row1 - 1])
        slabs.append((row0, row1, total - before))
        row0, before = row1, total
    return slabs
