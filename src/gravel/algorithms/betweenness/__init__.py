"""Betweenness centrality (Brandes 2001), unweighted shortest paths.

Each source runs a BFS that counts shortest paths (sigma), then accumulates dependencies in reverse
BFS order. Sources are split over CPU threads. Scaling follows
``networkx.betweenness_centrality(G, k, normalized, endpoints=False)`` exactly, and so do the paths
counted: those of the simple graph (a ``networkx.Graph`` or ``DiGraph``), where parallel arcs merge
into one. A graph with parallel arcs is deduplicated first (:func:`gravel.transform.deduplicate`).
"""

from .api import IMPLEMENTATIONS, betweenness_centrality
from .result import BCResult, rescale, rescale_edges
from .verify import verify_betweenness

__all__ = [
    "BCResult",
    "IMPLEMENTATIONS",
    "betweenness_centrality",
    "rescale",
    "rescale_edges",
    "verify_betweenness",
]
