"""The backend's functions, one module per NetworkX module (importing them registers them)."""

from . import (
    bipartite,
    centrality,
    cluster,
    coloring,
    community,
    components,
    core,
    isolate,
    link_analysis,
    link_prediction,
    mis,
    operators,
    reciprocity,
    shortest_paths,
    traversal,
    tree,
)

__all__ = [
    "bipartite",
    "centrality",
    "cluster",
    "coloring",
    "community",
    "components",
    "core",
    "isolate",
    "link_analysis",
    "link_prediction",
    "mis",
    "operators",
    "reciprocity",
    "shortest_paths",
    "traversal",
    "tree",
]
