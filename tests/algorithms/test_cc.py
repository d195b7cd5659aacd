"""Connected components (Afforest) on the CPU and the GPU."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.cc import verify_cc

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs

REF = reference()


@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_cc_matches_published(entry):
    G, _ = load_dataset(entry)
    comp = entry["computed"]
    cc = gravel.connected_components(G, device="cpu")
    assert cc.summary()["components"] == comp["wcc_count"]
    assert np.bincount(cc.labels).max() == comp["largest_wcc_nodes"]
    assert verify_cc(G, cc.labels) == []


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_cc(G):
    if G.n == 0:
        assert gravel.connected_components(G, device="cpu").labels.size == 0
        return
    assert verify_cc(G, gravel.connected_components(G, device="cpu").labels) == []


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_random_cc_parallel_kernels(G):
    """Afforest's parallel links and compress (graphs over SMALL_ARCS arcs) on small random graphs,
    against SciPy's components."""
    from gravel.backends.cpu import serial

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        labels = gravel.connected_components(G, device="cpu").labels
    assert verify_cc(G, labels) == []


@pytest.mark.parametrize("small", [True, False], ids=["serial", "parallel"])
def test_cc_compress_finds_every_root(small):
    """compress on random forests whose parents have smaller ids (Afforest's trees), some paths
    thousands deep, against NumPy's pointer jumping."""
    from gravel.backends.cpu import cc as kernels

    k = kernels.kernels(0 if small else 1 << 40)
    rng = np.random.default_rng(11)
    n = 200_000
    for reach in (1, 3, n):  # each parent at most `reach` ids below its child
        comp = np.arange(n, dtype=np.int32)
        child = np.arange(1, n)
        comp[1:] = child - rng.integers(1, np.minimum(child, reach) + 1)
        roots = rng.random(n) < 1e-4  # a few more trees, each its own root
        comp[roots] = np.flatnonzero(roots)
        ref = comp.copy()
        while not np.array_equal(ref, ref[ref]):
            ref = ref[ref]
        k.compress(comp)
        assert np.array_equal(comp, ref)


@pytest.mark.parametrize("small", [True, False], ids=["serial", "parallel"])
@settings(max_examples=40, deadline=None)
@given(graphs(max_n=60), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_link_inside_finds_the_parts_of_each_labelled_set(small, G, sets, seed):
    """link_inside then compress (Leiden's split) on random graphs and random labellings, against
    SciPy's components of the graph of the arcs inside the sets: the same parts, each labelled by
    its smallest vertex."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    from gravel.backends.cpu import cc as kernels

    label = np.random.default_rng(seed).integers(0, sets, G.n)
    k = kernels.kernels(0 if small else 1 << 40)
    comp = np.arange(G.n, dtype=np.int32)
    k.link_inside(G.offsets, G.indices, comp, label)
    k.compress(comp)
    rows = np.repeat(np.arange(G.n), np.diff(G.offsets))
    inside = label[rows] == label[G.indices]
    A = csr_matrix((np.ones(int(inside.sum())), (rows[inside], G.indices[inside])), (G.n, G.n))
    _, parts = connected_components(A, directed=True, connection="weak")
    smallest = np.full(G.n, G.n)
    np.minimum.at(smallest, parts, np.arange(G.n))
    assert np.array_equal(comp, smallest[parts])


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=1024))
def test_cc_names_the_sampled_label_most_vertices_carry_on_the_device(labels):
    """Afforest's skipped component, found on the device: the label that most of the sample's carry
    (ties: the first of them in the sample), as NumPy counts it."""
    import cupy

    from gravel.algorithms.cc import _most_common_cuda

    x = np.array(labels, np.int32)
    values, counts = np.unique(x, return_counts=True)
    tied = values[counts == counts.max()]
    got = _most_common_cuda(cupy.asarray(x))
    assert got.shape == (1,) and got.dtype == np.int32
    assert int(got.get()[0]) == min(tied, key=labels.index)


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_verify_cc_reads_caller_ids_on_a_reordered_graph(G):
    assume(G.n > 0)
    R = gravel.reorder.reorder(G, "degree")
    labels = gravel.connected_components(R, device="cpu").labels
    assert verify_cc(R, labels) == []
    # the labels of the stored ids (a wrong answer wherever the order moves a component's
    # smallest vertex) are caught
    stored = gravel.connected_components(gravel.Graph(R.offsets, R.indices), device="cpu").labels
    assert (verify_cc(R, stored) == []) == np.array_equal(stored, labels)
