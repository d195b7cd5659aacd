"""The graph algorithms, one module each, each with its CPU path, CUDA path (where present) and
verifier."""

from .betweenness import betweenness_centrality
from .bfs import bfs
from .cc import connected_components
from .kcore import core_number
from .pagerank import pagerank
from .sssp import sssp
from .triangles import triangles

#: Algorithm names of the command line, and the functions behind them.
ALGORITHMS = {
    "bfs": bfs,
    "sssp": sssp,
    "pagerank": pagerank,
    "cc": connected_components,
    "bc": betweenness_centrality,
    "tc": triangles,
    "kcore": core_number,
}
