"""Triangle counting on the CPU and the GPU: the published totals of the shared datasets, NetworkX's
per-vertex counts on the smaller ones and on random graphs, the GPU's total against the CPU's."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel

from ..conftest import dataset_ids, fresh, load_dataset, reference
from ..strategies import graphs
from .helpers import as_array, nx_simple_undirected

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


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_triangles_as_networkx(G):
    g = nx_simple_undirected(G)
    tri = gravel.triangles(G, device="cpu")
    assert np.array_equal(tri.triangles, as_array(nx.triangles(g), G))
    assert tri.total == sum(nx.triangles(g).values()) // 3


@pytest.mark.gpu
@given(graphs(max_n=100, max_m=600))
@settings(max_examples=30, deadline=None)
def test_triangle_total_on_the_gpu(G):
    G = fresh(G)
    got = gravel.triangles(G, per_vertex=False, device="cuda")
    assert got.total == gravel.triangles(G, device="cpu").total
