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


@pytest.mark.parametrize("kind,make", [(1, generate.kronecker), (0, generate.uniform_random)])
@pytest.mark.parametrize("rows", [(0, 1), (5, 700), (1500, 2048), (9, 9)])
def test_a_range_of_rows_is_those_rows_of_the_csr(kind, make, rows):
    """`rows` keeps rows lo .. hi - 1, in slabs of any size, with offsets from 0; the counts passed
    in (as a distributed build sums them) or counted inside give the same rows."""
    cpu = make(11, 8, seed=3, device="cpu")
    abc = generate.KRONECKER_ABC if kind == 1 else (0.0, 0.0, 0.0)
    lo, hi = rows
    first, last = cpu.offsets[lo], cpu.offsets[hi]
    want = cpu.offsets[lo : hi + 1] - first, cpu.indices[first:last]
    degree = gpu_generate.count_rows(kind, abc, 11, 3, True, 0, 8 << 11)
    for given, slab_arcs in [(None, None), (degree, 97)]:
        got = gpu_generate.build_csr(
            kind, 11, 8 << 11, 3, True, abc, rows=rows, degree=given, slab_arcs=slab_arcs
        )
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_from_spec_builds_large_graphs_on_the_gpu():
    G = generate.from_spec("urand:20:16")  # 2**24 edges: auto builds it on the GPU
    assert G == generate.uniform_random(20, 16, device="cpu")
