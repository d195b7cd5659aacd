"""The GPU generators (backends/cuda/generate.py) build the CPU generators' graphs bit for bit."""

import numpy as np
import pytest

from gravel import generate
from gravel.backends.cuda import generate as gpu_generate

pytestmark = pytest.mark.gpu


def same_csr(offsets, indices, G):
    np.testing.assert_array_equal(offsets, G.offsets)
    np.testing.assert_array_equal(indices, G.indices)


@pytest.mark.parametrize("make", [generate.kronecker, generate.uniform_random])
@pytest.mark.parametrize("scale,factor", [(0, 4), (1, 3), (9, 16), (13, 8)])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", [0, 12345])
def test_gpu_graph_equals_cpu_graph(make, scale, factor, directed, seed):
    cpu = make(scale, factor, seed=seed, directed=directed, device="cpu")
    assert make(scale, factor, seed=seed, directed=directed, device="cuda") == cpu


@pytest.mark.parametrize("kind,make", [(1, generate.kronecker), (0, generate.uniform_random)])
@pytest.mark.parametrize("slab_arcs", [1, 97, 5000])
def test_slabs_of_any_size_make_the_same_csr(kind, make, slab_arcs):
    """Slabs cut anywhere, down to one row each (a row longer than a slab is a slab of its own)."""
    cpu = make(11, 8, seed=3, device="cpu")
    abc = generate.KRONECKER_ABC if kind == 1 else (0.0, 0.0, 0.0)
    same_csr(*gpu_generate.build_csr(kind, 11, 8 << 11, 3, True, abc, slab_arcs=slab_arcs), cpu)


def test_from_spec_builds_large_graphs_on_the_gpu():
    G = generate.from_spec("urand:20:16")  # 2**24 edges: auto builds it on the GPU
    assert G == generate.uniform_random(20, 16, device="cpu")
