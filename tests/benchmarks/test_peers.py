"""benchmarks/peers.py: every peer's answer on gravel's graph passes the check it is timed
behind, and an answer changed in one place does not."""

import numpy as np
import pytest

import gravel
from gravel.cli import open_graph

from .helpers import script

pytest.importorskip("networkit")
pytest.importorskip("igraph")
peers = script("peers")


@pytest.fixture(scope="module", params=["kron:9", "urand:9:6"])
def setup(request):
    G = open_graph(request.param)[0].simple_undirected()
    W = gravel.transform.add_random_weights(G, 1, 255, seed=1)
    source = int(np.argmax(G.out_degree))
    return G, W, peers.peer_graphs(G, W), peers.cases(G, W, source, peers.Twins(G))


@pytest.mark.parametrize("name", peers.ALGOS)
def test_peers_pass_the_checks_and_a_changed_answer_fails(setup, name):
    G, W, (nkg, nkw, igg, igw), cases = setup
    ours, nk_call, ig_call, check = cases[name]
    answer = ours()
    for call, graphs in ((nk_call, (nkg, nkw)), (ig_call, (igg, igw))):
        if call is None:
            continue
        theirs = call(*graphs)
        if check is None:  # communities: each method its own; both partitions of every vertex
            assert len(theirs) == G.n
            continue
        assert check(answer, theirs)
        if name == "jaccard" and isinstance(theirs[0], tuple):  # NetworKit's (pair, score)
            (pair, score), *rest = theirs
            assert not check(answer, [(pair, score + 0.5), *rest])
            continue
        wrong = np.array(theirs, dtype=np.float64, copy=True, ndmin=1)
        hub = int(np.argmax(G.out_degree))
        if name == "coloring":  # two ends of an arc given one colour
            u = int(np.flatnonzero(np.diff(G.offsets))[0])
            wrong[G.indices[G.offsets[u]]] = wrong[u]
        elif name in ("tc", "msf"):
            wrong = wrong + 1
        elif name == "mis":  # the hub in or out: two members adjacent, or the set not maximal
            wrong[hub] = 1 - wrong[hub]
        elif name == "scc":  # the hub moved into another component
            wrong[hub] = wrong[np.flatnonzero(wrong != wrong[hub])[0]]
        else:
            wrong[hub] += 1
        assert not check(answer, wrong if wrong.size > 1 else wrong[0])


def test_interleaved_runs_each_call_its_rounds_and_times_all_but_the_warm_up():
    ran = []
    calls = {"a": lambda: ran.append("a"), "b": lambda: ran.append("b")}
    times = peers.interleaved(calls, 3)
    assert ran == ["a", "b"] * 4 and [len(t) for t in times.values()] == [3, 3]
    ran.clear()
    times = peers.interleaved(calls, 2, warm_up=False)  # the caller's run was the warm-up
    assert ran == ["a", "b"] * 2 and [len(t) for t in times.values()] == [2, 2]


def test_each_igraph_call_starts_with_its_graphs_caches_cleared():
    events = []

    class Graph:
        def __init__(self, name):
            self.name = name
            setattr(self, "__invalidate_cache", lambda: events.append(f"clear {name}"))

    call = peers._uncached(
        lambda igg, igw: events.append(f"run on {igg.name}, {igw.name}"), (Graph("d"),)
    )
    call(Graph("g"), Graph("w"))
    assert events == ["clear g", "clear w", "clear d", "run on g, w"]
