"""What a graph's arcs measure, found once and kept (a graph never changes): the bodies and
documentation of :class:`gravel.Graph`'s cached properties ``self_loops``, ``weight_stats``,
``whole_weights`` and ``has_parallel_arcs``. The last three are read where the graph lives: a
graph built or relabelled on the GPU is scanned there."""

import numpy as np

from .arrays import xp
from .backends.cpu import arcs as _arcs  # loaded on first use: importing gravel never imports Numba


def self_loops(self):
    """Number of self loops, counted once.

    Returns
    -------
    int
    """
    return int(_arcs.count_loops(self.offsets, self.indices))


def weight_stats(self):
    """The smallest, largest and mean weight, found once: the weights never change.

    Read where the weights live: a graph built or relabelled on the GPU is scanned there,
    without host arrays.

    Returns
    -------
    tuple of float
        ``(smallest, largest, mean)`` (NaN if a weight is NaN; the mean summed in float64);
        (1, 1, 1) unweighted; (0, 0, 0) without arcs.
    """
    if not self.weighted or self.nnz == 0:
        return (1.0, 1.0, 1.0) if self.nnz else (0.0, 0.0, 0.0)
    w = self._weights_where_they_live()
    return float(w.min()), float(w.max()), float(w.mean(dtype=np.float64))


def whole_weights(self):
    """Whether every weight is a whole number, found once, as weight_stats is.

    Returns
    -------
    bool
        True also for an unweighted graph or one without arcs.
    """
    if not self.weighted or self.nnz == 0:
        return True
    w = self._weights_where_they_live()
    return bool((w == xp(w).floor(w)).all())


def has_parallel_arcs(self):
    """Whether some arc u -> v is stored more than once, found once (rows are sorted, so a
    twin sits next to its arc): where the graph lives, one sync on the GPU.

    Returns
    -------
    bool
    """
    dg = self.device_graph
    where = dg if dg is not None else self
    offsets, indices = where.offsets, where.indices
    if indices.size < 2:
        return False
    twin = indices[1:] == indices[:-1]
    # entries p - 1 and p lie in different rows where a row starts at p
    starts = offsets[1:-1]
    twin[starts[(starts > 0) & (starts < indices.size)] - 1] = False
    return bool(xp(indices).any(twin))
