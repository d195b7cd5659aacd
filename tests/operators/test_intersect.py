"""Segmented intersection (intersect, intersect_arcs) in every size class against NumPy."""

import importlib

import numpy as np
import pytest

import gravel
from gravel import transform

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import operators as ops  # noqa: E402

# the module whose name its operator shadows in gravel.operators
intersect_module = importlib.import_module("gravel.operators.intersect")


def test_intersect_every_size_class():
    rng = np.random.default_rng()
    # a graph mixing tiny lists, hubs and two huge overlapping lists
    G = transform.deduplicate(
        gravel.Graph.from_edges(
            np.concatenate([rng.integers(0, 3000, 60000), np.zeros(5000, int), np.ones(5000, int)]),
            np.concatenate(
                [
                    rng.integers(0, 3000, 60000),
                    rng.integers(2, 9000, 5000),
                    rng.integers(2, 9000, 5000),
                ]
            ),
            n=9000,
            directed=False,
        )
    )
    dg = G.to("cuda")
    # random pairs, and the hubs beside lists of some 40 (either side of WARP_FROM)
    us = np.concatenate([rng.integers(0, 9000, 20000), [0, 0, 1, 5], rng.integers(0, 2, 400)])
    vs = np.concatenate([rng.integers(0, 9000, 20000), [1, 7, 0, 5], rng.integers(2, 3000, 400)])
    us, vs = us.astype(np.int32), vs.astype(np.int32)
    counts, total = ops.intersect(dg, us, vs)
    rows = [set(G.indices[G.offsets[v] : G.offsets[v + 1]].tolist()) for v in range(G.n)]
    expect = np.array([len(rows[u] & rows[v]) for u, v in zip(us, vs)])
    assert np.array_equal(counts.get(), expect) and total == expect.sum()
    m = intersect_module
    lo = np.minimum(G.out_degree[us], G.out_degree[vs])
    hi = np.maximum(G.out_degree[us], G.out_degree[vs])
    searched = hi > m.SMALL
    assert np.any(hi <= m.SMALL) and np.any(lo > m.LARGE)  # merged, and a block per pair
    assert np.any(searched & (lo <= m.WARP_FROM))  # one thread per pair
    assert np.any(searched & (lo > m.WARP_FROM) & (lo <= m.LARGE))  # a warp per pair


def test_intersect_classes_equal_numpy():
    """The classify kernel's class of every pair and the classes' sizes, against NumPy's."""
    rng = np.random.default_rng()
    m = intersect_module
    degree = rng.choice([0, 5, m.SMALL, m.SMALL + 1, 40, m.LARGE, m.LARGE + 1, 5000], 3000)
    us, vs = rng.integers(0, 3000, (2, 100_000)).astype(np.int32)
    lo = np.minimum(degree[us], degree[vs])
    hi = np.maximum(degree[us], degree[vs])
    expect = np.where(
        hi <= m.SMALL, 0, np.where(lo <= m.WARP_FROM, 1, np.where(lo <= m.LARGE, 2, 3))
    )
    classes, sizes = m.classify(cupy.asarray(degree, np.int32), cupy.asarray(us), cupy.asarray(vs))
    assert np.array_equal(classes.get(), expect)
    assert np.array_equal(sizes, np.bincount(expect, minlength=len(m.CLASSES)))


def test_intersect_one_class_reads_every_pair_unlisted():
    """Where one class holds every pair (short lists only), its kernel takes them in order."""
    rng = np.random.default_rng()
    G = transform.deduplicate(
        gravel.Graph.from_edges(*rng.integers(0, 2000, (2, 20000)), n=2000, directed=False)
    )
    assert G.out_degree.max() <= intersect_module.SMALL
    us, vs = rng.integers(0, 2000, (2, 30000)).astype(np.int32)
    counts, total = ops.intersect(G.to("cuda"), us, vs)
    rows = [set(G.indices[G.offsets[v] : G.offsets[v + 1]].tolist()) for v in range(G.n)]
    expect = np.array([len(rows[u] & rows[v]) for u, v in zip(us, vs)])
    assert np.array_equal(counts.get(), expect) and total == expect.sum()


@pytest.mark.parametrize("longest", [1, 33, intersect_module.SMALL, intersect_module.SMALL + 1])
def test_intersect_arcs_sums_every_arc(longest):
    """The sum along every arc, by rows where no list passes SMALL (lists past 32 take several
    rounds of the row's scan), by pairs where one does, against Python's sets."""
    rng = np.random.default_rng()
    n = 600
    degree = rng.integers(0, longest + 1, n)
    degree[rng.integers(0, n)] = longest  # the longest list is there
    src = np.repeat(np.arange(n), degree)
    dst = np.concatenate([rng.choice(n, d, replace=False) for d in degree])
    G = gravel.Graph.from_edges(src, dst, n=n, directed=True)
    assert G.out_degree.max() == longest
    rows = [set(G.indices[G.offsets[v] : G.offsets[v + 1]].tolist()) for v in range(n)]
    expect = sum(len(rows[u] & rows[v]) for u in range(n) for v in rows[u])
    assert ops.intersect_arcs(G.to("cuda")) == expect
