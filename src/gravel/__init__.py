"""gravel: graph analytics on NVIDIA GPUs, with a fast CPU path beside it.

Graphs are :class:`Graph` objects (CSR, int32 ids, int64 offsets, float32 weights). Algorithms take
a Graph and return a result object whose arrays are indexed by vertex id::

    >>> import gravel
    >>> G = gravel.generate.grid(3, 3)
    >>> gravel.bfs(G, 0).depth.tolist()
    [0, 1, 2, 1, 2, 3, 2, 3, 4]

``device="auto"`` (the default) runs on the GPU when CuPy and a GPU are present, else on the CPU.
Where a graph's arrays live there (device memory, pinned host memory, managed, tiered) and the
device-memory budget are set in :mod:`gravel.config` and planned by :mod:`gravel.placement`.
Importing gravel imports neither CuPy nor Numba: the GPU path and the CPU kernels load when first
used.
"""

import importlib
from typing import TYPE_CHECKING

from . import config, placement, reorder, transform
from .errors import (
    DeviceUnavailableError,
    GraphFormatError,
    GraphTooLargeError,
    GravelError,
    InvalidArgumentError,
    InvalidGraphError,
    InvalidWeightError,
    NegativeCycleError,
    PinnedMemoryError,
    PowerIterationFailedConvergence,
    UnknownNameError,
    VertexNotFoundError,
)
from .graph import Graph
from .io import load, save
from .transform import check_weights

# The algorithms and the generators are loaded on first use: their modules import Numba, which
# ``import gravel`` must not. Name -> the module that defines it.
_LAZY = {
    "generate": "gravel",
    "programs": "gravel",
    "distributed": "gravel",
    "bellman_ford": "gravel.algorithms",
    "bfs": "gravel.algorithms",
    "sssp": "gravel.algorithms",
    "pagerank": "gravel.algorithms",
    "salsa": "gravel.algorithms",
    "connected_components": "gravel.algorithms",
    "betweenness_centrality": "gravel.algorithms",
    "closeness_centrality": "gravel.algorithms",
    "eigenvector_centrality": "gravel.algorithms",
    "katz_centrality": "gravel.algorithms",
    "triangles": "gravel.algorithms",
    "who_to_follow": "gravel.algorithms",
    "core_number": "gravel.algorithms",
    "forceatlas2_layout": "gravel.algorithms",
    "truss_number": "gravel.algorithms",
    "link_prediction": "gravel.algorithms",
    "hits": "gravel.algorithms",
    "greedy_color": "gravel.algorithms",
    "label_propagation_communities": "gravel.algorithms",
    "leiden_communities": "gravel.algorithms",
    "louvain_communities": "gravel.algorithms",
    "maximal_independent_set": "gravel.algorithms",
    "minimum_spanning_forest": "gravel.algorithms",
    "strongly_connected_components": "gravel.algorithms",
}

if TYPE_CHECKING:
    from . import distributed, generate, programs
    from .algorithms import (
        bellman_ford,
        betweenness_centrality,
        bfs,
        closeness_centrality,
        connected_components,
        core_number,
        eigenvector_centrality,
        forceatlas2_layout,
        greedy_color,
        hits,
        katz_centrality,
        label_propagation_communities,
        leiden_communities,
        link_prediction,
        louvain_communities,
        maximal_independent_set,
        minimum_spanning_forest,
        pagerank,
        salsa,
        sssp,
        strongly_connected_components,
        triangles,
        truss_number,
        who_to_follow,
    )


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'gravel' has no attribute {name!r}")
    if _LAZY[name] == __name__:
        value = importlib.import_module(f"{__name__}.{name}")  # a submodule
    else:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "Graph",
    "load",
    "save",
    "distributed",
    "generate",
    "programs",
    "transform",
    "reorder",
    "config",
    "placement",
    "check_weights",
    "bfs",
    "bellman_ford",
    "sssp",
    "pagerank",
    "salsa",
    "connected_components",
    "betweenness_centrality",
    "closeness_centrality",
    "eigenvector_centrality",
    "katz_centrality",
    "triangles",
    "who_to_follow",
    "core_number",
    "forceatlas2_layout",
    "truss_number",
    "link_prediction",
    "hits",
    "greedy_color",
    "label_propagation_communities",
    "leiden_communities",
    "louvain_communities",
    "maximal_independent_set",
    "minimum_spanning_forest",
    "strongly_connected_components",
    "GravelError",
    "InvalidGraphError",
    "InvalidArgumentError",
    "GraphFormatError",
    "VertexNotFoundError",
    "InvalidWeightError",
    "NegativeCycleError",
    "UnknownNameError",
    "DeviceUnavailableError",
    "GraphTooLargeError",
    "PinnedMemoryError",
    "PowerIterationFailedConvergence",
]
