"""The graph algorithms, one module each, each with its CPU path, CUDA path (where present) and
verifier. What the command line and the benchmark know about each one is its description in
:mod:`gravel.algorithms.catalog`."""

from .bellman_ford import bellman_ford
from .betweenness import betweenness_centrality
from .bfs import bfs
from .cc import connected_components
from .closeness import closeness_centrality
from .coloring import greedy_color
from .eigenvector import eigenvector_centrality
from .hits import hits
from .katz import katz_centrality
from .kcore import core_number
from .layout import forceatlas2_layout
from .leiden import leiden_communities
from .link_prediction import link_prediction
from .louvain import louvain_communities
from .lpa import label_propagation_communities
from .mis import maximal_independent_set
from .msf import minimum_spanning_forest
from .pagerank import pagerank
from .salsa import salsa
from .scc import strongly_connected_components
from .sssp import sssp
from .triangles import triangles
from .truss import truss_number
from .who_to_follow import who_to_follow

__all__ = [
    "bellman_ford",
    "betweenness_centrality",
    "bfs",
    "closeness_centrality",
    "connected_components",
    "core_number",
    "eigenvector_centrality",
    "forceatlas2_layout",
    "greedy_color",
    "label_propagation_communities",
    "leiden_communities",
    "link_prediction",
    "louvain_communities",
    "maximal_independent_set",
    "minimum_spanning_forest",
    "hits",
    "katz_centrality",
    "pagerank",
    "salsa",
    "sssp",
    "strongly_connected_components",
    "triangles",
    "truss_number",
    "who_to_follow",
]
