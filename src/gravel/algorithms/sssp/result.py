"""The result of SSSP: distances, predecessors and the path to a vertex."""

from dataclasses import dataclass

import numpy as np

from ...arguments import is_integer
from ...arrays import host
from ...errors import VertexNotFoundError
from ...results import Result


@dataclass
class SSSPResult(Result):
    """What :func:`sssp` returns: ``distance`` and ``predecessor`` per vertex and the
    ``source``."""

    vertex_arrays = ("distance", "predecessor")
    id_arrays = ("predecessor",)

    distance: np.ndarray = None
    predecessor: np.ndarray = None
    source: int = None

    def path_to(self, target):
        """The vertices of a shortest path from the source to `target`, source first.

        Parameters
        ----------
        target : int
            A vertex (caller id).

        Returns
        -------
        list of int
            ``[source, ..., target]``; ``[source]`` if `target` is the source; ``[]`` if `target`
            is unreachable.

        Raises
        ------
        VertexNotFoundError
            `target` is not a vertex of the graph.

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
        >>> gravel.sssp(G, 0, device="cpu").path_to(2)
        [0, 1, 2]
        """
        pred = host(self.predecessor)
        if not is_integer(target):
            raise VertexNotFoundError(f"target must be an integer vertex id, not {target!r}")
        if not 0 <= target < pred.size:
            raise VertexNotFoundError(
                f"target vertex {target} is not in the graph (ids 0..{pred.size - 1})"
            )
        path = [int(target)]
        if target != self.source and pred[target] < 0:
            return []
        while path[-1] != self.source and len(path) <= pred.size:
            path.append(int(pred[path[-1]]))
        return path[::-1]

    def summary(self):
        d = host(self.distance)
        finite = np.isfinite(d)
        return super().summary() | {
            "reached": int(finite.sum()),
            "max_distance": float(d[finite].max(initial=0)),
        }
