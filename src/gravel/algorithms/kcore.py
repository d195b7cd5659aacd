"""k-core decomposition: the core number of every vertex (as ``networkx.core_number``) on the
undirected simple graph (directed graphs are symmetrised; self loops are ignored).

Batagelj-Zaversnik bucket peeling: vertices sorted by degree in buckets, repeatedly remove the
smallest and lower its neighbours' degrees, O(n + m).
"""

from dataclasses import dataclass

import numpy as np

from ..backends.cpu import kcore as _k
from ._common import Result, Timer, choose_device, host, to_caller


@dataclass
class CoreResult(Result):
    core: np.ndarray = None

    def summary(self):
        core = host(self.core)
        top = int(core.max(initial=0))
        return super().summary() | {"degeneracy": top, "max_core_size": int((core == top).sum())}


def core_number(G, *, device="auto"):
    """Core number of every vertex: the largest k such that the vertex is in the k-core.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], directed=False)
    >>> gravel.core_number(G, device="cpu").core.tolist()
    [2, 2, 2, 1]
    """
    res = _IMPLEMENTATIONS[choose_device(device, _IMPLEMENTATIONS, "core_number")](G.simple_undirected())
    res.core = to_caller(G, res.core)
    return res


def _core_cpu(S):
    with Timer() as t:
        core = _k.core_numbers(S.offsets, S.indices)
    return CoreResult("core_number", "cpu", t.seconds, 1, "bucket peeling", core=core)


_IMPLEMENTATIONS = {"cpu": _core_cpu}
