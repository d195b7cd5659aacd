"""gravel: graph analytics on NVIDIA GPUs, with a fast CPU path beside it.

Graphs are :class:`Graph` objects (CSR, int32 ids, int64 offsets, float32 weights). Algorithms take a
Graph and return a result object whose arrays are indexed by vertex id::

    >>> import gravel
    >>> G = gravel.generate.grid(3, 3)
    >>> gravel.bfs(G, 0).depth.tolist()
    [0, 1, 2, 1, 2, 3, 2, 3, 4]

``device="auto"`` (the default) runs on the GPU when CuPy and a GPU are present, else on the CPU.
Importing gravel never imports CuPy.
"""

from . import generate, reorder, transform
from .algorithms import (
    betweenness_centrality,
    bfs,
    connected_components,
    core_number,
    pagerank,
    sssp,
    triangles,
)
from .errors import (
    DeviceUnavailableError,
    GraphFormatError,
    GraphTooLargeError,
    GravelError,
    InvalidGraphError,
    InvalidWeightError,
    UnknownNameError,
    VertexNotFoundError,
)
from .graph import Graph
from .io import load, save

__version__ = "0.1.0"

__all__ = [
    "Graph", "load", "save", "generate", "transform", "reorder",
    "bfs", "sssp", "pagerank", "connected_components", "betweenness_centrality", "triangles",
    "core_number",
    "GravelError", "InvalidGraphError", "GraphFormatError", "VertexNotFoundError", "InvalidWeightError",
    "UnknownNameError", "DeviceUnavailableError", "GraphTooLargeError",
]
