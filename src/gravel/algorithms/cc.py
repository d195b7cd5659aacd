"""Connected components (weakly connected, for directed graphs).

Afforest (Sutton et al., IPDPS'18), as in the GAP Benchmark Suite: link each vertex with its first two
neighbours, find the component most vertices already share, then link the remaining edges of vertices
outside it only. Every component is labelled with its smallest vertex id.
"""

from dataclasses import dataclass

import numpy as np

from ..backends.cpu import cc as _k
from ._common import Result, Timer, choose_device, ids_to_caller, to_caller

SAMPLE_ROUNDS = 2


@dataclass
class CCResult(Result):
    labels: np.ndarray = None

    def summary(self):
        return super().summary() | {"components": int(np.unique(self.labels).size)}


def connected_components(G, *, device="auto"):
    """Label every vertex with the smallest vertex id of its (weakly) connected component.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([3, 1], [2, 0], n=5)
    >>> gravel.connected_components(G, device="cpu").labels.tolist()
    [0, 0, 2, 2, 4]
    """
    choose_device(device, _IMPLEMENTATIONS, "connected_components")
    res = _cc_cpu(G)
    # the smallest internal id is not the smallest caller id after reordering: relabel by minimum
    labels = ids_to_caller(G, to_caller(G, res.labels))
    if G.order is not None:
        smallest = np.full(G.n, G.n, np.int64)
        np.minimum.at(smallest, labels, np.arange(G.n))
        labels = smallest[labels].astype(np.int32)
    res.labels = labels
    return res


def _cc_cpu(G):
    comp = np.arange(G.n, dtype=np.int32)
    rounds = 0
    with Timer() as t:
        for r in range(SAMPLE_ROUNDS):
            _k.link_neighbour(G.offsets, G.indices, comp, r)
            _k.compress(comp)
        skip = -1
        if G.n:
            sample = comp[np.random.default_rng(0).integers(0, G.n, 1024)]
            skip = int(np.bincount(sample).argmax())
        layouts = [(G.offsets, G.indices)]
        if G.directed:
            # a vertex of the big component may have an in-edge from outside it
            in_off, in_idx, _ = G.csc()
            layouts.append((in_off, in_idx))
        while True:
            rounds += 1
            for i, (off, idx) in enumerate(layouts):
                # the sampling rounds already linked the first out-neighbours
                start = SAMPLE_ROUNDS if rounds == 1 and i == 0 else 0
                _k.link_rest(off, idx, comp, start, skip)
            _k.compress(comp)
            if _k.crossing_edges(G.offsets, G.indices, comp) == 0:
                break
            skip = -1  # a lost link: finish with every edge
    return CCResult("connected_components", "cpu", t.seconds, rounds, "afforest", labels=comp)


def verify_cc(G, labels):
    """Same partition as SciPy's connected_components, and each label is its component's minimum."""
    from scipy.sparse.csgraph import connected_components as scipy_cc

    k, ref = scipy_cc(G.to_scipy(), directed=True, connection="weak")
    problems = []
    first = np.full(k, G.n, np.int64)
    np.minimum.at(first, ref, np.arange(G.n))
    if not np.array_equal(first[ref], labels):
        problems.append("labels differ from SciPy's components labelled by their smallest vertex")
    return problems


_IMPLEMENTATIONS = {"cpu": _cc_cpu}
