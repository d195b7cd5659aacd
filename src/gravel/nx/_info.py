"""What NetworkX's ``networkx.backend_info`` entry point reads: the backend's name and functions.

Import-light on purpose: NetworkX calls :func:`get_info` while ``import networkx`` runs, so this
module imports nothing (no NumPy, CuPy or Numba, and compiles nothing).
"""

# the differences of the path and traversal functions (docs/networkx.md says more)
_NODE_ORDER = "Neighbours are visited in node order, not in edge-insertion order."
_WEIGHTS = "Weights must be numbers that float32 holds exactly; others run on NetworkX."
_DIJKSTRA_LENGTHS = (
    "Weights must be non-negative numbers that float32 holds exactly; others run on NetworkX."
)
_DIJKSTRA = (
    "Weights must be non-negative numbers that float32 holds exactly; others run on NetworkX. "
    "Neighbours are visited in node order, not in edge-insertion order."
)
_BELLMAN_FORD = (
    "Weights must be numbers that float32 holds exactly; others run on NetworkX. Where several "
    "shortest paths tie (other than on unit weights), the path may differ."
)

# name -> the difference from NetworkX, shown in NetworkX's docstring ("" where there is none)
FUNCTIONS = {
    "all_pairs_bellman_ford_path": _BELLMAN_FORD,
    "all_pairs_bellman_ford_path_length": _WEIGHTS,
    "all_pairs_dijkstra": _DIJKSTRA,
    "all_pairs_dijkstra_path": _DIJKSTRA,
    "all_pairs_dijkstra_path_length": _DIJKSTRA_LENGTHS,
    "all_pairs_shortest_path": _NODE_ORDER,
    "all_pairs_shortest_path_length": "",
    "ancestors": "",
    "average_clustering": "Undirected and unweighted only; other graphs run on NetworkX.",
    "betweenness_centrality": "Unweighted only (``weight=None``).",
    "bellman_ford_path": _BELLMAN_FORD,
    "bellman_ford_path_length": _WEIGHTS,
    "bfs_edges": _NODE_ORDER,
    "bfs_layers": _NODE_ORDER,
    "bfs_predecessors": _NODE_ORDER,
    "bfs_successors": _NODE_ORDER,
    "bfs_tree": _NODE_ORDER,
    "bidirectional_shortest_path": _NODE_ORDER,
    "clustering": "Undirected and unweighted only; other graphs run on NetworkX.",
    "connected_components": "",
    "core_number": "",
    "descendants": "",
    "descendants_at_distance": "",
    "dijkstra_path": _DIJKSTRA,
    "dijkstra_path_length": _DIJKSTRA_LENGTHS,
    "generic_bfs_edges": (
        "Neighbours are visited in node order, not in edge-insertion order; a ``neighbors`` "
        "function runs on NetworkX."
    ),
    "greedy_color": (
        "Undirected graphs, strategy ``'largest_first'`` (the string) and ``interchange=False``; "
        "other calls run on NetworkX."
    ),
    "has_path": "",
    "is_connected": "",
    "is_negatively_weighted": _WEIGHTS,
    "k_core": "",
    "label_propagation_communities": "",
    "lowest_common_ancestor": (
        "Successors are visited in node order, not in edge-insertion order: where several "
        "lowest common ancestors exist, the one returned may differ."
    ),
    "louvain_communities": (
        "Undirected graphs and ``max_level=None``; weights must be finite and non-negative. "
        "gravel's visit order differs from NetworkX's for the same seed, so the partitions differ."
    ),
    "node_connected_component": "",
    "number_connected_components": "",
    "pagerank": "Weights are held as float32.",
    "shortest_path": _NODE_ORDER + " With Bellman-Ford: " + _BELLMAN_FORD,
    "shortest_path_length": _WEIGHTS,
    "single_source_bellman_ford": _BELLMAN_FORD,
    "single_source_bellman_ford_path": _BELLMAN_FORD,
    "single_source_bellman_ford_path_length": _WEIGHTS,
    "single_source_dijkstra": _DIJKSTRA,
    "single_source_dijkstra_path": _DIJKSTRA,
    "single_source_dijkstra_path_length": _DIJKSTRA_LENGTHS,
    "single_source_shortest_path": _NODE_ORDER,
    "single_source_shortest_path_length": "",
    "single_target_shortest_path": _NODE_ORDER,
    "single_target_shortest_path_length": "",
    "strongly_connected_components": "Components come by first node, not in Tarjan's order.",
    "number_strongly_connected_components": "",
    "is_strongly_connected": "",
    "transitivity": "",
    "triangles": "",
    "weakly_connected_components": "",
}


def get_info():
    """The dictionary NetworkX's ``backend_info`` entry point expects."""
    return {
        "backend_name": "gravel",
        "project": "gravel",
        "package": "gravel",
        "short_summary": "Graph analytics on NVIDIA GPUs (CuPy), with a CPU path (Numba).",
        "default_config": {"device": "auto"},
        "functions": {
            name: {"additional_docs": note} if note else {} for name, note in FUNCTIONS.items()
        },
    }
