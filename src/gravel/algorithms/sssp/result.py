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
    ``source``.

    Attributes
    ----------
    distance : numpy.ndarray or cupy.ndarray
        Per vertex, over the caller's ids: the length of a shortest path from the source, ``inf``
        where unreachable; float64 on the CPU, a float32 CuPy array on the GPU.
    predecessor : numpy.ndarray or cupy.ndarray or None
        int32 per vertex, over the caller's ids: the vertex before it on a shortest path, -1 for
        the source and unreachable vertices; None where :func:`sssp` was called with
        ``predecessors=False``.
    source : int
        The source's caller id.
    stats : dict
        ``"delta"``: the bucket width used; on the CPU ``"distances"``: the type its kernels held
        the distances in (:func:`distance_type`); on the GPU ``"predecessors"``: how the tree was
        found ("pull" or "bfs"; None where none was), and ``"pull_sweeps"``: the pull sweeps run.
    """

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
        ValueError
            The result holds no predecessors (:func:`sssp` with ``predecessors=False``).

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 5.0])
        >>> gravel.sssp(G, 0, device="cpu").path_to(2)
        [0, 1, 2]
        """
        if self.predecessor is None:
            raise ValueError("path_to needs the predecessors: call sssp with predecessors=True")
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
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``reached``: the vertices at a
            finite distance, and ``max_distance``: the largest finite distance.
        """
        d = host(self.distance)
        finite = np.isfinite(d)
        return super().summary() | {
            "reached": int(finite.sum()),
            "max_distance": float(d[finite].max(initial=0)),
        }
