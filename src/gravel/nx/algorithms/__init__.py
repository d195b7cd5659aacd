"""The backend's functions, one module per NetworkX module (importing them registers them)."""

from . import (
    bipartite,
    centrality,
    cluster,
    coloring,
    community,
    components,
    core,
    link_analysis,
    link_prediction,
    reciprocity,
    shortest_paths,
    traversal,
)

__all__ = [
    "bipartite",
    "centrality",
    "cluster",
    "coloring",
    "community",
    "components",
    "core",
    "link_analysis",
    "link_prediction",
    "reciprocity",
    "shortest_paths",
    "traversal",
]
