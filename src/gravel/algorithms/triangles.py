"""Triangle counting, per vertex and in total, on the undirected simple graph (directed graphs are
symmetrised first, as SNAP does; self loops and parallel edges never form triangles).

Forward algorithm: orient every edge from the lower to the higher (degree, id) rank, so each triangle is
found exactly once, by merging the sorted out-lists of the two ends of an oriented edge.
"""

from dataclasses import dataclass

import numba
import numpy as np

from ..backends.cpu import tc as _k
from ._common import Result, Timer, choose_device, to_caller


@dataclass
class TriangleResult(Result):
    triangles: np.ndarray = None
    total: int = 0

    def summary(self):
        return super().summary() | {"triangles": self.total}


def triangles(G, *, per_vertex=True, device="auto"):
    """Number of triangles through each vertex (as ``networkx.triangles``) and in the whole graph.

    With ``per_vertex=False`` only ``total`` is computed (less memory and time).

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False)
    >>> r = gravel.triangles(G, device="cpu")
    >>> r.triangles.tolist(), r.total
    ([1, 1, 1, 0], 1)
    """
    dev = choose_device(device, _IMPLEMENTATIONS, "triangles")
    res = _IMPLEMENTATIONS[dev](G.simple_undirected(), per_vertex)
    if per_vertex:
        res.triangles = to_caller(G, res.triangles)
    return res


def _triangles_cpu(S, per_vertex):
    threads = numba.get_num_threads()
    with Timer() as t:
        off, idx = _k.orient(S.offsets, S.indices, S.out_degree)
        total, per = _k.count(off, idx, threads, per_vertex)
    return TriangleResult("triangles", "cpu", t.seconds, 1, "forward",
                          triangles=per if per_vertex else None, total=int(total))


def _triangles_cuda(S, per_vertex):
    """Segmented intersection on the GPU. Total: orient every edge by (degree, id) rank on the device and
    intersect the two ends' out-lists of each oriented edge. Per vertex: intersect the ends of every
    arc of the undirected graph and halve the row sums (each triangle at u is seen from both its edges)."""
    import cupy

    from ..backends.cuda.graph import DeviceGraph
    from ..operators import intersect

    dg = S.to("cuda")
    src = (cupy.searchsorted(dg.offsets, cupy.arange(S.nnz, dtype=cupy.int64), side="right") - 1).astype(cupy.int32)
    dst = dg.indices
    with Timer("cuda") as t:
        if per_vertex:
            counts, total = intersect(dg, src, dst)
            prefix = cupy.concatenate([cupy.zeros(1, cupy.int64), cupy.cumsum(counts)])
            per = (prefix[dg.offsets[1:]] - prefix[dg.offsets[:-1]]) // 2
            total //= 6
        else:
            deg = dg.out_degree
            keep = (deg[src] < deg[dst]) | ((deg[src] == deg[dst]) & (src < dst))
            osrc, odst = src[keep], dst[keep]
            offsets = cupy.zeros(S.n + 1, cupy.int64)
            offsets[1:] = cupy.cumsum(cupy.bincount(osrc, minlength=S.n))
            _, total = intersect(DeviceGraph.from_arrays(offsets, odst), osrc, odst)
            per = None
    return TriangleResult("triangles", "cuda", t.seconds, 1, "segmented intersection", triangles=per,
                          total=int(total))


_IMPLEMENTATIONS = {"cpu": _triangles_cpu, "cuda": _triangles_cuda}
