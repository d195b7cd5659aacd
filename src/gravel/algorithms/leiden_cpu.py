"""Leiden's level graph and the steps of a level on the CPU (leiden.py drives them): Louvain's
level graph and local moves (louvain.py, backends/cpu/louvain.py), the split of each community
into its connected parts by connected components' union-find (backends/cpu/cc.py), the refinement
(backends/cpu/leiden.py) and Louvain's aggregation.
"""

import numpy as np

from ..backends.cpu import cc as _cc
from ..backends.cpu import leiden as _k
from ..backends.cpu import louvain as _louvain
from ..backends.cpu import modularity as _mod
from .leiden_levels import Levels
from .louvain import _level_graph, _move


class CpuLevels(Levels):
    """The CPU's level graph (Louvain's: a CSR without loops, and each vertex's loop weight) and
    the steps of a level (:class:`gravel.algorithms.leiden_levels.Levels`), with NumPy and Numba.

    Parameters
    ----------
    G : Graph
        Undirected.
    weighted : bool
        Whether `w` are G's weights: the GPU engine's call, which reads them itself; here `w`
        holds them either way.
    w : numpy.ndarray
        float64 weight per entry of G's CSR.
    options : tuple of float
        (resolution, threshold, theta in edge weight).
    rng : numpy.random.Generator
        Draws the visit orders and the refinement's choices.
    """

    device = "cpu"
    method = "leiden"

    def __init__(self, G, weighted, w, options, rng):
        super().__init__(np, _level_graph(G, w), G.n, *options)
        self.rng = rng

    def _degrees(self):
        """Each level vertex's degree (float64), its loop counted twice."""
        offsets, indices, weights, loops = self.graph
        return _mod.kernels(indices.size).degrees(offsets, indices, weights) + 2.0 * loops

    def _inside(self, community):
        """The weight of the arcs inside `community`, each vertex's loop counted twice."""
        offsets, indices, weights, loops = self.graph
        inside = _mod.kernels(indices.size).inside(offsets, indices, community, weights)
        return inside + 2.0 * loops.sum()

    def _move(self, community):
        """Louvain's local moves, `community` moved in place: (whether any vertex moved, it)."""
        moves = _move(self.graph, community, self.rng, self.resolution, self.threshold)
        return moves > 0, community

    def _components(self, community):
        """Each community's connected parts, labelled by vertex ids: union-find over the arcs
        inside communities (connected components' kernels)."""
        offsets, indices = self.graph[0], self.graph[1]
        comp = np.arange(self.size, dtype=np.int32)
        k = _cc.kernels(indices.size)
        k.link_inside(offsets, indices, comp, community)
        k.compress(comp)
        return comp.astype(np.int64)

    def _refine(self, community):
        """The refinement's subcommunities, labelled by vertex ids: its random visit order and
        choices come from the engine's generator."""
        offsets, indices, weights, _ = self.graph
        k = self._degrees()
        order = self.rng.permutation(self.size)
        chance = self.rng.random(self.size)
        members = order[np.argsort(community[order], kind="stable")]
        starts = np.zeros(int(community.max()) + 2, np.int64)
        np.cumsum(np.bincount(community, minlength=starts.size - 1), out=starts[1:])
        q = (float(k.sum()), self.resolution, self.theta)
        return _k.kernels(indices.size).refine(
            offsets, indices, weights, k, community, members, starts, chance, q
        )

    def _aggregate(self, refined):
        """The graph of the subcommunities of `refined`, and its size."""
        graph = _louvain.aggregate(*self.graph, refined)
        return graph, graph[0].size - 1
