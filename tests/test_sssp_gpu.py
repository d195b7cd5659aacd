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
