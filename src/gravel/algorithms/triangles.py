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
    choose_device(device, _IMPLEMENTATIONS, "triangles")
    res = _triangles_cpu(G.simple_undirected(), per_vertex)
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


_IMPLEMENTATIONS = {"cpu": _triangles_cpu}
