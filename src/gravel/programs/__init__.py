"""Vertex programs (GraphMat): write a graph algorithm as send, process, reduce and apply over
named fields, and run it on the CPU (Numba) or the GPU (the operators) as generalized SpMV.

    >>> import gravel
    >>> from gravel import programs
    >>> G = gravel.generate.grid(2, 2)
    >>> programs.run(G, programs.connected_components(), device="cpu").state.tolist()
    [0, 0, 0, 0]

:class:`Program` defines one (:mod:`.expressions` gives its expression language), :data:`SEMIRINGS`
name ready-made process and reduce pairs, :func:`run` runs one; :mod:`.library` holds the seed's
algorithms as programs.
"""

from .expressions import ProgramError
from .library import (
    bfs,
    collaborative_filtering,
    connected_components,
    pagerank,
    sssp,
    triangles,
)
from .program import Program
from .run import PULL_ABOVE, ProgramResult, Step, run
from .semirings import SEMIRINGS, Semiring

__all__ = [
    "PULL_ABOVE",
    "Program",
    "ProgramError",
    "ProgramResult",
    "SEMIRINGS",
    "Semiring",
    "Step",
    "bfs",
    "collaborative_filtering",
    "connected_components",
    "pagerank",
    "run",
    "sssp",
    "triangles",
]
