"""The engine that ``leiden.run_levels`` drives: a level's graph and the four steps of a level
(move, split, refine, aggregate), with the modularity that judges them.

:class:`Levels` holds what both engines share: the first level's graph to restart from, the
modularity of a partition, and the renumbering of each step's labels. Each engine fills in the
steps themselves over its own form of the level graph: the CPU's (leiden_cpu.py: a CSR, NumPy
and Numba) and the GPU's (leiden_parallel.py: arc lists, over an array module).
"""

from .louvain import _dense


class Levels:
    """A level's graph and the steps of a level, over the array module `xp`: the base of
    Leiden's engines, which give each step's own work (``_degrees``, ``_inside``, ``_move``,
    ``_components``, ``_refine``, ``_aggregate``). A partition of the level's graph is an int64
    array of `xp`, each vertex's community, numbered 0..c-1; the steps take and give partitions.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: the module of the level graph's arrays.
    graph : tuple
        The first level's graph, in the engine's own form.
    size : int
        Its vertices.
    resolution : float
        The modularity's resolution.
    threshold : float
        The moves' idle gain.
    theta : float
        The refinement's randomness, in edge weight.

    Attributes
    ----------
    xp : module
        The array module.
    size : int
        The vertices of the current level's graph.
    threshold : float
        The moves' threshold.
    """

    def __init__(self, xp, graph, size, resolution, threshold, theta):
        self.xp = xp
        self.graph = self.first = graph
        self.size = self.n = size
        self.resolution, self.threshold, self.theta = resolution, threshold, theta

    def restart(self):
        """Go back to the first level's graph, G's."""
        self.graph, self.size = self.first, self.n

    def modularity(self, community):
        """The modularity of a partition on this level's graph.

        Parameters
        ----------
        community : numpy.ndarray or cupy.ndarray
            The partition.

        Returns
        -------
        float
            0 without edges.
        """
        k = self._degrees()
        two_m = float(k.sum())
        if two_m == 0.0:
            return 0.0
        totals = self.xp.bincount(community, weights=k, minlength=self.size)
        inside = self._inside(community)
        return float(inside / two_m - self.resolution * (totals * totals).sum() / two_m**2)

    def move(self, community):
        """Louvain's local moves from `community` (which the CPU moves in place).

        Parameters
        ----------
        community : numpy.ndarray or cupy.ndarray
            The partition to start from.

        Returns
        -------
        moved : bool
            Whether any vertex moved.
        community : numpy.ndarray or cupy.ndarray
            The partition after the moves.
        """
        moved, labels = self._move(community)
        return moved, (self.dense(labels) if moved else labels)

    def split(self, community):
        """Each community's connected parts, as a partition.

        Parameters
        ----------
        community : numpy.ndarray or cupy.ndarray
            The partition to split.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            Each vertex's part.
        """
        return self.dense(self._components(community))

    def refine(self, community):
        """Leiden's refinement: each community's well-connected subcommunities, as a partition.

        Parameters
        ----------
        community : numpy.ndarray or cupy.ndarray
            The partition to refine.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            Each vertex's subcommunity, inside its community.
        """
        return self.dense(self._refine(community))

    def aggregate(self, refined):
        """Make each subcommunity of `refined` a vertex of the next level's graph.

        Parameters
        ----------
        refined : numpy.ndarray or cupy.ndarray
            A partition of this level's graph.
        """
        self.graph, self.size = self._aggregate(refined)

    def dense(self, labels):
        """`labels` renumbered 0..c-1 in their order: a partition.

        Parameters
        ----------
        labels : numpy.ndarray or cupy.ndarray
            Integers below the level's size, one per vertex of this level's graph.

        Returns
        -------
        numpy.ndarray or cupy.ndarray
            The same shape and dtype.
        """
        return _dense(labels, self.size)
