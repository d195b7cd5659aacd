"""The input every algorithm shares, one test per algorithm: the empty graph, a device that is not
one. Each algorithm's checks against an independent reference (NetworkX, SciPy, published figures):
its test_<algorithm>.py; the GPU paths against the CPU's: test_gpu_against_cpu.py."""

import pytest

import gravel

#: each algorithm's result on the empty graph: a size (of a per-vertex result) or a count, all 0
EMPTY_RESULTS = {
    "pagerank": lambda G: gravel.pagerank(G).rank.size,
    "connected_components": lambda G: gravel.connected_components(G).labels.size,
    "triangles": lambda G: gravel.triangles(G).total,
    "core_number": lambda G: gravel.core_number(G).core.size,
    "betweenness_centrality": lambda G: gravel.betweenness_centrality(G).centrality.size,
}


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(EMPTY_RESULTS))
def test_empty_graph_gives_empty_results(name):
    G = gravel.Graph.from_edges([], [], n=0)
    assert EMPTY_RESULTS[name](G) == 0


def test_unknown_device():
    with pytest.raises(gravel.UnknownNameError):
        gravel.bfs(gravel.generate.grid(2, 2), 0, device="tpu")


def test_cuda_without_gpu_is_a_clear_error():
    from gravel.backends import cuda

    if cuda.available():
        pytest.skip("a GPU is present")
    with pytest.raises(gravel.DeviceUnavailableError, match="device='cuda'"):
        gravel.bfs(gravel.generate.grid(2, 2), 0, device="cuda")
