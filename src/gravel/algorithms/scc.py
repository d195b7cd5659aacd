"""Strongly connected components of a directed graph, as ``networkx.strongly_connected_components``.

Tarjan's algorithm (SIAM J. Comput. 1972) with an explicit stack (backends/cpu/scc.py): one
depth-first pass over the arcs, O(n + m), with no recursion limit. Every component is labelled with
its smallest vertex id, as :func:`gravel.connected_components` labels its components. There is no
CUDA path yet: a GPU version would run forward-backward reachability with colouring (FW-BW-Trim)
on the BFS operators.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import scc as _k
from ._common import Result, Timer, choose_device, to_caller


@dataclass
class SCCResult(Result):
    labels: np.ndarray = None

    def summary(self):
        labels = host(self.labels)
        sizes = np.unique(labels, return_counts=True)[1]
        return super().summary() | {
            "components": int(sizes.size),
            "largest_component": int(sizes.max(initial=0)),
        }


def strongly_connected_components(G, *, device="auto"):
    """Label every vertex with the smallest vertex id of its strongly connected component.

    Parameters
    ----------
    G : Graph
        Weights are ignored. An undirected graph's edges run both ways, so its strongly connected
        components are its connected components (NetworkX refuses undirected graphs).
    device : {"auto", "cpu", "cuda"}
        Only the CPU path exists: "auto" runs it, "cuda" raises DeviceUnavailableError.

    Returns
    -------
    SCCResult
        ``labels[v]`` (int32, caller ids): the smallest id of v's component. ``set(labels)`` has
        one entry per set that ``networkx.strongly_connected_components`` yields.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 3, 4], n=6)
    >>> gravel.strongly_connected_components(G, device="cpu").labels.tolist()
    [0, 0, 0, 3, 4, 5]

    Notes
    -----
    O(n + m) time and seven n-entry work arrays, serial. Self loops and parallel arcs change
    nothing.
    """
    name = "strongly_connected_components"
    res = _IMPLEMENTATIONS[choose_device(device, _IMPLEMENTATIONS, name)](G)
    res.labels = smallest_member(to_caller(G, res.labels))
    return res


def smallest_member(comp):
    """Component numbers (caller ids) -> each vertex's label: the smallest id of its component."""
    _, first, inverse = np.unique(comp, return_index=True, return_inverse=True)
    return first[inverse].astype(np.int32)


def _scc_cpu(G):
    n = G.n
    index = np.full(n, -1, np.int32)
    comp = np.full(n, -1, np.int32)
    low, stack, frame_v = (np.empty(n, np.int32) for _ in range(3))
    frame_p = np.empty(n, np.int64)
    with Timer() as t:
        _k.tarjan(G.offsets, G.indices, index, low, comp, stack, frame_v, frame_p)
    return SCCResult("strongly_connected_components", "cpu", t.seconds, 1, "tarjan", labels=comp)


def verify_scc(G, labels):
    """Same partition as SciPy's strongly connected components (Pearce's algorithm), each labelled
    with its smallest vertex id. Returns a list of problems."""
    from scipy.sparse.csgraph import connected_components as scipy_cc

    _, ref = scipy_cc(G.to_scipy(), directed=True, connection="strong")
    expect = smallest_member(to_caller(G, ref))
    wrong = np.flatnonzero(np.asarray(labels) != expect)
    if wrong.size:
        v = int(wrong[0])
        return [f"vertex {v}: label {int(labels[v])}, expected {int(expect[v])}"]
    return []


_IMPLEMENTATIONS = {"cpu": _scc_cpu}
