"""k-cores on the CPU and the GPU: a directed graph's by in- plus out-degree, as NetworkX's, and
those of multigraphs (issue 17)."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel.algorithms.kcore import verify_kcore
from gravel.arrays import host

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs
from .helpers import as_array, multigraphs, nx_simple, nx_without_loops

REF = reference()
SMALL = [e for e in REF if e["computed"]["n_vertices"] <= 40000]


def nx_cores(G, arcs):
    g = nx_simple(G, arcs)
    g.remove_edges_from(list(nx.selfloop_edges(g)))  # NetworkX refuses loops; gravel ignores them
    core = nx.core_number(g)
    return np.array([core[v] for v in range(G.n)])


@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_core_number_matches_published(entry):
    G, _ = load_dataset(entry)
    # the published cores are those of the undirected simple graph, also of directed datasets
    core = gravel.core_number(gravel.transform.symmetrize(G), device="cpu").core
    assert core.max() == entry["checks"]["kcore_max"]
    assert (core == core.max()).sum() == entry["checks"]["kcore_max_size"]


@pytest.mark.parametrize("entry", SMALL, ids=dataset_ids(SMALL))
def test_core_number_per_vertex_matches_networkx(entry):
    G, _ = load_dataset(entry)
    core = gravel.core_number(G, device="cpu").core
    assert np.array_equal(core, as_array(nx.core_number(nx_without_loops(G)), G))


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_core_number_as_networkx(G):
    core = gravel.core_number(G, device="cpu").core
    assert np.array_equal(core, as_array(nx.core_number(nx_without_loops(G)), G))


@settings(max_examples=40, deadline=None)
@given(multigraphs(directed=True))
def test_issue_17_directed_core_number_uses_in_plus_out_degree(case):
    G, arcs = case
    expect = nx_cores(G, arcs)
    core = gravel.core_number(G, device="cpu").core
    assert core.dtype == np.int32
    assert np.array_equal(core, expect)
    assert verify_kcore(G, expect) == []


@settings(max_examples=20, deadline=None)
@given(multigraphs(directed=False))
def test_undirected_core_number_as_networkx_on_multigraphs(case):
    G, arcs = case
    assert np.array_equal(gravel.core_number(G, device="cpu").core, nx_cores(G, arcs))


def test_issue_17_reciprocal_arcs_each_count():
    # a directed triangle with every arc both ways: degree 4, as networkx.DiGraph.degree
    src, dst = [0, 1, 2, 1, 2, 0, 0, 0], [1, 2, 0, 0, 1, 2, 0, 1]  # a loop and a parallel arc
    G = gravel.Graph.from_edges(src, dst)
    assert gravel.core_number(G, device="cpu").core.tolist() == [4, 4, 4]
    assert verify_kcore(G, [4, 4, 4]) == []
    assert verify_kcore(G, [2, 2, 2]) != []
    S = gravel.transform.symmetrize(G)  # the undirected graph's cores, when those are wanted
    assert gravel.core_number(S, device="cpu").core.tolist() == [2, 2, 2]


def test_directed_core_number_of_a_reordered_graph():
    G = gravel.Graph.from_edges([0, 1, 1, 2, 3], [1, 0, 2, 3, 2])
    R = gravel.transform.relabel(G, np.array([2, 0, 3, 1]), transparent=True)
    expect = nx_cores(G, list(zip([0, 1, 1, 2, 3], [1, 0, 2, 3, 2])))
    assert np.array_equal(gravel.core_number(R, device="cpu").core, expect)
    assert verify_kcore(R, expect) == []


@pytest.mark.gpu
@settings(max_examples=25, deadline=None)
@given(multigraphs(directed=True))
def test_issue_17_directed_core_number_uses_in_plus_out_degree_on_the_gpu(case):
    G, arcs = case
    core = gravel.core_number(G, device="cuda").core
    assert core.dtype == np.int32
    assert np.array_equal(host(core), nx_cores(G, arcs))


@pytest.mark.gpu
def test_issue_17_reciprocal_arcs_each_count_on_the_gpu():
    G = gravel.Graph.from_edges([0, 1, 2, 1, 2, 0, 0, 0], [1, 2, 0, 0, 1, 2, 0, 1])
    assert host(gravel.core_number(G, device="cuda").core).tolist() == [4, 4, 4]
