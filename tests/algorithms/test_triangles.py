"""Triangle counting on the CPU and the GPU: the published totals of the shared datasets, NetworkX's
per-vertex counts on the smaller ones and on random graphs, the GPU's total against the CPU's."""

import importlib

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.backends.cpu import tc

from ..conftest import dataset_ids, fresh, load_dataset, reference
from ..strategies import graphs
from .helpers import as_array, nx_simple_undirected

triangles_module = importlib.import_module("gravel.algorithms.triangles")

REF = reference()
SMALL = [e for e in REF if e["computed"]["n_vertices"] <= 40000]
#: the shared datasets with a published triangle count
COUNTED = [e for e in REF if "triangles" in e["computed"]]


@pytest.mark.parametrize("entry", COUNTED, ids=dataset_ids(COUNTED))
def test_triangles_match_published(entry):
    G, _ = load_dataset(entry)
    comp = entry["computed"]
    assert gravel.triangles(G, per_vertex=False, device="cpu").total == comp["triangles"]


@pytest.mark.parametrize("entry", SMALL, ids=dataset_ids(SMALL))
def test_triangles_per_vertex_match_networkx(entry):
    G, _ = load_dataset(entry)
    g = nx_simple_undirected(G)
    assert np.array_equal(gravel.triangles(G, device="cpu").triangles, as_array(nx.triangles(g), G))


@pytest.mark.parametrize("by_degree", [True, False], ids=["degree ranks", "id ranks"])
@settings(max_examples=60, deadline=None)
@given(G=graphs())
def test_random_triangles_as_networkx(by_degree, G):
    g = nx_simple_undirected(G)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triangles_module, "ranks_by_degree", lambda degree: by_degree)
        tri = gravel.triangles(G, device="cpu")
        total = gravel.triangles(G, device="cpu", per_vertex=False).total
    assert np.array_equal(tri.triangles, as_array(nx.triangles(g), G))
    assert tri.total == total == sum(nx.triangles(g).values()) // 3


@settings(max_examples=60, deadline=None)
@given(G=graphs(), small=st.booleans())
def test_lower_ends_split_each_sorted_row_at_its_own_id(G, small):
    """Each row's ids below its own end where lower_ends says, on both its paths (NumPy up to
    SMALL_ARCS arcs, the parallel kernel above)."""
    S = G.simple_undirected()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tc, "is_small", lambda arcs: small)
        ends = tc.lower_ends(S.offsets, S.indices)
    for u in range(S.n):
        row = S.indices[S.offsets[u] : S.offsets[u + 1]]
        assert ends[u] - S.offsets[u] == np.count_nonzero(row < u)


@pytest.mark.parametrize(
    "degree,expect",
    [
        ([16] * 999 + [17], False),  # even degrees, as a uniform random graph's
        ([24] * 500 + [26] * 500, False),  # mean 25 within 1.3 times the median
        ([4] * 900 + [400] * 100, True),  # mean 43.6 over a median of 4
        ([2] * 900 + [182] * 100, True),  # a mean of exactly 20 (DEGREE_RANK_MEAN), skewed
        ([3] * 900 + [150] * 100, False),  # skewed, but a mean of 17.7: too sparse to pay
        ([0, 100] * 1000, False),  # the sample holds vertices with arcs only: all of 100
        ([0] * 1200 + [60] * 800, False),  # likewise: isolated vertices skew nothing
        ([4] * 4500 + [400] * 500, True),  # more than 1,000: a sample decides
        ([], False),
    ],
)
def test_ranks_by_degree_follows_gap_s_rule(degree, expect):
    assert triangles_module.ranks_by_degree(np.array(degree, np.int32)) is expect


@pytest.mark.gpu
@given(graphs(max_n=100, max_m=600))
@settings(max_examples=30, deadline=None)
def test_triangle_total_on_the_gpu(G):
    G = fresh(G)
    got = gravel.triangles(G, per_vertex=False, device="cuda")
    assert got.total == gravel.triangles(G, device="cpu").total


@given(G=graphs(max_n=60, max_m=400), block=st.integers(1, 64))
def test_verifier_counts_as_networkx_in_any_blocks(G, block):
    """The verifier's reference (oriented sparse products, rows in blocks of `block` products)
    gives NetworkX's per-vertex counts, and flags one count moved by one."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(triangles_module, "VERIFY_BLOCK_PRODUCTS", block)
        expect = nx.triangles(nx_simple_undirected(G))
        counts = np.array([expect[v] for v in range(G.n)], np.int64)
        assert triangles_module.verify_triangles(G, counts, counts.sum() // 3) == []
        if G.n:
            counts[G.n // 2] += 1
            problems = triangles_module.verify_triangles(G, counts)
            assert problems == [f"vertex {G.n // 2}: {counts[G.n // 2]} triangles, expected "
                                f"{expect[G.n // 2]}"]  # fmt: skip
