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
from .louvain import _dense, _level_graph, _move


class CpuLevels:
    """The CPU's level graph (Louvain's: a CSR without loops, and each vertex's loop weight) and
    the four steps of a level, with NumPy and Numba: the engine that ``leiden.run_levels`` drives.

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

    Attributes
    ----------
    xp : module
        ``numpy``.
    size : int
        The vertices of the current level's graph.
    threshold : float
        The moves' threshold.
    """

    xp = np
    device = "cpu"
    method = "leiden"

    def __init__(self, G, weighted, w, options, rng):
        self.graph = self.first = _level_graph(G, w)
        self.size = G.n
        self.resolution, self.threshold, self.theta = options
        self.rng = rng

    def restart(self):
        """Go back to the first level's graph, G's."""
        self.graph, self.size = self.first, self.first[0].size - 1

    def degrees(self):
        """Each level vertex's degree, its loop counted twice.

        Returns
        -------
        numpy.ndarray
            float64 per vertex of this level's graph.
        """
        offsets, indices, weights, loops = self.graph
        return _mod.kernels(indices.size).degrees(offsets, indices, weights) + 2.0 * loops

    def modularity(self, community):
        """The modularity of `community` on this level's graph.

        Parameters
        ----------
        community : numpy.ndarray
            int64 per vertex of this level's graph: its community, numbered 0..c-1.

        Returns
        -------
        float
            0 without edges.
        """
        offsets, indices, weights, loops = self.graph
        k = self.degrees()
        two_m = float(k.sum())
        if two_m == 0.0:
            return 0.0
        inside = _mod.kernels(indices.size).inside(offsets, indices, community, weights)
        totals = np.bincount(community, weights=k, minlength=self.size)
        inside += 2.0 * loops.sum()
        return float(inside / two_m - self.resolution * np.sum(totals * totals) / two_m**2)

    def move(self, community):
        """Louvain's local moves from `community` (moved in place).

        Parameters
        ----------
        community : numpy.ndarray
            int64 per vertex of this level's graph: its community, numbered 0..c-1.

        Returns
        -------
        moved : bool
            Whether any vertex moved.
        community : numpy.ndarray
            The communities after the moves, numbered 0..c-1.
        """
        moves = _move(self.graph, community, self.rng, self.resolution, self.threshold)
        return moves > 0, _dense(community, self.size)

    def split(self, community):
        """Each community's connected parts: union-find over the arcs inside communities
        (connected components' kernels).

        Parameters
        ----------
        community : numpy.ndarray
            int64 per vertex of this level's graph: its community, numbered 0..c-1.

        Returns
        -------
        numpy.ndarray
            int64 per vertex: its part, numbered 0..p-1.
        """
        offsets, indices = self.graph[0], self.graph[1]
        rows = np.repeat(np.arange(self.size), np.diff(offsets))
        keep = community[rows] == community[indices]
        inner = np.zeros(self.size + 1, np.int64)
        np.cumsum(np.bincount(rows[keep], minlength=self.size), out=inner[1:])
        ids = indices[keep]
        comp = np.arange(self.size, dtype=np.int32)
        k = _cc.kernels(ids.size)
        k.link_rest(inner, ids, comp, 0, -1)
        k.compress(comp)
        return _dense(comp.astype(np.int64), self.size)

    def refine(self, community):
        """Leiden's refinement of `community`: its random visit order and choices come from the
        engine's generator.

        Parameters
        ----------
        community : numpy.ndarray
            int64 per vertex of this level's graph: its community, numbered 0..c-1.

        Returns
        -------
        numpy.ndarray
            int64 per vertex: its subcommunity, numbered 0..r-1, each inside one community.
        """
        offsets, indices, weights, _ = self.graph
        k = self.degrees()
        order = self.rng.permutation(self.size)
        chance = self.rng.random(self.size)
        members = order[np.argsort(community[order], kind="stable")]
        starts = np.zeros(int(community.max()) + 2, np.int64)
        np.cumsum(np.bincount(community, minlength=starts.size - 1), out=starts[1:])
        q = (float(k.sum()), self.resolution, self.theta)
        refined = _k.kernels(indices.size).refine(
            offsets, indices, weights, k, community, members, starts, chance, q
        )
        return _dense(refined, self.size)

    def aggregate(self, refined):
        """Make each subcommunity of `refined` a vertex of the next level's graph.

        Parameters
        ----------
        refined : numpy.ndarray
            int64 per vertex of this level's graph: its subcommunity, numbered 0..r-1.
        """
        self.graph = _louvain.aggregate(*self.graph, refined)
        self.size = self.graph[0].size - 1
