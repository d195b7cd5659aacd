"""Single-source shortest paths on non-negative weights.

Delta-stepping (Meyer and Sanders 2003), as in the GAP Benchmark Suite's sssp.cc: vertices are kept
in buckets of width delta by tentative distance; the lowest non-empty bucket is relaxed in parallel
until it stays empty, then the next one. Unweighted graphs use weight 1 on every edge.

On the CPU the predecessor of v is recorded as a relaxation lowers dist[v], at no measurable cost
(backends/cpu/sssp.py says why that tree is tight and acyclic). On the GPU, where concurrent atomic
minima leave no such record, predecessors come from the final distances: a BFS from the source over
the tight arcs (u -> v with dist[u] + w == dist[v], in the arithmetic of the relaxations) claims
each vertex once, so the tree has no cycle even where zero-weight cycles tie."""

from .api import IMPLEMENTATIONS, sssp
from .cpu import distance_type
from .delta import MAX_BUCKETS, check_delta, default_delta
from .result import SSSPResult
from .verify import verify_sssp, verify_tree

__all__ = [
    "IMPLEMENTATIONS",
    "MAX_BUCKETS",
    "SSSPResult",
    "check_delta",
    "default_delta",
    "distance_type",
    "sssp",
    "verify_sssp",
    "verify_tree",
]
