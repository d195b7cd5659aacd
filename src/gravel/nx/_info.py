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
    "adamic_adar_index": "",
    "all_pairs_bellman_ford_path": _BELLMAN_FORD,
    "all_pairs_bellman_ford_path_length": _WEIGHTS,
    "all_pairs_dijkstra": _DIJKSTRA,
    "all_pairs_dijkstra_path": _DIJKSTRA,
    "all_pairs_dijkstra_path_length": _DIJKSTRA_LENGTHS,
    "all_pairs_shortest_path": _NODE_ORDER,
    "all_pairs_shortest_path_length": "",
    "ancestors": "",
    "average_clustering": (
        "Weights must be non-negative numbers that float32 holds exactly; others run on NetworkX."
    ),
    "bellman_ford_path": _BELLMAN_FORD,
    "bellman_ford_path_length": _WEIGHTS,
    "betweenness_centrality": "Unweighted only (``weight=None``).",
    "bfs_edges": "Neighbours are visited in node order, not in edge-insertion order.",
    "bfs_layers": _NODE_ORDER,
    "bfs_predecessors": _NODE_ORDER,
    "bfs_successors": _NODE_ORDER,
    "bfs_tree": "Neighbours are visited in node order, not in edge-insertion order.",
    "bidirectional_shortest_path": _NODE_ORDER,
    "bipartite_betweenness_centrality": "",
    "closeness_centrality": (
        "Where ``distance`` is given, weights must be non-negative numbers that float32 holds "
        "exactly; others run on NetworkX."
    ),
    "clustering": (
        "Weights must be non-negative numbers that float32 holds exactly; others run on NetworkX."
    ),
    "common_neighbor_centrality": "",
    "complement": (
        "Graphs of up to 5,000 nodes (a dense n x n matrix); larger ones run on NetworkX."
    ),
    "connected_components": "",
    "core_number": "",
    "degree_centrality": "",
    "descendants": "",
    "descendants_at_distance": "",
    "dijkstra_path": _DIJKSTRA,
    "dijkstra_path_length": _DIJKSTRA_LENGTHS,
    "edge_betweenness_centrality": (
        "Unweighted only (``weight=None``). Keys in NetworkX's order while its graph lives; "
        "else in node order, each node's neighbours in node order."
    ),
    "eigenvector_centrality": "Weights must be non-negative numbers that float32 holds exactly.",
    "ego_graph": "Graphs whose edges carry attributes run on NetworkX (it keeps them all).",
    "forceatlas2_layout": (
        "NetworkX's iteration from NetworkX's start positions for the seed, in float64: equal "
        "up to rounding, which the iteration amplifies over tens of iterations."
    ),
    "generic_bfs_edges": (
        "Neighbours are visited in node order, not in edge-insertion order; a ``neighbors`` "
        "function runs on NetworkX."
    ),
    "greedy_color": (
        "Undirected graphs, strategy ``'largest_first'`` (the string) and ``interchange=False``; "
        "other calls run on NetworkX."
    ),
    "has_path": "",
    "hits": (
        "Power iteration in place of ARPACK's SVD, allowing 20 iterations per ``max_iter`` (it "
        "may raise PowerIterationFailedConvergence where the two largest singular values are "
        "within a few per cent and ARPACK converges); ``tol`` bounds the L1 change of the hubs, "
        "and ``tol<=0`` runs on NetworkX. "
        "Where the largest singular value is repeated (an undirected bipartite graph, two alike "
        "components) the scores may be another of its vectors than NetworkX's. Graphs without "
        "edges, and weights float32 does not hold exactly, run on NetworkX."
    ),
    "in_degree_centrality": "",
    "is_arborescence": "",
    "is_branching": "",
    "is_connected": "",
    "is_forest": "",
    "is_isolate": "",
    "is_negatively_weighted": _WEIGHTS,
    "is_tree": "",
    "is_weakly_connected": "",
    "isolates": "",
    "jaccard_coefficient": "",
    "k_core": "",
    "k_truss": "",
    "katz_centrality": "Weights must be non-negative numbers that float32 holds exactly.",
    "label_propagation_communities": "",
    "leiden_communities": (
        "Undirected graphs (not multigraphs); weights must be finite and non-negative. The "
        "partition depends on the seed; ``max_level`` counts the levels ``leiden_partitions`` "
        "yields."
    ),
    "leiden_partitions": (
        "Undirected graphs (not multigraphs); weights must be finite and non-negative. Computed "
        "in full at the call, then yielded level by level."
    ),
    "louvain_communities": (
        "Undirected graphs; weights must be finite and non-negative. "
        "gravel's visit order differs from NetworkX's for the same seed, so the partitions differ."
    ),
    "louvain_partitions": (
        "Undirected graphs; weights finite and non-negative. gravel's visit order differs from "
        "NetworkX's for the same seed, so the partitions differ."
    ),
    "lowest_common_ancestor": (
        "Successors are visited in node order, not in edge-insertion order: where several "
        "lowest common ancestors exist, the one returned may differ."
    ),
    "maximal_independent_set": (
        "A valid maximal independent set holding ``nodes``, but not NetworkX's draw for the seed."
    ),
    "maximum_spanning_edges": (
        "Boruvka whatever ``algorithm`` says: where weights tie the forest may differ (not its "
        "weight); with ``data=True``, graphs whose edges carry attributes run on NetworkX."
    ),
    "maximum_spanning_tree": (
        "Boruvka whatever ``algorithm`` says: where weights tie the tree may differ (not its "
        "weight); graphs whose edges carry attributes run on NetworkX."
    ),
    "minimum_spanning_edges": (
        "Boruvka whatever ``algorithm`` says: where weights tie the forest may differ (not its "
        "weight); with ``data=True``, graphs whose edges carry attributes run on NetworkX."
    ),
    "minimum_spanning_tree": (
        "Boruvka whatever ``algorithm`` says: where weights tie the tree may differ (not its "
        "weight); graphs whose edges carry attributes run on NetworkX."
    ),
    "node_connected_component": "",
    "number_connected_components": "",
    "number_weakly_connected_components": "",
    "out_degree_centrality": "",
    "number_of_isolates": "",
    "number_of_selfloops": "",
    "overall_reciprocity": "",
    "pagerank": "Weights are held as float32.",
    "preferential_attachment": "",
    "reciprocity": "Undirected graphs with ``nodes`` run on NetworkX (it reads predecessors).",
    "resource_allocation_index": "",
    "shortest_path": _NODE_ORDER + " With Bellman-Ford: " + _BELLMAN_FORD,
    "shortest_path_length": _WEIGHTS,
    "single_source_bellman_ford": _BELLMAN_FORD,
    "single_source_bellman_ford_path": _BELLMAN_FORD,
    "single_source_bellman_ford_path_length": _WEIGHTS,
    "single_source_dijkstra": _DIJKSTRA,
    "single_source_dijkstra_path": _DIJKSTRA,
    "single_source_dijkstra_path_length": (
        "Weights must be non-negative numbers that float32 holds exactly; others run on NetworkX."
    ),
    "single_source_shortest_path": _NODE_ORDER,
    "single_source_shortest_path_length": "",
    "single_target_shortest_path": _NODE_ORDER,
    "single_target_shortest_path_length": "",
    "square_clustering": "",
    "strongly_connected_components": "Components come by first node, not in Tarjan's order.",
    "number_strongly_connected_components": "",
    "is_strongly_connected": "",
    "transitivity": "Undirected graphs; a directed graph runs on NetworkX.",
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
