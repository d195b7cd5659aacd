"""The GPU paths of issue 22's primitives against their CPU paths, which the CPU tests check against
NetworkX: the same maximal independent set and colouring for a seed (both are the greedy ones in
priority order), the same label-propagation communities, the same minimum spanning forest (unique
under the weight-then-ends order), HITS scores equal to rounding and the same strongly connected
components; on generated, reordered, hypothesis and the shared graphs."""

import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel import generate, transform
from gravel.algorithms.coloring import verify_coloring
from gravel.algorithms.mis import verify_mis
from gravel.algorithms.msf import verify_msf
from gravel.algorithms.scc import verify_scc
from gravel.reorder import reorder

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

REF = reference()
FIXED = [
    ("kron", transform.add_random_weights(generate.kronecker(12, 8, seed=3), 1, 255, seed=2)),
    ("grid", generate.grid(40, 50)),
    ("urand-directed", generate.uniform_random(11, 8, seed=4, directed=True)),
    ("kron-reordered", reorder(generate.kronecker(10, 8, seed=5), "degree")),
]
#: HITS iterations compared (tol=0: both paths run exactly these)
HITS_ITERATIONS = 30


def both(function, G, **options):
    """(GPU result, CPU result) of one primitive."""
    gpu = function(G, device="cuda", **options)
    assert gpu.device == "cuda"
    return gpu, function(G, device="cpu", **options)


def check_undirected(G):
    """The primitives that NetworkX defines on undirected graphs only."""
    for seed in (1, 7):
        gpu, cpu = both(gravel.maximal_independent_set, G, seed=seed)
        assert np.array_equal(gpu.in_set.get(), cpu.in_set)
        assert np.array_equal(gpu.nodes.get(), cpu.nodes)
        assert verify_mis(G, gpu.in_set.get()) == []
    gpu, cpu = both(gravel.label_propagation_communities, G)
    assert np.array_equal(gpu.labels.get(), cpu.labels)
    assert gpu.iterations == cpu.iterations
    assert gpu.modularity == pytest.approx(cpu.modularity, abs=1e-12)
    for weight in (True, None):
        gpu, cpu = both(gravel.minimum_spanning_forest, G, weight=weight)
        for name in ("src", "dst", "weight", "parent"):
            assert np.array_equal(getattr(gpu, name).get(), getattr(cpu, name)), name
        assert gpu.total_weight == pytest.approx(cpu.total_weight, rel=1e-9, abs=1e-9)
        assert gpu.iterations == cpu.iterations or G.n == 0  # the CPU counts a round of nothing
        problems = verify_msf(G, gpu.parent.get(), total_weight=gpu.total_weight, weight=weight)
        assert problems == []


def check_all(G):
    if not G.directed:
        check_undirected(G)
    for seed in (None, 3):
        gpu, cpu = both(gravel.greedy_color, G, seed=seed)
        assert np.array_equal(gpu.colors.get(), cpu.colors)
        assert verify_coloring(G, gpu.colors.get()) == []
    gpu, cpu = both(gravel.hits, G, max_iter=HITS_ITERATIONS, tol=0.0)
    assert gpu.iterations == cpu.iterations
    for name in ("hubs", "authorities"):
        assert np.allclose(getattr(gpu, name).get(), getattr(cpu, name), rtol=1e-7, atol=1e-12)
    gpu, cpu = both(gravel.strongly_connected_components, G)
    assert np.array_equal(gpu.labels.get(), cpu.labels)
    assert verify_scc(G, gpu.labels.get()) == []


@pytest.mark.parametrize("name,G", FIXED, ids=[f[0] for f in FIXED])
def test_fixed_graphs(name, G):
    check_all(G)


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True))
def test_random_graphs(G):
    check_all(G)


@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_shared_datasets(entry):
    G, _ = load_dataset(entry)
    check_all(G)
    if G.directed:  # the undirected primitives on the graph of its arcs
        check_undirected(transform.symmetrize(G))


def test_hits_converges_on_the_gpu():
    G = generate.kronecker(10, 8, seed=6)
    gpu, cpu = both(gravel.hits, G)
    assert abs(gpu.iterations - cpu.iterations) <= 1 and gpu.stats["error"] < 1e-8
    assert np.allclose(gpu.hubs.get(), cpu.hubs, rtol=1e-6, atol=1e-12)


def test_auto_picks_the_gpu():
    G = generate.grid(4, 4)
    for algo in (
        gravel.maximal_independent_set,
        gravel.greedy_color,
        gravel.label_propagation_communities,
        gravel.minimum_spanning_forest,
        gravel.hits,
        gravel.strongly_connected_components,
    ):
        assert algo(G).device == "cuda"
