"""The GPU SSSP where its near/far split passes float32's range."""

import numpy as np
import pytest

import gravel
from gravel.algorithms.sssp import verify_sssp
from gravel.arrays import host

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")


@pytest.mark.filterwarnings("error")  # the split's float32 cast once warned of an overflow
@pytest.mark.parametrize("delta", [2e38, 1e300])
def test_issue_17_sssp_split_past_float32_casts_without_warning(delta):
    # 0 -> 1 (3e38) lands past the first split; the next split (4e38 or more) is past float32
    G = gravel.Graph.from_edges([0, 1, 0], [1, 2, 2], [3e38, 0.0, 3.4e38])
    r = gravel.sssp(G, 0, delta=delta, device="cuda")
    d = host(r.distance)
    assert d.tolist() == [0.0, np.float32(3e38), np.float32(3e38)]
    assert verify_sssp(G, 0, d, host(r.predecessor), rtol=1e-6) == []


def test_sssp_predecessors_by_a_pull_where_weights_are_positive_else_by_a_bfs():
    """Positive weights: each reached vertex has a strictly closer tight in-arc, and one pull finds
    the tree; a zero-weight arc between vertices at one distance leaves a vertex without one, and
    the BFS over tight arcs finds the tree instead."""
    from gravel import generate, transform

    G = transform.add_random_weights(generate.kronecker(10, 8, seed=3), 1, 255, seed=2)
    s = int(np.argmax(G.out_degree))
    r = gravel.sssp(G, s, device="cuda")
    assert r.stats["predecessors"] == "pull"
    d = host(r.distance).astype(np.float64)
    assert verify_sssp(G, s, d, host(r.predecessor), rtol=1e-5) == []
    Z = gravel.Graph.from_edges([0, 1, 2, 0], [1, 2, 1, 3], [1.0, 0.0, 0.0, 2.0])
    r = gravel.sssp(Z, 0, device="cuda")
    assert r.stats["predecessors"] == "bfs"
    d = host(r.distance).astype(np.float64)
    assert verify_sssp(Z, 0, d, host(r.predecessor)) == []
