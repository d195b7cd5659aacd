"""The backend's functions, one module per NetworkX module (importing them registers them)."""

from . import (
    centrality,
    cluster,
    coloring,
    community,
    components,
    core,
    dag,
    link_analysis,
    shortest_paths,
    traversal,
)

__all__ = [
    "centrality",
    "cluster",
    "coloring",
    "community",
    "components",
    "core",
    "dag",
    "link_analysis",
    "shortest_paths",
    "traversal",
]
