"""The trees and structure functions on device "cuda" against device "cpu": spanning edges and
trees, maximal independent sets, tree recognition, ego graphs, Louvain's levels and ForceAtlas2's
iterations (needs a GPU with CuPy)."""

import networkx as nx
import numpy as np
import pytest

from .helpers import (
    as_array,
    distinct_weights,
)


@pytest.mark.gpu
def test_gpu_answers_are_the_cpu_s():
    """Each function on device "cuda" against device "cpu": the same forest, sets, answers and
    ego graphs, valid Louvain levels (the GPU moves every vertex at once), and ForceAtlas2's
    iterations equal up to rounding."""
    pytest.importorskip("cupy")
    G = distinct_weights(nx.gnm_random_graph(400, 1500, seed=3), 1)
    T = nx.bfs_tree(nx.random_labeled_tree(300, seed=2), 0)
    calls = [
        lambda: list(nx.minimum_spanning_edges(G, data=False, backend="gravel")),
        lambda: sorted(nx.maximum_spanning_tree(G, backend="gravel").edges),
        lambda: nx.maximal_independent_set(G, [0], seed=4, backend="gravel"),
        lambda: (nx.is_tree(T, backend="gravel"), nx.is_arborescence(T, backend="gravel")),
        lambda: sorted(nx.ego_graph(G, 0, 20, backend="gravel").edges),
        lambda: sorted(nx.ego_graph(G, 0, 30.0, distance="weight", backend="gravel")),
    ]
    start = {v: p for v, p in zip(G, np.random.default_rng(5).random((len(G), 2)))}

    def layout():
        return as_array(G, nx.forceatlas2_layout(G, start, max_iter=5, backend="gravel"))

    with nx.config.backends.gravel(device="cpu"):
        cpu = [call() for call in calls] + [layout()]
    with nx.config.backends.gravel(device="cuda"):
        gpu = [call() for call in calls] + [layout()]
        levels = list(nx.community.louvain_partitions(G, seed=1, backend="gravel"))
    assert gpu[:-1] == cpu[:-1]
    assert np.allclose(gpu[-1], cpu[-1], rtol=1e-9, atol=1e-9)
    assert levels and all(nx.community.is_partition(G, p) for p in levels)
